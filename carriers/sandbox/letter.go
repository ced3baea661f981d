package sandbox

import (
	"github.com/go-pdf/fpdf"

	"github.com/shipd-dev/shipd/carriers"
)

// Pages other than the 4x6 label's, in inches: a US letter page (8.5x11,
// 612x792 points) and an A4 page (210x297 mm) for office printers, on which
// the 4x6 label sits centred across the top half, so that a sheet folded or
// cut in two carries the whole label, inside a dashed cut line; and an A6
// page (105x148 mm) for European label printers, a little wider and
// shorter than 4x6, on which the label is drawn scaled to fit and centred.
const (
	letterW   = 8.5
	letterH   = 11.0
	a4W       = 210 / 25.4
	a4H       = 297 / 25.4
	a6W       = 105 / 25.4
	a6H       = 148 / 25.4
	letterTop = 0.5
)

// pageOf is the PDF page of a label size.
func pageOf(size carriers.LabelSize) fpdf.SizeType {
	switch size {
	case carriers.LabelLetter:
		return fpdf.SizeType{Wd: letterW, Ht: letterH}
	case carriers.LabelA4:
		return fpdf.SizeType{Wd: a4W, Ht: a4H}
	case carriers.LabelA6:
		return fpdf.SizeType{Wd: a6W, Ht: a6H}
	}
	return fpdf.SizeType{Wd: pageW, Ht: pageH}
}

// onPage starts the transformation that moves the label's drawing, laid
// out for a 4x6 page, onto the size's page (drawing the cut line of an
// office page); the caller ends it (TransformEnd) when the label is drawn.
func onPage(pdf *fpdf.Fpdf, size carriers.LabelSize) {
	page := pageOf(size)
	if size == carriers.LabelA6 {
		scale := min(page.Wd/pageW, page.Ht/pageH)
		pdf.TransformBegin()
		pdf.TransformTranslate((page.Wd-pageW*scale)/2, (page.Ht-pageH*scale)/2)
		pdf.TransformScale(scale*100, scale*100, 0, 0)
		return
	}
	x := (page.Wd - pageW) / 2
	pdf.SetDrawColor(128, 128, 128)
	pdf.SetLineWidth(0.01)
	pdf.SetDashPattern([]float64{0.08, 0.06}, 0)
	pdf.Rect(x, letterTop, pageW, pageH, "D")
	pdf.SetDashPattern(nil, 0)
	pdf.SetDrawColor(0, 0, 0)
	pdf.TransformBegin()
	pdf.TransformTranslate(x, letterTop)
}

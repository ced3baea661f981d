package sandbox

import "github.com/go-pdf/fpdf"

// A letter PDF is the 4x6 label on a US letter page (8.5x11 inches, 612x792
// points), for office printers: centred across the top half, so that a
// sheet folded or cut in two carries the whole label, inside a dashed cut
// line.
const (
	letterW   = 8.5
	letterH   = 11.0
	letterTop = 0.5
)

// onLetter draws the cut line and starts the transformation that moves the
// label's drawing, laid out for a 4x6 page, onto the letter page; the
// caller ends it (TransformEnd) when the label is drawn.
func onLetter(pdf *fpdf.Fpdf) {
	x := (letterW - pageW) / 2
	pdf.SetDrawColor(128, 128, 128)
	pdf.SetLineWidth(0.01)
	pdf.SetDashPattern([]float64{0.08, 0.06}, 0)
	pdf.Rect(x, letterTop, pageW, pageH, "D")
	pdf.SetDashPattern(nil, 0)
	pdf.SetDrawColor(0, 0, 0)
	pdf.TransformBegin()
	pdf.TransformTranslate(x, letterTop)
}

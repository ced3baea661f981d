package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/boombuler/barcode/code128"
	"github.com/go-pdf/fpdf"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/paperwork"
)

// LabelInput is what goes on a label.
type LabelInput struct {
	Carrier        string
	Service        string // display name, e.g. "PRIORITY MAIL"
	TrackingNumber string
	From, To       carriers.Address
	WeightOz       float64
	// Metric prints the weight in kilograms (a European carrier's label,
	// or a parcel given in grams).
	Metric            bool
	Date              time.Time
	SignatureRequired bool
	// CustomsContents is the customs contents type; empty for domestic labels.
	CustomsContents string
	// CustomsForm is the postal customs declaration ("CN 22", "CN 23")
	// drawn on a page after the label (PDF only), of Customs; "" for none.
	CustomsForm string
	Customs     *carriers.Customs
	Reference   string
	// TestMode adds the "SAMPLE - NOT FOR SHIPPING" marks.
	TestMode bool
	// Return prints a large RETURN beside the SHIP TO block (return labels).
	Return bool
	// Size is the PDF's page: the 4x6 label ("" or carriers.Label4x6), or
	// the same label on a US letter page (carriers.LabelLetter).
	Size carriers.LabelSize
	// Piece and Pieces print "PACKAGE 1 OF 3" on a multi-piece shipment's
	// labels (pieces.go); Pieces is 0 or 1 for a single parcel.
	Piece, Pieces int
}

// Page geometry in inches: the 4x6 thermal label every carrier accepts.
const (
	pageW   = 4.0
	pageH   = 6.0
	margin  = 0.12
	innerW  = pageW - 2*margin
	padding = 0.1
	// ptIn converts a font size in points to inches for line heights.
	ptIn = 1.0 / 72
)

// sampleMark uses an en dash; the CP1252 translator maps it for the core fonts.
const sampleMark = "SAMPLE – NOT FOR SHIPPING"

// RenderLabel draws a 4x6 inch shipping label PDF.
func RenderLabel(in LabelInput) ([]byte, error) { return renderPDF([]LabelInput{in}) }

// renderPDF draws one label per page, in order: a shipment's label, or the
// labels of a multi-piece shipment's pieces (pieces.go); the document's
// title and dates are the first's.
func renderPDF(ins []LabelInput) ([]byte, error) {
	in := ins[0]
	page := pageOf(in.Size) // letter.go
	pdf := fpdf.NewCustom(&fpdf.InitType{
		OrientationStr: "P",
		UnitStr:        "in",
		Size:           page,
	})
	// Fixed dates and catalog order make the same label render to the same
	// bytes, so a retried purchase returns an identical document.
	date := in.Date.UTC()
	pdf.SetCreationDate(date)
	pdf.SetModificationDate(date)
	pdf.SetCatalogSort(true)
	// A label is a few kilobytes of drawing operators either way; deflating
	// them cost more than everything else a sandbox purchase does (a new
	// compressor per stream), for a file a third the size.
	pdf.SetCompression(false)
	pdf.SetTitle(fmt.Sprintf("%s %s label %s", in.Carrier, in.Service, in.TrackingNumber), true)
	pdf.SetCreator("shipd sandbox", true)
	pdf.SetMargins(margin, margin, margin)
	pdf.SetAutoPageBreak(false, 0)
	for _, in := range ins {
		if err := drawPage(pdf, in); err != nil {
			return nil, err
		}
	}
	var buf bytes.Buffer
	if err := pdf.Output(&buf); err != nil {
		return nil, fmt.Errorf("label: %w", err)
	}
	return buf.Bytes(), nil
}

// drawPage adds a page with the label in.
func drawPage(pdf *fpdf.Fpdf, in LabelInput) error {
	if strings.TrimSpace(in.TrackingNumber) == "" {
		return errors.New("label: tracking number is required")
	}
	bc, err := barcodeBars(in.TrackingNumber)
	if err != nil {
		return err
	}
	pdf.AddPage()
	placed := in.Size.PDFOnly()
	if placed {
		// The label's drawing is moved onto the page, closed below.
		onPage(pdf, in.Size) // letter.go
	}

	l := &labelWriter{pdf: pdf, tr: paperwork.CP1252}
	if in.TestMode {
		// Drawn first so it sits under the content: the address and barcode
		// stay legible and scannable.
		l.watermark()
	}
	pdf.SetLineWidth(0.02)
	pdf.Rect(margin, margin, innerW, pageH-2*margin, "D")

	l.header(in)
	l.fromBlock(in)
	l.shipTo(in)
	l.trackingBlock(in, bc)
	l.footer(in)

	if placed {
		pdf.TransformEnd()
	}
	if in.CustomsForm != "" && in.Customs != nil {
		// USPS international: its CN22 / CN23 follows the label (a
		// single piece: USPS sells no multi-piece shipment).
		customsFormPage(pdf, in) // cn22.go
	}
	return nil
}

type labelWriter struct {
	pdf *fpdf.Fpdf
	tr  func(string) string
}

// Vertical layout, top to bottom, budgeted so a six-line FROM block and a
// six-line SHIP TO block (international, with company and second street
// line) never overlap the next block.
const (
	headerTop   = margin
	headerH     = 0.62
	fromTop     = headerTop + headerH + 0.07
	shipToTop   = 1.86
	flagsTop    = 3.36
	trackingTop = 3.62
	barcodeH    = 0.95
	footerTop   = 5.3
)

func (l *labelWriter) header(in LabelInput) {
	p := l.pdf
	p.SetFillColor(0, 0, 0)
	p.Rect(margin, headerTop, innerW, headerH, "F")
	p.SetTextColor(255, 255, 255)

	p.SetFont("Helvetica", "B", 24)
	p.SetXY(margin+padding, headerTop)
	p.CellFormat(1.6, headerH, l.tr(in.Carrier), "", 0, "LM", false, 0, "")

	svc := strings.ToUpper(in.Service)
	x := margin + 1.7
	w := innerW - 1.7 - padding
	l.fit(svc, w, "B", 13, 7)
	p.SetXY(x, headerTop+0.08)
	p.CellFormat(w, 0.28, l.tr(svc), "", 0, "RM", false, 0, "")
	p.SetFont("Helvetica", "", 7)
	p.SetXY(x, headerTop+0.36)
	p.CellFormat(w, 0.18, "SERVICE", "", 0, "RM", false, 0, "")
	p.SetTextColor(0, 0, 0)
}

func (l *labelWriter) fromBlock(in LabelInput) {
	p := l.pdf
	x := margin + padding
	colW := 2.25

	p.SetFont("Helvetica", "B", 7)
	p.SetXY(x, fromTop)
	p.CellFormat(colW, 7*ptIn*1.3, "FROM:", "", 2, "L", false, 0, "")
	for _, line := range addressLines(in.From, carriers.IsInternational(in.From, in.To)) {
		l.fit(line, colW, "", 7.5, 5.5)
		p.SetX(x)
		p.CellFormat(colW, 7.5*ptIn*1.3, l.tr(line), "", 2, "L", false, 0, "")
	}

	// The right column carries the facts a sorter checks at a glance.
	rx := margin + padding + colW + 0.1
	rw := pageW - margin - padding - rx
	facts := [][2]string{
		{"SHIP DATE", in.Date.UTC().Format("2006-01-02")},
		{"WEIGHT", formatWeight(in.WeightOz, in.Metric)},
	}
	if in.Reference != "" {
		facts = append(facts, [2]string{"REF", in.Reference})
	}
	y := fromTop
	for _, f := range facts {
		p.SetFont("Helvetica", "B", 6)
		p.SetXY(rx, y)
		p.CellFormat(rw, 6*ptIn*1.3, f[0], "", 2, "L", false, 0, "")
		l.fit(f[1], rw, "", 8, 5)
		p.SetX(rx)
		p.CellFormat(rw, 8*ptIn*1.3, l.tr(f[1]), "", 2, "L", false, 0, "")
		y = p.GetY() + 0.02
	}

	p.SetLineWidth(0.02)
	p.Line(margin, shipToTop-0.04, pageW-margin, shipToTop-0.04)
}

func (l *labelWriter) shipTo(in LabelInput) {
	p := l.pdf
	x := margin + padding
	w := innerW - 2*padding

	p.SetFont("Helvetica", "B", 9)
	p.SetXY(x, shipToTop+0.02)
	p.CellFormat(w, 9*ptIn*1.4, "SHIP TO:", "", 2, "L", false, 0, "")

	lines := addressLines(in.To, carriers.IsInternational(in.From, in.To))
	// Recipient lines are indented and large: this is the part a driver
	// reads from arm's length.
	ix := x + 0.25
	iw := w - 0.25
	if in.Return {
		// A return label says so in large type where the driver reads, so
		// that it is sorted back to the merchant; the first address line
		// narrows to leave it room.
		p.SetFillColor(0, 0, 0)
		p.SetTextColor(255, 255, 255)
		p.SetFont("Helvetica", "B", returnMarkSize)
		p.SetXY(x+w-returnMarkW, shipToTop+0.04)
		p.CellFormat(returnMarkW, returnMarkH, returnMark, "", 0, "CM", true, 0, "")
		p.SetTextColor(0, 0, 0)
		p.SetXY(x, shipToTop+0.02+9*ptIn*1.4)
	}
	for i, line := range lines {
		style, size := "", 12.0
		if i == 0 || i == len(lines)-1 {
			style, size = "B", 13
		}
		lw := iw
		if in.Return && i == 0 {
			lw = iw - returnMarkW - 0.05
		}
		l.fit(line, lw, style, size, 7)
		p.SetX(ix)
		p.CellFormat(lw, 12*ptIn*1.22, l.tr(line), "", 2, "L", false, 0, "")
	}

	// The band is labelFlags', which the PNG and ZPL labels draw too.
	if flags := labelFlags(in); flags != "" {
		p.SetFillColor(0, 0, 0)
		p.SetTextColor(255, 255, 255)
		l.fit(flags, w, "B", 9, 6)
		p.SetXY(x, flagsTop)
		p.CellFormat(w, 0.2, l.tr(flags), "", 0, "CM", true, 0, "")
		p.SetTextColor(0, 0, 0)
	}

	p.SetLineWidth(0.05)
	p.Line(margin, trackingTop-0.04, pageW-margin, trackingTop-0.04)
}

// The RETURN mark of a return label, in the SHIP TO block's top right corner.
const (
	returnMark     = "RETURN"
	returnMarkSize = 26.0
	returnMarkW    = 1.45
	returnMarkH    = 0.42
)

func (l *labelWriter) trackingBlock(in LabelInput, bc barcode128) {
	p := l.pdf
	p.SetFont("Helvetica", "B", 8)
	p.SetXY(margin+padding, trackingTop+0.04)
	p.CellFormat(innerW-2*padding, 0.18, l.tr(strings.ToUpper(in.Carrier)+" TRACKING #"), "", 0, "L", false, 0, "")

	// Whole modules per 0.01 inch keep every bar the same width when the
	// label is printed at 203 or 300 dpi; cap the width to fit the page.
	maxW := innerW - 2*0.2 // quiet zones
	module := math.Floor(maxW/float64(bc.modules)*1000) / 1000
	bw := module * float64(bc.modules)
	bh := barcodeH
	// The bars are drawn as filled rectangles: exact edges at any printer
	// resolution, and no image to encode and embed.
	p.SetFillColor(0, 0, 0)
	x0 := (pageW - bw) / 2
	for _, bar := range bc.bars {
		p.Rect(x0+float64(bar.start)*module, trackingTop+0.28, float64(bar.width)*module, bh, "F")
	}

	// Helvetica like the rest: each font a document uses is parsed anew for
	// it, and a third font was a sixth of the time spent rendering a label.
	p.SetFont("Helvetica", "B", 12)
	p.SetXY(margin, trackingTop+0.28+bh+0.06)
	p.CellFormat(innerW, 0.22, l.tr(in.TrackingNumber), "", 0, "C", false, 0, "")

	p.SetLineWidth(0.05)
	p.Line(margin, footerTop-0.04, pageW-margin, footerTop-0.04)
}

func (l *labelWriter) footer(in LabelInput) {
	p := l.pdf
	h := pageH - margin - footerTop
	if in.TestMode {
		p.SetFillColor(0, 0, 0)
		p.Rect(margin, footerTop, innerW, h, "F")
		p.SetTextColor(255, 255, 255)
		p.SetFont("Helvetica", "B", 14)
		p.SetXY(margin, footerTop)
		p.CellFormat(innerW, h, l.tr(sampleMark), "", 0, "CM", false, 0, "")
		p.SetTextColor(0, 0, 0)
		return
	}
	p.SetFont("Helvetica", "", 7)
	p.SetXY(margin, footerTop)
	p.CellFormat(innerW, h, "Created with shipd", "", 0, "CM", false, 0, "")
}

// watermark draws the sample mark diagonally across the page so that no
// crop of the label looks shippable.
func (l *labelWriter) watermark() {
	p := l.pdf
	p.SetFont("Helvetica", "B", 26)
	p.SetTextColor(215, 215, 215)
	cx, cy := pageW/2, pageH/2
	p.TransformBegin()
	p.TransformRotate(math.Atan2(pageH, pageW)*180/math.Pi, cx, cy)
	text := l.tr(sampleMark)
	w := p.GetStringWidth(text)
	p.Text(cx-w/2, cy+26*ptIn/3, text)
	p.TransformEnd()
	p.SetTextColor(0, 0, 0)
}

// fit sets the font, shrinking it down to minSize so the text fits width w.
// It keeps a safety margin because core fonts are not embedded and a viewer
// may substitute a wider face than the Helvetica metrics measured here.
func (l *labelWriter) fit(text string, w float64, style string, size, minSize float64) {
	p := l.pdf
	for ; size > minSize; size -= 0.5 {
		p.SetFont("Helvetica", style, size)
		if p.GetStringWidth(l.tr(text)) <= w*0.92 {
			return
		}
	}
	p.SetFont("Helvetica", style, minSize)
}

func addressLines(a carriers.Address, withCountry bool) []string {
	var lines []string
	add := func(s string) {
		if s = strings.Join(strings.Fields(s), " "); s != "" {
			lines = append(lines, s)
		}
	}
	add(strings.ToUpper(a.Name))
	add(strings.ToUpper(a.Company))
	add(strings.ToUpper(a.Street1))
	add(strings.ToUpper(a.Street2))
	city := strings.TrimSpace(a.City)
	if st := strings.TrimSpace(a.State); st != "" {
		if city != "" {
			city += " "
		}
		city += st
	}
	if z := strings.TrimSpace(a.Zip); z != "" {
		if city != "" {
			city += " "
		}
		city += z
	}
	add(strings.ToUpper(city))
	if withCountry {
		add(carriers.NormalizeCountry(a.Country))
	}
	return lines
}

func formatWeight(oz float64, metric bool) string {
	if oz <= 0 {
		return "-"
	}
	if metric {
		// Hundredths of a kilogram, rounded up, as the ounces are.
		dag := int64(math.Ceil(oz*carriers.GramsPerOunce/10 - 1e-9))
		return fmt.Sprintf("%d.%02d KG", dag/100, dag%100)
	}
	// Tenths of an ounce, rounded up: a label must never understate weight.
	tenths := int64(math.Ceil(oz*10 - 1e-9))
	lb, rest := tenths/160, tenths%160
	ozs := fmt.Sprintf("%d.%d OZ", rest/10, rest%10)
	ozs = strings.Replace(ozs, ".0 OZ", " OZ", 1)
	if lb == 0 {
		return ozs
	}
	return fmt.Sprintf("%d LB %s", lb, ozs)
}

// barcode128 is a Code 128 symbol as its bars, in modules.
type barcode128 struct {
	bars    []bar
	modules int // modules across, to scale the symbol by whole modules
}

type bar struct{ start, width int }

func barcodeBars(content string) (barcode128, error) {
	code, err := code128.Encode(content)
	if err != nil {
		return barcode128{}, fmt.Errorf("label: encoding barcode: %w", err)
	}
	modules := code.Bounds().Dx()
	var bars []bar
	for x := 0; x < modules; x++ {
		if r, _, _, _ := code.At(code.Bounds().Min.X+x, code.Bounds().Min.Y).RGBA(); r != 0 {
			continue // a space
		}
		if n := len(bars); n > 0 && bars[n-1].start+bars[n-1].width == x {
			bars[n-1].width++
			continue
		}
		bars = append(bars, bar{start: x, width: 1})
	}
	return barcode128{bars: bars, modules: modules}, nil
}

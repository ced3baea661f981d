// Package paperwork renders the customs documents of an international
// shipment: the commercial invoice (a letter page) and the CN22 / CN23
// declaration postal carriers print with the label. The sandbox uses them
// for its own labels, and shipd renders the invoice for a live label whose
// carrier returned none, so every international label has its paperwork.
package paperwork

import (
	"bytes"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-pdf/fpdf"
	"golang.org/x/text/encoding/charmap"

	"github.com/shipd-dev/shipd/carriers"
)

// Invoice is what goes on a commercial invoice.
type Invoice struct {
	// Reference is the shipd shipment id, the invoice number when the
	// declaration gives none.
	Reference      string
	Carrier        string
	Service        string
	TrackingNumber string
	Date           time.Time
	From, To       carriers.Address
	Customs        carriers.Customs
	// DutiesCents is what the shipper paid for duties and taxes (DDP).
	DutiesCents int64
	// TestMode marks the document as a sample.
	TestMode bool
}

// Number is the invoice's number: the declared one, else the reference.
func (in Invoice) Number() string {
	if n := strings.TrimSpace(in.Customs.InvoiceNumber); n != "" {
		return n
	}
	return in.Reference
}

// ReasonForExport is the invoice's "reason for export" for a contents type.
func ReasonForExport(contentsType string) string {
	switch contentsType {
	case carriers.ContentsGift:
		return "GIFT"
	case carriers.ContentsSample:
		return "SAMPLE"
	case carriers.ContentsReturnedGoods:
		return "RETURN"
	case carriers.ContentsDocuments:
		return "DOCUMENTS"
	case carriers.ContentsOther:
		return "OTHER"
	}
	return "SALE"
}

// Money formats cents as dollars: 1234 is "12.34".
func Money(cents int64) string {
	sign := ""
	if cents < 0 {
		sign, cents = "-", -cents
	}
	return fmt.Sprintf("%s%d.%02d", sign, cents/100, cents%100)
}

// Weight formats ounces as pounds and ounces' decimal: 6 oz is "0.38 lb".
func Weight(oz float64) string { return fmt.Sprintf("%.2f lb", oz/16) }

// Letter page geometry, in points.
const (
	pageW  = 612.0
	margin = 40.0
	width  = pageW - 2*margin
)

// RenderInvoice draws the commercial invoice: one letter page per 25 items.
func RenderInvoice(in Invoice) ([]byte, error) {
	if len(in.Customs.Items) == 0 {
		return nil, fmt.Errorf("invoice: no items")
	}
	pdf := fpdf.New("P", "pt", "Letter", "")
	// A few kilobytes of text; not worth a compressor per stream, and
	// plain streams keep the document greppable in tests and support.
	pdf.SetCompression(false)
	pdf.SetTitle("Commercial invoice "+in.Number(), true)
	pdf.SetCreator("shipd", true)
	pdf.SetMargins(margin, margin, margin)
	pdf.SetAutoPageBreak(true, margin)
	pdf.AddPage()
	w := writer{pdf: pdf}

	pdf.SetFont("Helvetica", "B", 18)
	pdf.CellFormat(width, 24, "COMMERCIAL INVOICE", "", 1, "C", false, 0, "")
	if in.TestMode {
		pdf.SetFont("Helvetica", "B", 10)
		pdf.CellFormat(width, 14, "SAMPLE - NOT FOR SHIPPING", "", 1, "C", false, 0, "")
	}
	pdf.Ln(6)

	date := in.Date
	if date.IsZero() {
		date = time.Now()
	}
	w.pairs([][2]string{
		{"Invoice number", in.Number()},
		{"Date", date.UTC().Format("2006-01-02")},
		{"Carrier / service", strings.TrimSpace(in.Carrier + " " + in.Service)},
		{"Tracking number", in.TrackingNumber},
		{"Reason for export", ReasonForExport(in.Customs.ContentsType)},
		{"Incoterm", in.Customs.IncotermOrDefault()},
		{"Export filing (EEL/PFC)", orDash(in.Customs.EEL(in.From.Country))},
	})
	pdf.Ln(8)

	top := pdf.GetY()
	half := width/2 - 6
	w.party(margin, top, half, "EXPORTER (SHIPPER)", in.From, in.Customs.ExporterTaxID)
	y1 := pdf.GetY()
	w.party(margin+half+12, top, half, "IMPORTER (CONSIGNEE)", in.To, in.Customs.ImporterTaxID)
	if y1 > pdf.GetY() {
		pdf.SetY(y1)
	}
	pdf.Ln(10)

	// Items: description, HS number, origin, quantity, unit value, line
	// value, line weight.
	cols := []struct {
		title string
		w     float64
		align string
	}{
		{"Description", 170, "L"}, {"HS number", 70, "L"}, {"Origin", 40, "C"}, {"Qty", 36, "R"},
		{"Unit USD", 60, "R"}, {"Total USD", 80, "R"}, {"Weight", 76, "R"},
	}
	header := func() {
		pdf.SetFont("Helvetica", "B", 9)
		pdf.SetFillColor(230, 230, 230)
		for _, c := range cols {
			pdf.CellFormat(c.w, 16, c.title, "1", 0, c.align, true, 0, "")
		}
		pdf.Ln(-1)
		pdf.SetFont("Helvetica", "", 9)
	}
	header()
	var qty int
	for _, it := range in.Customs.Items {
		if pdf.GetY() > 700 {
			pdf.AddPage()
			header()
		}
		qty += it.Quantity
		unit := it.ValueCents / int64(max(it.Quantity, 1))
		cells := []string{
			w.fit(it.Description, cols[0].w-4), orDash(it.HSTariffNumber), orDash(it.OriginCountry),
			fmt.Sprint(it.Quantity), Money(unit), Money(it.ValueCents), Weight(it.WeightOz),
		}
		for i, c := range cols {
			pdf.CellFormat(c.w, 15, cells[i], "1", 0, c.align, false, 0, "")
		}
		pdf.Ln(-1)
	}
	pdf.SetFont("Helvetica", "B", 9)
	pdf.CellFormat(cols[0].w+cols[1].w+cols[2].w, 16, "TOTAL", "1", 0, "R", false, 0, "")
	pdf.CellFormat(cols[3].w, 16, fmt.Sprint(qty), "1", 0, "R", false, 0, "")
	pdf.CellFormat(cols[4].w, 16, "", "1", 0, "R", false, 0, "")
	pdf.CellFormat(cols[5].w, 16, Money(in.Customs.TotalValueCents()), "1", 0, "R", false, 0, "")
	pdf.CellFormat(cols[6].w, 16, Weight(in.Customs.TotalWeightOz()), "1", 1, "R", false, 0, "")
	pdf.Ln(8)

	pdf.SetFont("Helvetica", "", 9)
	pdf.CellFormat(width, 13, "Total declared value: USD "+Money(in.Customs.TotalValueCents()), "", 1, "L", false, 0, "")
	if in.Customs.DDP() {
		paid := "Duties and taxes: paid by the shipper (DDP)"
		if in.DutiesCents > 0 {
			paid += ", USD " + Money(in.DutiesCents)
		}
		pdf.CellFormat(width, 13, paid, "", 1, "L", false, 0, "")
	} else {
		pdf.CellFormat(width, 13, "Duties and taxes: paid by the importer (DAP)", "", 1, "L", false, 0, "")
	}
	if e := strings.TrimSpace(in.Customs.ContentsExplanation); e != "" {
		pdf.MultiCell(width, 13, w.tr("Contents: "+e), "", "L", false)
	}
	pdf.Ln(18)
	pdf.MultiCell(width, 12, "I declare that the information on this invoice is true and correct, and that the contents "+
		"of this shipment are as stated above.", "", "L", false)
	pdf.Ln(24)
	y := pdf.GetY()
	pdf.Line(margin, y, margin+260, y)
	pdf.Line(margin+300, y, margin+width, y)
	pdf.SetFont("Helvetica", "", 8)
	pdf.Text(margin, y+10, "Signature of shipper / exporter")
	pdf.Text(margin+300, y+10, "Name and date")

	var buf bytes.Buffer
	if err := pdf.Output(&buf); err != nil {
		return nil, fmt.Errorf("invoice: %w", err)
	}
	return buf.Bytes(), nil
}

type writer struct{ pdf *fpdf.Fpdf }

// tr maps UTF-8 to Windows-1252, the core fonts' code page.
func (writer) tr(s string) string { return CP1252(s) }

// CP1252 maps UTF-8 text to Windows-1252, the code page of fpdf's core
// fonts, and writes '.' for what it cannot encode, as fpdf's own translator
// does. It keeps no state: fpdf's translator reuses one buffer across calls,
// so it cannot serve documents rendered at once, and building one per
// document (scanning a text descriptor with Sscanf) cost a third of a
// label's rendering.
func CP1252(s string) string {
	b := make([]byte, 0, len(s))
	for _, r := range s {
		if r < utf8.RuneSelf {
			b = append(b, byte(r))
			continue
		}
		c, ok := charmap.Windows1252.EncodeRune(r)
		if !ok {
			c = '.'
		}
		b = append(b, c)
	}
	return string(b)
}

// fit shortens s with an ellipsis until it fits w at the current font.
func (w writer) fit(s string, width float64) string {
	s = w.tr(strings.Join(strings.Fields(s), " "))
	if w.pdf.GetStringWidth(s) <= width {
		return s
	}
	for len(s) > 1 && w.pdf.GetStringWidth(s+"...") > width {
		s = s[:len(s)-1]
	}
	return s + "..."
}

func (w writer) pairs(kv [][2]string) {
	for _, p := range kv {
		w.pdf.SetFont("Helvetica", "B", 9)
		w.pdf.CellFormat(140, 13, p[0]+":", "", 0, "L", false, 0, "")
		w.pdf.SetFont("Helvetica", "", 9)
		w.pdf.CellFormat(width-140, 13, w.tr(p[1]), "", 1, "L", false, 0, "")
	}
}

func (w writer) party(x, y, wd float64, title string, a carriers.Address, taxID string) {
	p := w.pdf
	p.SetXY(x, y)
	p.SetFont("Helvetica", "B", 9)
	p.CellFormat(wd, 13, title, "B", 2, "L", false, 0, "")
	p.SetFont("Helvetica", "", 9)
	for _, l := range addressLines(a) {
		p.SetX(x)
		p.CellFormat(wd, 12, w.fit(l, wd), "", 2, "L", false, 0, "")
	}
	if strings.TrimSpace(a.Phone) != "" {
		p.SetX(x)
		p.CellFormat(wd, 12, "Phone: "+w.tr(a.Phone), "", 2, "L", false, 0, "")
	}
	if strings.TrimSpace(taxID) != "" {
		p.SetX(x)
		p.CellFormat(wd, 12, "Tax id: "+w.tr(taxID), "", 2, "L", false, 0, "")
	}
}

func addressLines(a carriers.Address) []string {
	var lines []string
	add := func(s string) {
		if s = strings.Join(strings.Fields(s), " "); s != "" {
			lines = append(lines, s)
		}
	}
	add(a.Name)
	add(a.Company)
	add(a.Street1)
	add(a.Street2)
	add(strings.Join(strings.Fields(a.City+" "+a.State+" "+a.Zip), " "))
	add(carriers.NormalizeCountry(a.Country))
	return lines
}

func orDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "-"
	}
	return s
}

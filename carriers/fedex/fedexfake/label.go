package fedexfake

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/go-pdf/fpdf"
)

// labelInput is what the fake prints on a label.
type labelInput struct {
	trackingNumber, service string
	from, to                shipAddress
	fromContact, toContact  contact
	weightLB                float64
	reference               string
	letter                  bool // the label on the top half of a letter page (PAPER_85X11_TOP_HALF_LABEL)
}

// renderLabel draws a 4x6 inch PDF label, the PAPER_4X6 stock shipd asks
// for: sender, recipient, service, tracking number with a drawn stand-in
// for the barcode, and a mark that it is not a real label.
func renderLabel(in labelInput) ([]byte, error) {
	page := fpdf.SizeType{Wd: 4, Ht: 6}
	if in.letter {
		page = fpdf.SizeType{Wd: 8.5, Ht: 11}
	}
	pdf := fpdf.NewCustom(&fpdf.InitType{OrientationStr: "P", UnitStr: "in", Size: page})
	pdf.SetMargins(0.2, 0.2, 0.2)
	pdf.SetAutoPageBreak(false, 0)
	pdf.SetTitle("FedEx label "+in.trackingNumber, false)
	pdf.AddPage()
	tr := pdf.UnicodeTranslatorFromDescriptor("") // cp1252 for the core fonts

	pdf.SetLineWidth(0.02)
	pdf.Rect(0.1, 0.1, 3.8, 5.8, "D")

	pdf.SetFont("Helvetica", "B", 22)
	pdf.SetXY(0.2, 0.2)
	pdf.CellFormat(1.6, 0.4, "FedEx", "", 0, "L", false, 0, "")
	pdf.SetFont("Helvetica", "B", 11)
	pdf.SetXY(1.8, 0.25)
	pdf.CellFormat(2.0, 0.3, tr(strings.ToUpper(strings.TrimSuffix(in.service, "®"))), "", 0, "R", false, 0, "")
	pdf.Line(0.1, 0.7, 3.9, 0.7)

	block := func(y float64, title string, a shipAddress, c contact) {
		pdf.SetXY(0.2, y)
		pdf.SetFont("Helvetica", "B", 8)
		pdf.CellFormat(3.6, 0.16, title, "", 1, "L", false, 0, "")
		pdf.SetFont("Helvetica", "", 10)
		lines := []string{c.PersonName, c.CompanyName}
		lines = append(lines, a.StreetLines...)
		lines = append(lines, strings.TrimSpace(fmt.Sprintf("%s %s %s", a.City, a.StateOrProvinceCode, a.PostalCode)), a.CountryCode)
		for _, l := range lines {
			if strings.TrimSpace(l) == "" {
				continue
			}
			pdf.SetX(0.3)
			pdf.CellFormat(3.5, 0.18, tr(l), "", 1, "L", false, 0, "")
		}
	}
	block(0.8, "FROM", in.from, in.fromContact)
	pdf.Line(0.1, 2.05, 3.9, 2.05)
	block(2.15, "SHIP TO", in.to, in.toContact)
	pdf.Line(0.1, 3.5, 3.9, 3.5)

	// A barcode stand-in: bars whose widths follow the digits.
	x := 0.35
	for i, r := range in.trackingNumber {
		w := 0.012 * float64(1+int(r-'0')%4)
		pdf.Rect(x, 3.65, w, 0.9, "F")
		x += w + 0.018 + 0.006*float64(i%3)
		if x > 3.6 {
			break
		}
	}
	pdf.SetFont("Courier", "B", 14)
	pdf.SetXY(0.2, 4.6)
	pdf.CellFormat(3.6, 0.3, "TRK# "+groupDigits(in.trackingNumber), "", 1, "C", false, 0, "")
	pdf.SetFont("Helvetica", "", 9)
	pdf.SetX(0.2)
	pdf.CellFormat(3.6, 0.2, fmt.Sprintf("%.1f LB   REF: %s", in.weightLB, in.reference), "", 1, "C", false, 0, "")
	pdf.SetFont("Helvetica", "B", 10)
	pdf.SetXY(0.2, 5.45)
	pdf.CellFormat(3.6, 0.3, "FEDEXFAKE - NOT FOR SHIPPING", "1", 0, "C", false, 0, "")

	var buf bytes.Buffer
	if err := pdf.Output(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// groupDigits writes a tracking number in groups of four, as FedEx prints it.
func groupDigits(tn string) string {
	var parts []string
	for len(tn) > 4 {
		parts = append(parts, tn[:4])
		tn = tn[4:]
	}
	return strings.Join(append(parts, tn), " ")
}

package uspsfake

import (
	"fmt"

	"github.com/go-pdf/fpdf"
)

// customsDeclaration is the customs form USPS integrates with an
// international label (Labels 3.0): a CN22 for contents up to $400, a CN23
// above, drawn from customsForm.
type customsDeclaration struct {
	form, contentType, aesitn, invoice string
	lines                              []string
	totalUSD                           float64
}

func customsOf(c customsIn) *customsDeclaration {
	d := &customsDeclaration{contentType: c.CustomsContentType, aesitn: c.AESITN, invoice: c.InvoiceNumber}
	for _, it := range c.Contents {
		v := 0.0
		if it.ItemTotalValue != nil {
			v = *it.ItemTotalValue
		}
		qty := 0
		if it.ItemQuantity != nil {
			qty = *it.ItemQuantity
		}
		d.totalUSD += v
		d.lines = append(d.lines, fmt.Sprintf("%d x %s  %.2f USD  %s %s", qty, ascii(it.ItemDescription), v, it.HSTariffNumber, it.CountryofOrigin))
	}
	d.form = "CN 22"
	if d.totalUSD > 400 {
		d.form = "CN 23"
	}
	return d
}

// draw adds the declaration as the label document's second page.
func (d *customsDeclaration) draw(pdf *fpdf.Fpdf, w, h float64) {
	pdf.AddPage()
	pdf.SetLineWidth(1.5)
	pdf.Rect(6, 6, w-12, h-12, "D")
	pdf.SetFont("Helvetica", "B", 14)
	pdf.Text(14, 30, "CUSTOMS DECLARATION "+d.form)
	pdf.SetFont("Helvetica", "", 8)
	y := 48.0
	for _, l := range append([]string{"Contents: " + d.contentType, "AES/ITN: " + d.aesitn, "Invoice: " + orDefault(d.invoice, "-")}, d.lines...) {
		pdf.Text(14, y, l)
		y += 11
	}
	pdf.SetFont("Helvetica", "B", 9)
	pdf.Text(14, y+6, fmt.Sprintf("Total value: %.2f USD", d.totalUSD))
}

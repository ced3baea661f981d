package upsfake

import (
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/shipd-dev/shipd/carriers/fakekit"
)

// invoiceForm is what the fake prints on the commercial invoice it returns
// (ShipmentResults/Form) when InternationalForms asks for one.
type invoiceForm struct {
	number, terms, overridePaperless string
	products                         []string
}

// termsOfShipment are TermsOfShipment's documented values.
var termsOfShipment = []string{"CFR", "CIF", "CIP", "CPT", "DAF", "DDP", "DAP", "DEQ", "DES", "EXW", "FAS", "FCA", "FOB"}

// invoiceTerms checks the invoice's number ("Required for Invoice forms"),
// its terms of shipment and the sold-to party's tax id.
func (c *checker) invoiceTerms(f map[string]any, where string) *invoiceForm {
	inv := &invoiceForm{number: c.str(f, where, "InvoiceNumber", 35)}
	if _, ok := lookup(f, "TermsOfShipment"); ok {
		inv.terms = c.oneOf(f, where, "TermsOfShipment", termsOfShipment...)
	}
	inv.overridePaperless, _ = c.optStr(f, where, "OverridePaperlessIndicator", 1)
	c.optStr(f, where, "Contacts.SoldTo.TaxIdentificationNumber", 15)
	return inv
}

// form is ShipmentResults/Form: the invoice as a base64 PDF, "01 - All
// Requested International Forms".
func (inv *invoiceForm) form(trackingNumber string) any {
	pdf, err := fakekit.TextPDF("UPS COMMERCIAL INVOICE (fake)",
		append([]string{"Invoice number: " + inv.number, "Terms of shipment: " + inv.terms, "Waybill: " + trackingNumber}, inv.products...))
	if err != nil {
		panic(fmt.Sprintf("upsfake: invoice: %v", err))
	}
	return map[string]any{
		"Code": "01", "Description": "All Requested International Forms",
		"Image":       map[string]any{"ImageFormat": map[string]string{"Code": "PDF", "Description": "PDF"}, "GraphicImage": base64.StdEncoding.EncodeToString(pdf)},
		"FormGroupId": fmt.Sprintf("FG%s", trackingNumber),
	}
}

// productDescription is a Product's Description lines joined.
func productDescription(p any) string {
	d, _ := lookup(p, "Description")
	lines, _ := d.([]any)
	parts := make([]string, 0, len(lines))
	for _, l := range lines {
		if s, ok := l.(string); ok {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " ")
}

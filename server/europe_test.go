package server_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

// deBody is a parcel from Berlin to Munich in grams and centimetres; mods
// change it.
func deBody(mods ...func(m map[string]any)) map[string]any {
	m := map[string]any{
		"fromAddress": map[string]any{"name": "Kiezladen GmbH", "phone": "+49 30 1234567", "email": "versand@kiezladen.example",
			"street1": "Friedrichstraße 43", "city": "Berlin", "zip": "10117", "country": "DE"},
		"toAddress": map[string]any{"name": "Erika Mustermann", "phone": "+49 89 7654321", "email": "erika@example.com",
			"street1": "Marienplatz 8", "city": "München", "zip": "80331", "country": "DE"},
		"parcel": map[string]any{"weightG": 2500, "lengthCm": 35, "widthCm": 25, "heightCm": 12},
	}
	for _, mod := range mods {
		mod(m)
	}
	return m
}

// A label is bought in the size asked or not at all: A6 from a carrier
// that prints A6 (DHL Paket); a US carrier, which prints 4x6 and letter,
// is refused naming the field.
func TestLabelSizeA6(t *testing.T) {
	t.Parallel()
	b := setupLabels(t)
	s := waitForStatus(t, b, b.token, createLabel(t, b, b.token, deBody(withField("labelSize", "a6"), withField("carrier", "DHLParcelDE"))).ID, "purchased")
	if s.Carrier != "DHLParcelDE" {
		t.Errorf("carrier %s", s.Carrier)
	}
	pdf := b.doT(t, "GET", "/api/v1/labels/"+s.ID+"/label.pdf", b.token, nil)
	wantStatus(t, pdf, http.StatusOK)
	// A6 is 105 × 148 mm: 297.64 × 419.53 points.
	if !strings.Contains(string(pdf.Body), "/MediaBox [0 0 297.64 419.53]") {
		t.Errorf("the label's page is not A6: %.200q", pdf.Body)
	}

	m := wantError(t, b.doT(t, "POST", "/api/v1/labels/create", b.token, labelBody(withField("labelSize", "a6"), withField("carrier", "UPS"))),
		http.StatusUnprocessableEntity, "invalid_field")
	if m["field"] != "labelSize" || m["error"] != "labelSize: UPS does not offer a6 labels; it offers 4x6, letter" {
		t.Errorf("A6 from UPS: %v", m)
	}
	m = wantError(t, b.doT(t, "POST", "/api/v1/labels/create", b.token, labelBody(withField("labelSize", "a4"))),
		http.StatusUnprocessableEntity, "invalid_field")
	if m["field"] != "labelSize" || !strings.Contains(m["error"].(string), "no carrier that quoted this shipment offers a4 pdf labels; DHLParcelDE, GLS, DPD, DHLExpress do") {
		t.Errorf("A4 within the US: %v", m)
	}
	m = wantError(t, b.doT(t, "POST", "/api/v1/labels/create", b.token, deBody(withField("labelSize", "a6"), withField("labelFormat", "zpl"))),
		http.StatusUnprocessableEntity, "invalid_field")
	if m["field"] != "labelSize" {
		t.Errorf("an A6 ZPL: %v", m)
	}
	// Without a size, every carrier serving the route quotes.
	var carriers []string
	for _, r := range quoteRates(t, b, b.token, deBody()) {
		if !slices.Contains(carriers, r.Carrier) {
			carriers = append(carriers, r.Carrier)
		}
	}
	if !slices.Contains(carriers, "DHLParcelDE") || slices.Contains(carriers, "USPS") {
		t.Errorf("carriers quoting Berlin to Munich: %v", carriers)
	}
}

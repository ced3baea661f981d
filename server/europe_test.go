package server_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
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
	_, eur := b.accountIn("Kiezladen", "EUR")
	s := waitForStatus(t, b, eur, createLabel(t, b, eur, deBody(withField("labelSize", "a6"), withField("carrier", "DHLParcelDE"))).ID, "purchased")
	if s.Carrier != "DHLParcelDE" {
		t.Errorf("carrier %s", s.Carrier)
	}
	pdf := b.doT(t, "GET", "/api/v1/labels/"+s.ID+"/label.pdf", eur, nil)
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
	if m["field"] != "labelSize" || !strings.Contains(m["error"].(string), "no carrier that quoted this shipment offers a4 pdf labels; DHLParcelDE, DPD, DHLExpress do") {
		t.Errorf("A4 within the US: %v", m)
	}
	m = wantError(t, b.doT(t, "POST", "/api/v1/labels/create", eur, deBody(withField("labelSize", "a6"), withField("labelFormat", "zpl"))),
		http.StatusUnprocessableEntity, "invalid_field")
	if m["field"] != "labelSize" {
		t.Errorf("an A6 ZPL: %v", m)
	}
	// Without a size, every carrier serving the route quotes.
	var carriers []string
	for _, r := range quoteRates(t, b, eur, deBody()) {
		if !slices.Contains(carriers, r.Carrier) {
			carriers = append(carriers, r.Carrier)
		}
	}
	if !slices.Contains(carriers, "DHLParcelDE") || slices.Contains(carriers, "USPS") {
		t.Errorf("carriers quoting Berlin to Munich: %v", carriers)
	}
}

// euroCustoms is a declaration of goods leaving the EU customs union.
func euroCustoms() map[string]any {
	return map[string]any{"contentsType": "merchandise", "contentsExplanation": "T-shirts", "nonDeliveryOption": "return",
		"items": []any{map[string]any{"description": "Cotton T-shirt", "quantity": 2, "valueCents": 2500, "weightG": 400, "hsTariffNumber": "6109.10", "originCountry": "DE"}}}
}

// toAddress sets the recipient.
func toAddress(country, zip, city string) func(m map[string]any) {
	return func(m map[string]any) {
		m["toAddress"] = map[string]any{"name": "Recipient", "phone": "+34 928 123456", "email": "r@example.com",
			"street1": "Calle Mayor 1", "city": city, "zip": zip, "country": country}
	}
}

// Each of the sandbox's European carriers sells, tracks to delivered and
// refunds a German shop's label through the API, in euros.
func TestEuropeanSandboxCarriers(t *testing.T) {
	t.Parallel()
	scanned := setupLabels(t, withSandbox(20*time.Millisecond))
	unscanned := setupLabels(t, withSandbox(time.Hour))
	_, scannedEUR := scanned.accountIn("Kiezladen", "EUR")
	_, unscannedEUR := unscanned.accountIn("Kiezladen", "EUR")
	for _, carrier := range []string{"DHLParcelDE", "GLS", "DPD", "DHLExpress"} {
		t.Run(carrier, func(t *testing.T) {
			t.Parallel()
			s := createLabel(t, scanned, scannedEUR, deBody(withField("carrier", carrier)))
			s = waitForStatus(t, scanned, scannedEUR, s.ID, "purchased")
			if s.Carrier != carrier || s.Currency != "EUR" || s.CarrierCurrency != nil || s.TrackingNumber == nil {
				t.Fatalf("bought: %+v", s)
			}
			if s.Parcel["weightG"] != 2500.0 || s.Parcel["weightOz"] != nil {
				t.Errorf("the parcel is not echoed as sent: %v", s.Parcel)
			}
			waitForTracking(t, scanned, scannedEUR, s.ID, "delivered")

			r := createLabel(t, unscanned, unscannedEUR, deBody(withField("carrier", carrier)))
			waitForStatus(t, unscanned, unscannedEUR, r.ID, "purchased")
			wantStatus(t, unscanned.doT(t, "POST", "/api/v1/labels/"+r.ID+"/refund", unscannedEUR, nil), http.StatusAccepted)
			v := waitForStatus(t, unscanned, unscannedEUR, r.ID, "voided")
			if v.Currency != "EUR" || v.VoidedAt == nil {
				t.Errorf("refunded: %+v", v)
			}
		})
	}
}

// No declaration between two member states of the EU customs union; one to
// Switzerland, the UK and the Canary Islands (Spain, but outside the
// union's VAT territory, told by its postcode).
func TestCustomsWithinEurope(t *testing.T) {
	t.Parallel()
	b := setupLabels(t)
	_, eur := b.accountIn("Kiezladen", "EUR")
	for _, tc := range []struct {
		name    string
		to      func(m map[string]any)
		customs bool
	}{
		{"Paris", toAddress("FR", "75001", "Paris"), false},
		{"Madrid", toAddress("ES", "28001", "Madrid"), false},
		{"Zürich", toAddress("CH", "8001", "Zürich"), true},
		{"London", toAddress("GB", "SW1A 1AA", "London"), true},
		{"Las Palmas", toAddress("ES", "35001", "Las Palmas de Gran Canaria"), true},
	} {
		without := b.do("POST", "/api/v1/labels/quote", eur, deBody(tc.to))
		if !tc.customs {
			wantStatus(t, without, http.StatusOK)
			continue
		}
		m := wantError(t, without, http.StatusUnprocessableEntity, "missing_field")
		if m["field"] != "customs" {
			t.Errorf("%s without customs: %v", tc.name, m)
		}
		if rates := quoteRates(t, b, eur, deBody(tc.to, withField("customs", euroCustoms()))); len(rates) == 0 {
			t.Errorf("%s with customs: no rates", tc.name)
		}
	}
}

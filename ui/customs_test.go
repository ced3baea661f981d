package ui_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
)

// An international shipment's page links its customs invoice, which the
// page serves; a domestic one has neither.
func TestShipmentPageLinksTheCustomsInvoice(t *testing.T) {
	t.Parallel()
	b := setup(t)
	status, body := b.api("POST", "/labels/create", b.token, map[string]any{
		"fromAddress": map[string]any{"name": "Shop", "phone": "415 555 0100", "street1": "1 Market St", "city": "San Francisco", "state": "CA", "zip": "94105", "country": "US"},
		"toAddress":   map[string]any{"name": "Pierre Tremblay", "phone": "416 555 0123", "street1": "100 Queen St W", "city": "Toronto", "state": "ON", "zip": "M5H 2N2", "country": "CA"},
		"parcel":      map[string]any{"weightOz": 32},
		"customs": map[string]any{"contentsType": "merchandise", "items": []any{map[string]any{
			"description": "Cotton T-shirt", "quantity": 2, "valueCents": 2500, "weightOz": 6, "hsTariffNumber": "6109.10", "originCountry": "US"}}},
	})
	if status != http.StatusAccepted {
		t.Fatalf("POST /labels/create: %d %v", status, body)
	}
	intl := body["id"].(string)
	eventually(t, func() bool {
		_, sh := b.api("GET", "/labels/"+intl, b.token, nil)
		return sh["status"] == "purchased"
	})
	domestic := b.buyLabel(b.token)
	br := b.browser()
	br.signIn(b.email)

	must(t, "international page", br.get("/settings/shipments/"+intl), http.StatusOK, `href="/settings/shipments/`+intl+`/customs.pdf?download=1"`)
	doc := br.get("/settings/shipments/" + intl + "/customs.pdf?download=1")
	if doc.status != http.StatusOK || doc.header.Get("Content-Type") != "application/pdf" || !bytes.HasPrefix([]byte(doc.body), []byte("%PDF-")) {
		t.Fatalf("customs.pdf: %d %s %q", doc.status, doc.header.Get("Content-Type"), doc.body[:min(len(doc.body), 40)])
	}
	if d := doc.header.Get("Content-Disposition"); !strings.HasPrefix(d, "attachment") {
		t.Errorf("Content-Disposition %q, want an attachment", d)
	}
	if p := br.get("/settings/shipments/" + domestic); strings.Contains(p.body, "customs.pdf") {
		t.Error("a domestic shipment's page links a customs invoice")
	}
	if p := br.get("/settings/shipments/" + domestic + "/customs.pdf"); p.status != http.StatusNotFound {
		t.Errorf("a domestic shipment's customs.pdf: %d, want 404", p.status)
	}
}

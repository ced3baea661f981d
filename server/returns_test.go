package server_test

// Return labels through the HTTP API (issue 27): returnOf and isReturn on
// quote and create, the RETURN label, and paid on use.

import (
	"bytes"
	"context"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// returnDoc is a shipment with its return fields.
type returnDoc struct {
	shipmentDoc
	IsReturn *bool   `json:"isReturn"`
	ReturnOf *string `json:"returnOf"`
}

func createReturn(t *testing.T, b *bundle, token string, body any) returnDoc {
	t.Helper()
	r := b.doT(t, "POST", "/api/v1/labels/create", token, body)
	wantStatus(t, r, http.StatusAccepted)
	var s returnDoc
	r.Decode(t, &s)
	return s
}

func getReturn(t *testing.T, b *bundle, token, id string) returnDoc {
	t.Helper()
	r := b.doT(t, "GET", "/api/v1/labels/"+id, token, nil)
	wantStatus(t, r, http.StatusOK)
	var s returnDoc
	r.Decode(t, &s)
	return s
}

func labelPDF(t *testing.T, b *bundle, token, id string) []byte {
	t.Helper()
	r := b.doT(t, "GET", "/api/v1/labels/"+id+"/label.pdf", token, nil)
	wantStatus(t, r, http.StatusOK)
	return r.Body
}

// A return of a purchased label, in test mode: quoted, then bought from the
// original's carrier with the addresses swapped and the parcel; it prints
// RETURN, costs nothing until the customer's drop-off, and is charged then.
func TestReturnOfThroughTheAPI(t *testing.T) {
	t.Parallel()
	b := setupLabels(t, withSandbox(5*time.Millisecond))
	out := createLabel(t, b, b.token, labelBody(withField("serviceCategory", "express")))
	out = waitForStatus(t, b, b.token, out.ID, "purchased")

	if rates := quoteRates(t, b, b.token, map[string]any{"returnOf": out.ID}); len(rates) == 0 {
		t.Fatal("a return is quoted no rate")
	}
	ret := createReturn(t, b, b.token, map[string]any{"returnOf": out.ID})
	if ret.IsReturn == nil || !*ret.IsReturn || ret.ReturnOf == nil || *ret.ReturnOf != out.ID {
		t.Fatalf("return: isReturn %v returnOf %v", ret.IsReturn, ret.ReturnOf)
	}
	if ret.ChargeAmountCents != 0 || ret.BalanceAppliedCents != 0 || ret.CarrierRateCents == 0 || ret.CustomerPriceCents == 0 {
		t.Errorf("created return: charge %d, balance applied %d, rate %d, price %d: want no charge and the price shown",
			ret.ChargeAmountCents, ret.BalanceAppliedCents, ret.CarrierRateCents, ret.CustomerPriceCents)
	}
	if ret.Carrier != out.Carrier {
		t.Errorf("return carrier %s, want the original's %s", ret.Carrier, out.Carrier)
	}
	want := []map[string]any{out.ToAddress, out.FromAddress, out.Parcel}
	if d := cmp.Diff(want, []map[string]any{ret.FromAddress, ret.ToAddress, ret.Parcel}); d != "" {
		t.Errorf("return from, to, parcel (-want +got):\n%s", d)
	}

	ret.shipmentDoc = waitForTracking(t, b, b.token, ret.ID, "delivered")
	if ret.ChargeAmountCents != ret.CustomerPriceCents {
		t.Errorf("used return: charge %d, want the price %d", ret.ChargeAmountCents, ret.CustomerPriceCents)
	}
	if !bytes.Contains(labelPDF(t, b, b.token, ret.ID), []byte("(RETURN)")) {
		t.Error("the return label does not say RETURN")
	}
	if bytes.Contains(labelPDF(t, b, b.token, out.ID), []byte("(RETURN)")) {
		t.Error("the outbound label says RETURN")
	}
	// Every shipment says whether it is a return.
	if o := getReturn(t, b, b.token, out.ID); o.IsReturn == nil || *o.IsReturn || o.ReturnOf != nil {
		t.Errorf("outbound: isReturn %v returnOf %v, want false and none", o.IsReturn, o.ReturnOf)
	}
	r := b.doT(t, "GET", "/api/v1/labels", b.token, nil)
	wantStatus(t, r, http.StatusOK)
	var list struct{ Data []returnDoc }
	r.Decode(t, &list)
	got := map[string]bool{}
	for _, s := range list.Data {
		got[s.ID] = s.IsReturn != nil && *s.IsReturn
	}
	if d := cmp.Diff(map[string]bool{out.ID: false, ret.ID: true}, got); d != "" {
		t.Errorf("list isReturn (-want +got):\n%s", d)
	}

	// The errors of returnOf.
	wantError(t, b.do("POST", "/api/v1/labels/create", b.token, map[string]any{"returnOf": "shp_missing"}), http.StatusNotFound, "not_found")
	wantError(t, b.do("POST", "/api/v1/labels/quote", b.token, map[string]any{"returnOf": "shp_missing"}), http.StatusNotFound, "not_found")
	m := wantError(t, b.do("POST", "/api/v1/labels/create", b.token, map[string]any{"returnOf": ret.ID}), http.StatusUnprocessableEntity, "invalid_field")
	if m["field"] != "returnOf" {
		t.Errorf("return of a return: field %v, want returnOf", m["field"])
	}
	m = wantError(t, b.do("POST", "/api/v1/labels/create", b.token, map[string]any{"isReturn": true, "parcel": map[string]any{"weightOz": 16}}),
		http.StatusUnprocessableEntity, "invalid_request")
	if issues, _ := m["issues"].([]any); len(issues) != 2 {
		t.Errorf("isReturn without addresses: issues %v, want fromAddress and toAddress", m["issues"])
	}
	// Without returnOf a body still needs its parts, as before.
	body := labelBody()
	delete(body, "toAddress")
	m = wantError(t, b.do("POST", "/api/v1/labels/create", b.token, body), http.StatusUnprocessableEntity, "missing_field")
	if m["field"] != "toAddress" {
		t.Errorf("create without toAddress: field %v", m["field"])
	}
}

// A return label never used costs nothing: its refund credits nothing, and
// a label not yet purchased cannot be returned.
func TestUnusedReturnThroughTheAPI(t *testing.T) {
	t.Parallel()
	b := setupLabels(t, withSandbox(time.Hour)) // no scan comes: the labels stay unused
	out := createLabel(t, b, b.token, labelBody())
	out = waitForStatus(t, b, b.token, out.ID, "purchased")
	ret := createReturn(t, b, b.token, map[string]any{"returnOf": out.ID, "parcel": map[string]any{"weightOz": 8}})
	if ret.Parcel["weightOz"] != float64(8) {
		t.Errorf("return parcel %v, want the one given", ret.Parcel)
	}
	ret.shipmentDoc = waitForStatus(t, b, b.token, ret.ID, "purchased")
	if ret.ChargeAmountCents != 0 {
		t.Errorf("purchased, unused return: charge %d", ret.ChargeAmountCents)
	}
	wantStatus(t, b.do("POST", "/api/v1/labels/"+ret.ID+"/refund", b.token, nil), http.StatusAccepted)
	waitForStatus(t, b, b.token, ret.ID, "voided")
	balance, err := b.store.Balance(context.Background(), b.account.ID, "test")
	if err != nil || balance != 0 {
		t.Errorf("balance %d (%v) after an unused return's refund, want 0", balance, err)
	}
	// A return label cannot be returned, nor can a voided label.
	wantError(t, b.do("POST", "/api/v1/labels/create", b.token, map[string]any{"returnOf": ret.ID}), http.StatusUnprocessableEntity, "invalid_field")
	wantStatus(t, b.do("POST", "/api/v1/labels/"+out.ID+"/refund", b.token, nil), http.StatusAccepted)
	waitForStatus(t, b, b.token, out.ID, "voided")
	wantError(t, b.do("POST", "/api/v1/labels/create", b.token, map[string]any{"returnOf": out.ID}), http.StatusConflict, "not_purchased")
}

// Live mode: a return is quoted by the carriers' return services (UPS,
// FedEx, USPS's domestic return-label API), bought as a return from the
// original's carrier (FedEx) or the one named (UPS, USPS), and charged to the
// card when the carrier first reports it used, once.
func TestLiveReturnIsChargedAtFirstUse(t *testing.T) {
	t.Parallel()
	b, f, live := setupLive(t)
	out := createLabel(t, b, live, liveBody(withField("carrier", "FedEx"), withField("service", "Ground")))
	out = waitForStatus(t, b, live, out.ID, "purchased")

	quoted := map[string]bool{}
	for _, r := range quoteRates(t, b, live, map[string]any{"returnOf": out.ID}) {
		quoted[r.Carrier] = true
	}
	if d := cmp.Diff(map[string]bool{"UPS": true, "FedEx": true, "USPS": true}, quoted); d != "" {
		t.Errorf("carriers quoting a return (-want +got):\n%s", d)
	}
	ret := createReturn(t, b, live, map[string]any{"returnOf": out.ID})
	named := createReturn(t, b, live, map[string]any{"returnOf": out.ID, "carrier": "UPS", "service": "Ground"})
	postal := createReturn(t, b, live, map[string]any{"returnOf": out.ID, "carrier": "USPS", "service": "GroundAdvantage"})
	if ret.Carrier != "FedEx" || ret.ChargeAmountCents != 0 || named.Carrier != "UPS" || named.ChargeAmountCents != 0 ||
		postal.Carrier != "USPS" || postal.ChargeAmountCents != 0 {
		t.Fatalf("live returns: %s charged %d, %s charged %d, %s charged %d; want FedEx (the original's), UPS and USPS, all 0",
			ret.Carrier, ret.ChargeAmountCents, named.Carrier, named.ChargeAmountCents, postal.Carrier, postal.ChargeAmountCents)
	}
	entries := func() []int64 {
		t.Helper()
		all, err := b.store.LedgerEntries(context.Background(), b.account.ID, "live")
		if err != nil {
			t.Fatal(err)
		}
		var amounts []int64
		for _, e := range all {
			if e.ShipmentID == ret.ID || e.ShipmentID == named.ID || e.ShipmentID == postal.ID {
				amounts = append(amounts, e.AmountCents)
			}
		}
		return amounts
	}
	for _, r := range []*returnDoc{&ret, &named, &postal} {
		r.shipmentDoc = waitForStatus(t, b, live, r.ID, "purchased")
	}
	if !f.fedex.IsReturn(ret.str(ret.TrackingNumber)) || !f.ups.IsReturn(named.str(named.TrackingNumber)) ||
		!f.usps.IsReturn(postal.str(postal.TrackingNumber)) {
		t.Error("a carrier sold the label as an outbound shipment, not a return")
	}
	for _, r := range []*returnDoc{&ret, &named, &postal} {
		r.shipmentDoc = waitForTracking(t, b, live, r.ID, "delivered")
		if r.ChargeAmountCents != r.CustomerPriceCents {
			t.Errorf("used live return %s: charge %d, want the price %d", r.Carrier, r.ChargeAmountCents, r.CustomerPriceCents)
		}
	}
	if d := cmp.Diff([]int64{ret.CustomerPriceCents, named.CustomerPriceCents, postal.CustomerPriceCents}, entries(),
		cmpopts.SortSlices(func(a, b int64) bool { return a < b })); d != "" {
		t.Errorf("card charges of the live returns (-want +got):\n%s", d)
	}
}

// Test mode refuses what live mode would: USPS makes domestic return labels
// only, so an international return is quoted by UPS and FedEx (and the
// other carriers of the sandbox that make them), not USPS.
func TestInternationalReturnLeavesOutUSPS(t *testing.T) {
	t.Parallel()
	b := setupLabels(t)
	carriersOf := func(body map[string]any) map[string]bool {
		t.Helper()
		got := map[string]bool{}
		for _, r := range quoteRates(t, b, b.token, body) {
			if slices.Contains([]string{"UPS", "FedEx", "USPS"}, r.Carrier) {
				got[r.Carrier] = true
			}
		}
		return got
	}
	if d := cmp.Diff(map[string]bool{"UPS": true, "FedEx": true}, carriersOf(labelBody(withInternational(true), withField("isReturn", true)))); d != "" {
		t.Errorf("carriers quoting an international return (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]bool{"UPS": true, "FedEx": true, "USPS": true}, carriersOf(labelBody(withField("isReturn", true)))); d != "" {
		t.Errorf("carriers quoting a domestic return (-want +got):\n%s", d)
	}
}

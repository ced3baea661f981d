package server_test

// Quick quotes for checkout pages (issue 43): a quote takes addresses of
// just a postal code and a country (and a US state); every rate says in
// missingFields what its purchase still needs, and a create refuses the
// same body with 422 missing_field as before.

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers/fedex/fedexfake"
	"github.com/shipd-dev/shipd/carriers/ups/upsfake"
	"github.com/shipd-dev/shipd/carriers/usps/uspsfake"
)

// quickBody is what a checkout page knows: where the parcel goes from and
// to, by postal code (labelBody's), and the parcel.
func quickBody() map[string]any {
	return map[string]any{
		"fromAddress": map[string]any{"state": "NY", "zip": "10118", "country": "US"},
		"toAddress":   map[string]any{"state": "DC", "zip": "20500", "country": "US"},
		"parcel":      map[string]any{"weightOz": 32, "lengthIn": 10, "widthIn": 8, "heightIn": 4},
	}
}

// quotedRate is a rate with missingFields as sent: nil when absent.
type quotedRate struct {
	Carrier, Service   string
	CustomerPriceCents int64
	MissingFields      *[]string
}

type quickQuoteDoc struct {
	Rates         []quotedRate
	CarrierErrors []carrierErrorDoc
}

func quickQuote(t *testing.T, b *bundle, token string, body any) quickQuoteDoc {
	t.Helper()
	r := b.doT(t, "POST", "/api/v1/labels/quote", token, body)
	wantStatus(t, r, http.StatusOK)
	var q quickQuoteDoc
	r.Decode(t, &q)
	if len(q.Rates) == 0 {
		t.Fatalf("no rates: %s", r.Body)
	}
	for _, rate := range q.Rates {
		if rate.MissingFields == nil {
			t.Fatalf("%s %s has no missingFields array: %s", rate.Carrier, rate.Service, r.Body)
		}
	}
	return q
}

// missingByCarrier is each carrier's missingFields (the same for all its
// services in these shipments), checking that they are.
func missingByCarrier(t *testing.T, q quickQuoteDoc) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, r := range q.Rates {
		got := *r.MissingFields
		if prev, ok := out[r.Carrier]; ok && !slices.Equal(prev, got) {
			t.Errorf("%s's services need different fields: %v and %v", r.Carrier, prev, got)
		}
		out[r.Carrier] = got
	}
	return out
}

var streetsAndCities = []string{"fromAddress.street1", "fromAddress.city", "toAddress.street1", "toAddress.city"}

func TestQuickQuote(t *testing.T) {
	t.Parallel()
	b := setupLabels(t)

	// Postal codes only: every sandbox carrier prices it, cheapest first,
	// and every rate needs the streets and cities, then its carrier's own
	// fields (names; FedEx phones too).
	q := quickQuote(t, b, b.token, quickBody())
	if !slices.IsSortedFunc(q.Rates, func(a, b quotedRate) int { return int(a.CustomerPriceCents - b.CustomerPriceCents) }) {
		t.Errorf("rates not cheapest first: %+v", q.Rates)
	}
	if len(q.CarrierErrors) != 0 {
		t.Errorf("carrierErrors %+v", q.CarrierErrors)
	}
	with := func(fields ...string) []string { return append(slices.Clone(streetsAndCities), fields...) }
	want := map[string][]string{
		"USPS":  with("fromAddress.name", "toAddress.name"),
		"UPS":   with("fromAddress.name", "toAddress.name"),
		"FedEx": with("fromAddress.name", "fromAddress.phone", "toAddress.name", "toAddress.phone"),
	}
	if d := cmp.Diff(want, missingByCarrier(t, q)); d != "" {
		t.Errorf("missingFields of a quick quote (-want +got):\n%s", d)
	}

	// The same prices as the full shipment's: a rate depends on where the
	// parcel goes, not on the street.
	full := labelBody(withField("parcel", quickBody()["parcel"]))
	prices := func(rs []quotedRate) map[string]int64 {
		out := map[string]int64{}
		for _, r := range rs {
			out[r.Carrier+" "+r.Service] = r.CustomerPriceCents
		}
		return out
	}
	fq := quickQuote(t, b, b.token, full)
	if d := cmp.Diff(prices(fq.Rates), prices(q.Rates)); d != "" {
		t.Errorf("quick quote prices (-full +quick):\n%s", d)
	}
	// The full shipment can be bought at every rate: [] for each.
	for c, fields := range missingByCarrier(t, fq) {
		if len(fields) != 0 {
			t.Errorf("%s needs %v of a complete shipment", c, fields)
		}
	}

	// A create of the quick quote's body is refused as before, by the
	// schema, before any carrier is asked: its four missing fields listed
	// (invalid_request with issues, as any body with several problems), one
	// missing field as missing_field naming it; nothing is stored.
	m := wantError(t, b.doT(t, "POST", "/api/v1/labels/create", b.token, quickBody()), http.StatusUnprocessableEntity, "invalid_request")
	var paths []string
	for _, is := range m["issues"].([]any) {
		paths = append(paths, is.(map[string]any)["path"].(string))
	}
	slices.Sort(paths)
	if d := cmp.Diff([]string{"fromAddress.city", "fromAddress.street1", "toAddress.city", "toAddress.street1"}, paths); d != "" {
		t.Errorf("create of a quick quote: issues (-want +got):\n%s", d)
	}
	noStreet := labelBody(func(m map[string]any) { delete(m["toAddress"].(map[string]any), "street1") })
	if q := quickQuote(t, b, b.token, noStreet); !slices.Contains(*q.Rates[0].MissingFields, "toAddress.street1") {
		t.Errorf("a quote without the recipient's street: %+v", q.Rates[0])
	}
	m = wantError(t, b.doT(t, "POST", "/api/v1/labels/create", b.token, noStreet), http.StatusUnprocessableEntity, "missing_field")
	if m["field"] != "toAddress.street1" {
		t.Errorf("create without the recipient's street: %v", m)
	}
	// A batch too.
	r := b.doT(t, "POST", "/api/v1/batches", b.token, batchBody(quickBody()))
	wantStatus(t, r, http.StatusUnprocessableEntity)
	if !strings.Contains(string(r.Body), "street1") {
		t.Errorf("batch of a quick quote: %s", r.Body)
	}
	var list struct{ Data []map[string]any }
	b.doT(t, "GET", "/api/v1/labels", b.token, nil).Decode(t, &list)
	if len(list.Data) != 0 {
		t.Errorf("labels stored: %v", list.Data)
	}

	// The carrier's requirements no longer drop its rates from a quote: a
	// complete shipment without phone numbers gets FedEx's rates, needing
	// the phones, and carrierErrors says nothing; a create naming FedEx is
	// refused as before.
	q = quickQuote(t, b, b.token, labelBody(withoutPhones))
	if d := cmp.Diff(map[string][]string{"USPS": {}, "UPS": {}, "FedEx": {"fromAddress.phone", "toAddress.phone"}}, missingByCarrier(t, q)); d != "" {
		t.Errorf("missingFields without phones (-want +got):\n%s", d)
	}
	if len(q.CarrierErrors) != 0 {
		t.Errorf("carrierErrors without phones: %+v", q.CarrierErrors)
	}
	m = wantError(t, b.doT(t, "POST", "/api/v1/labels/create", b.token, labelBody(withoutPhones, withField("carrier", "FedEx"))),
		http.StatusUnprocessableEntity, "missing_field")
	if m["field"] != "fromAddress.phone" {
		t.Errorf("create naming FedEx without phones: %v", m)
	}
	// Nor when no carrier could sell it: a quote without the recipient's
	// name is answered (it was 422 missing_field), each rate needing it.
	q = quickQuote(t, b, b.token, labelBody(func(m map[string]any) { delete(m["toAddress"].(map[string]any), "name") }))
	for c, fields := range missingByCarrier(t, q) {
		if !slices.Contains(fields, "toAddress.name") {
			t.Errorf("%s: missingFields %v without the recipient's name", c, fields)
		}
	}

	// The address rules that do not depend on the street still apply.
	for _, tc := range []struct {
		name  string
		mod   func(m map[string]any)
		field string
	}{
		{"a ZIP that is none", func(m map[string]any) { m["toAddress"].(map[string]any)["zip"] = "ABCDE" }, "toAddress.zip"},
		{"a US address without its state", func(m map[string]any) { delete(m["fromAddress"].(map[string]any), "state") }, "fromAddress.state"},
	} {
		body := quickBody()
		tc.mod(body)
		if m := wantError(t, b.doT(t, "POST", "/api/v1/labels/quote", b.token, body), http.StatusUnprocessableEntity, "invalid_field"); m["field"] != tc.field {
			t.Errorf("%s: field %v, want %s", tc.name, m["field"], tc.field)
		}
	}
	body := quickBody()
	delete(body["toAddress"].(map[string]any), "zip")
	if m := wantError(t, b.doT(t, "POST", "/api/v1/labels/quote", b.token, body), http.StatusUnprocessableEntity, "missing_field"); m["field"] != "toAddress.zip" {
		t.Errorf("a quick quote without a postal code: %v", m)
	}

	// From Germany, in grams: the European carriers price it too.
	_, eur := b.accountIn("Kiezladen", "EUR")
	q = quickQuote(t, b, eur, map[string]any{
		"fromAddress": map[string]any{"zip": "10117", "country": "DE"},
		"toAddress":   map[string]any{"zip": "80331", "country": "DE"},
		"parcel":      map[string]any{"weightG": 2500},
	})
	carriers := map[string]bool{}
	for _, r := range q.Rates {
		carriers[r.Carrier] = true
		if !slices.Equal((*r.MissingFields)[:4], streetsAndCities) {
			t.Errorf("%s %s: missingFields %v", r.Carrier, r.Service, *r.MissingFields)
		}
	}
	for _, c := range []string{"DHLParcelDE", "GLS", "DPD"} {
		if !carriers[c] {
			t.Errorf("no rate of %s for a quick quote within Germany: %+v", c, q.Rates)
		}
	}
}

// Live mode: UPS, FedEx and USPS rate a quick quote (their fakes check the
// requests against the carriers' documents), each rate needing the streets.
func TestLiveQuickQuote(t *testing.T) {
	t.Parallel()
	b, f, live := setupLive(t)
	q := quickQuote(t, b, live, quickBody())
	if len(q.CarrierErrors) != 0 {
		t.Errorf("carrierErrors of a quick quote: %+v", q.CarrierErrors)
	}
	got := map[string]bool{}
	for _, r := range q.Rates {
		got[r.Carrier] = true
		if !slices.Equal((*r.MissingFields)[:4], streetsAndCities) {
			t.Errorf("%s %s: missingFields %v", r.Carrier, r.Service, *r.MissingFields)
		}
	}
	if d := cmp.Diff(map[string]bool{"UPS": true, "FedEx": true, "USPS": true}, got); d != "" {
		t.Errorf("carriers quoting (-want +got):\n%s", d)
	}
	if f.ups.Requests(upsfake.OpRate) == 0 || f.fedex.Requests(fedexfake.OpRate) == 0 || f.usps.Requests(uspsfake.OpRates) == 0 {
		t.Error("a carrier was not asked")
	}
	// Nothing was bought.
	if n := f.fedex.Requests(fedexfake.OpShip) + f.ups.Requests(upsfake.OpShip) + f.usps.Requests(uspsfake.OpLabel); n != 0 {
		t.Errorf("%d purchases reached the carriers", n)
	}
}

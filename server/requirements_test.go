package server_test

// The carriers' required fields (carriers/requirements.go) are checked when
// the rate is chosen, here in live mode against the three fake carriers (in
// test mode too: sandbox_strict_test.go): a create
// that breaks them is refused with 422 missing_field before anything is
// stored or charged, and a quote offers the rate with the fields it needs
// (missingFields).

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers/fedex/fedexfake"
	"github.com/shipd-dev/shipd/carriers/ups/upsfake"
	"github.com/shipd-dev/shipd/carriers/usps/uspsfake"
)

// withoutPhones removes both phone numbers.
func withoutPhones(m map[string]any) {
	delete(m["fromAddress"].(map[string]any), "phone")
	delete(m["toAddress"].(map[string]any), "phone")
}

// quoteDoc is a quote with its carrierErrors.
type quoteDoc struct {
	Rates         []quoteRateDoc
	CarrierErrors []struct{ Carrier, Kind, Code, Message string }
}

func TestLiveCreateRefusesWhatTheCarrierRequires(t *testing.T) {
	t.Parallel()
	b, f, live := setupLive(t)
	ctx := context.Background()

	// nothingStored checks that no shipment, ledger entry or carrier purchase exists.
	nothingStored := func(t *testing.T) {
		t.Helper()
		var list struct{ Data []map[string]any }
		b.doT(t, "GET", "/api/v1/labels", live, nil).Decode(t, &list)
		if len(list.Data) != 0 {
			t.Fatalf("labels stored: %v", list.Data)
		}
		balance, err := b.store.Balance(ctx, b.account.ID, "live")
		if err != nil || balance != 0 {
			t.Fatalf("balance %d (%v), want 0", balance, err)
		}
		entries, err := b.store.LedgerEntries(ctx, b.account.ID, "live")
		if err != nil || len(entries) != 0 {
			t.Fatalf("ledger entries %+v (%v), want none", entries, err)
		}
		if n := f.fedex.Requests(fedexfake.OpShip) + f.ups.Requests(upsfake.OpShip) + f.usps.Requests(uspsfake.OpLabel); n != 0 {
			t.Fatalf("%d purchases reached the carriers", n)
		}
	}

	cases := []struct {
		name  string
		body  map[string]any
		field string
		rule  string // a part of the error message: the carrier's rule
	}{
		{"FedEx without phone numbers", liveBody(withoutPhones, withField("carrier", "FedEx"), withField("service", "Ground")),
			"fromAddress.phone", "FedEx requires the sender's phone number"},
		{"FedEx without the recipient's phone", liveBody(withField("carrier", "FedEx"), func(m map[string]any) {
			delete(m["toAddress"].(map[string]any), "phone")
		}), "toAddress.phone", "FedEx requires the recipient's phone number"},
		{"FedEx with a 7-digit US phone", liveBody(withField("carrier", "FedEx"), func(m map[string]any) {
			m["fromAddress"].(map[string]any)["phone"] = "555-0100"
		}), "fromAddress.phone", "10 digits"},
		{"UPS without the recipient's name", liveBody(withField("carrier", "UPS"), withField("service", "Ground"), func(m map[string]any) {
			delete(m["toAddress"].(map[string]any), "name")
		}), "toAddress.name", "UPS requires the recipient's name or company"},
		{"cheapest overall, no sender name", liveBody(func(m map[string]any) {
			delete(m["fromAddress"].(map[string]any), "name")
		}), "fromAddress.name", "requires the sender's name or company"},
	}
	for _, c := range cases {
		m := wantError(t, b.do("POST", "/api/v1/labels/create", live, c.body), http.StatusUnprocessableEntity, "missing_field")
		if m["field"] != c.field || !strings.Contains(m["error"].(string), c.rule) {
			t.Errorf("%s: field %v, error %q; want field %s and the rule %q", c.name, m["field"], m["error"], c.field, c.rule)
		}
	}
	nothingStored(t)

	// Without a carrier named, the cheapest rate the shipment can be bought
	// at is bought: not FedEx's, whose rules it breaks.
	quote := quoteOf(t, b, live, liveBody(withoutPhones))
	sh := createLabel(t, b, live, liveBody(withoutPhones))
	if cheapest := cheapestBuyable(t, quote.Rates); sh.Carrier == "FedEx" || sh.Carrier != cheapest.Carrier || sh.Service != cheapest.Service {
		t.Fatalf("bought %s %s, want the quote's cheapest that can be bought %+v", sh.Carrier, sh.Service, cheapest)
	}
	if sh = waitForStatus(t, b, live, sh.ID, "purchased"); sh.Carrier == "FedEx" {
		t.Fatalf("purchased %+v", sh)
	}
}

func quoteOf(t *testing.T, b *bundle, token string, body any) quoteDoc {
	t.Helper()
	r := b.doT(t, "POST", "/api/v1/labels/quote", token, body)
	wantStatus(t, r, http.StatusOK)
	var q quoteDoc
	r.Decode(t, &q)
	return q
}

func TestLiveQuoteSaysWhatEachRateNeeds(t *testing.T) {
	t.Parallel()
	b, f, live := setupLive(t)

	// Without phone numbers FedEx cannot sell the label, nor UPS its Next
	// Day Air Early: those rates are offered needing the phones
	// (missingFields), the others need nothing, and no carrier failed.
	missing := func(q quoteDoc) map[string][]string {
		out := map[string][]string{}
		for _, r := range q.Rates {
			out[r.Carrier+" "+r.Service] = r.MissingFields
		}
		return out
	}
	q := quoteOf(t, b, live, liveBody(withoutPhones))
	got := missing(q)
	for name, fields := range got {
		want := []string{}
		switch {
		case strings.HasPrefix(name, "FedEx "):
			want = []string{"fromAddress.phone", "toAddress.phone"}
		case name == "UPS NextDayAirEarly":
			want = []string{"toAddress.phone"}
		}
		if d := cmp.Diff(want, fields); d != "" {
			t.Errorf("%s without phones: missingFields (-want +got):\n%s", name, d)
		}
	}
	for _, name := range []string{"UPS Ground", "USPS Priority", "FedEx Ground", "UPS NextDayAirEarly"} {
		if _, ok := got[name]; !ok {
			t.Errorf("no rate of %s without phones: %v", name, got)
		}
	}
	if len(q.CarrierErrors) != 0 {
		t.Errorf("carrierErrors %+v, want none: every carrier quoted", q.CarrierErrors)
	}
	if f.fedex.Requests(fedexfake.OpRate) == 0 {
		t.Error("FedEx was not asked for rates") // the rule is applied to its answer, not instead of asking
	}

	// With them, every rate can be bought.
	for name, fields := range missing(quoteOf(t, b, live, liveBody())) {
		if len(fields) != 0 {
			t.Errorf("%s with phones needs %v", name, fields)
		}
	}

	// An international shipment needs UPS's contact names and phones too.
	intl := liveBody(withInternational(true), withoutPhones)
	for name, fields := range missing(quoteOf(t, b, live, intl)) {
		if carrier, _, _ := strings.Cut(name, " "); (carrier == "USPS") != (len(fields) == 0) {
			t.Errorf("%s of an international shipment without phones needs %v", name, fields)
		}
	}

	// When no carrier can sell the label, the quote still answers, every
	// rate needing the missing field; a create names it.
	noName := liveBody(func(m map[string]any) {
		delete(m["toAddress"].(map[string]any), "name")
	})
	for name, fields := range missing(quoteOf(t, b, live, noName)) {
		if !slices.Contains(fields, "toAddress.name") {
			t.Errorf("%s without the recipient's name needs %v", name, fields)
		}
	}
	m := wantError(t, b.do("POST", "/api/v1/labels/create", live, noName), http.StatusUnprocessableEntity, "missing_field")
	if m["field"] != "toAddress.name" {
		t.Errorf("field %v, want toAddress.name", m["field"])
	}
}

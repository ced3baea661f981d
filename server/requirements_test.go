package server_test

// The carriers' required fields (carriers/requirements.go) are checked when
// the rate is chosen, here in live mode against the three fake carriers (in
// test mode too: sandbox_strict_test.go): a create
// that breaks them is refused with 422 missing_field before anything is
// stored or charged, and a quote leaves the carrier out with the reason.

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
	Rates         []rateDoc
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
	if sh.Carrier == "FedEx" || sh.Carrier != quote.Rates[0].Carrier || sh.Service != quote.Rates[0].Service {
		t.Fatalf("bought %s %s, want the quote's cheapest %+v", sh.Carrier, sh.Service, quote.Rates[0])
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

func TestLiveQuoteLeavesOutWhatCannotBeBought(t *testing.T) {
	t.Parallel()
	b, f, live := setupLive(t)

	// Without phone numbers FedEx cannot sell the label, nor UPS its Next
	// Day Air Early: those rates are left out and carrierErrors says why,
	// once for each carrier.
	q := quoteOf(t, b, live, liveBody(withoutPhones))
	var services []string
	for _, r := range q.Rates {
		if r.Carrier == "FedEx" || r.Carrier == "UPS" && r.Service == "NextDayAirEarly" {
			t.Errorf("rate %+v without phones", r)
		}
		services = append(services, r.Carrier+" "+r.Service)
	}
	if !slices.Contains(services, "UPS Ground") || !slices.Contains(services, "USPS Priority") {
		t.Errorf("rates without phones: %v", services)
	}
	if len(q.CarrierErrors) != 2 {
		t.Fatalf("carrierErrors %+v, want UPS's and FedEx's", q.CarrierErrors)
	}
	for _, e := range q.CarrierErrors {
		want := []string{"FedEx cannot be bought", "fromAddress.phone", "toAddress.phone"}
		if e.Carrier == "UPS" {
			want = []string{"UPS NextDayAirEarly cannot be bought", "Next Day Air Early (toAddress.phone)"}
		}
		for _, w := range want {
			if e.Kind != "rejected" || e.Code != "missing_field" || !strings.Contains(e.Message, w) {
				t.Errorf("%s's carrierError %+v, want kind rejected, code missing_field and %q", e.Carrier, e, w)
			}
		}
	}
	if f.fedex.Requests(fedexfake.OpRate) == 0 {
		t.Error("FedEx was not asked for rates") // the rule is applied to its answer, not instead of asking
	}

	// With them, every carrier quotes and nothing is reported.
	q = quoteOf(t, b, live, liveBody())
	if len(q.CarrierErrors) != 0 {
		t.Errorf("carrierErrors with phones: %+v", q.CarrierErrors)
	}

	// An international shipment needs UPS's contact names and phones too.
	intl := liveBody(withInternational(true), withoutPhones)
	q = quoteOf(t, b, live, intl)
	for _, r := range q.Rates {
		if r.Carrier != "USPS" {
			t.Errorf("rate %+v for an international shipment without phones", r)
		}
	}
	reported := map[string]bool{}
	for _, e := range q.CarrierErrors {
		reported[e.Carrier] = true
	}
	if diff := cmp.Diff(map[string]bool{"UPS": true, "FedEx": true}, reported); diff != "" {
		t.Errorf("carrierErrors (-want +got):\n%s", diff)
	}

	// When no carrier can sell the label, the quote names the missing field.
	m := wantError(t, b.do("POST", "/api/v1/labels/quote", live, liveBody(func(m map[string]any) {
		delete(m["toAddress"].(map[string]any), "name")
	})), http.StatusUnprocessableEntity, "missing_field")
	if m["field"] != "toAddress.name" {
		t.Errorf("field %v, want toAddress.name", m["field"])
	}
}

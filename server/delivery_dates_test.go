package server_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/internal/fakeclock"
	"github.com/shipd-dev/shipd/store/storetest"
)

type datedRate struct {
	Carrier               string `json:"carrier"`
	Service               string `json:"service"`
	CustomerPriceCents    int64  `json:"customerPriceCents"`
	EstimatedDays         int    `json:"estimatedDays"`
	EstimatedDeliveryDate string `json:"estimatedDeliveryDate"`
	Guaranteed            *bool  `json:"guaranteed"`
}

// setupAt is setup with the clock at now.
func setupAt(t *testing.T, now time.Time) *bundle {
	t.Helper()
	b := start(t, storetest.NewDatabase(t), t.TempDir(), fakeclock.New(now))
	b.account = b.newAccount("Acme", true)
	b.tokenID, b.token = b.newToken(b.account.ID, "test", allScopes...)
	return b
}

// Thursday 2026-07-02: Independence Day is observed on Friday the 3rd, so
// next-day services arrive Monday the 6th.
var datesNow = time.Date(2026, 7, 2, 15, 0, 0, 0, time.UTC)

func datedQuote(t *testing.T, b *bundle, body map[string]any) []datedRate {
	t.Helper()
	r := b.doT(t, http.MethodPost, "/api/v1/labels/quote", b.token, body)
	wantStatus(t, r, http.StatusOK)
	var q struct {
		Rates []datedRate `json:"rates"`
	}
	r.Decode(t, &q)
	return q.Rates
}

func TestQuoteShowsDeliveryDates(t *testing.T) {
	t.Parallel()
	b := setupAt(t, datesNow)
	rates := datedQuote(t, b, quoteBody(nil))
	guaranteed := map[string]bool{}
	for _, r := range rates {
		if r.EstimatedDeliveryDate == "" || r.Guaranteed == nil {
			t.Fatalf("%s %s has no estimatedDeliveryDate or guaranteed: %+v", r.Carrier, r.Service, r)
		}
		if *r.Guaranteed {
			guaranteed[r.Carrier+" "+r.Service] = true
		}
		if r.Carrier+" "+r.Service == "UPS NextDayAir" && r.EstimatedDeliveryDate != "2026-07-06" {
			t.Errorf("UPS NextDayAir shipped Thursday 2026-07-02 arrives %s, want Monday 2026-07-06", r.EstimatedDeliveryDate)
		}
	}
	want := map[string]bool{"USPS PriorityExpress": true, "UPS 2ndDayAir": true, "UPS NextDayAir": true, "FedEx 2Day": true, "FedEx StandardOvernight": true}
	if diff := cmp.Diff(want, guaranteed); diff != "" {
		t.Errorf("guaranteed services (-want +got):\n%s", diff)
	}
}

func TestCreateWithDeliverBy(t *testing.T) {
	t.Parallel()
	b := setupAt(t, datesNow)
	all := datedQuote(t, b, quoteBody(nil))
	by := datedQuote(t, b, quoteBody(func(m map[string]any) { m["deliverBy"] = "2026-07-07" }))
	if len(by) == 0 || len(by) >= len(all) {
		t.Fatalf("quote by 2026-07-07 has %d of %d rates", len(by), len(all))
	}
	for _, r := range by {
		if r.EstimatedDeliveryDate > "2026-07-07" {
			t.Errorf("quote by 2026-07-07 lists %s %s arriving %s", r.Carrier, r.Service, r.EstimatedDeliveryDate)
		}
	}
	if by[0].CustomerPriceCents <= all[0].CustomerPriceCents {
		t.Fatalf("the cheapest rate (%+v) already arrives by then; the test proves nothing", all[0])
	}
	r := b.doT(t, http.MethodPost, "/api/v1/labels/create", b.token, quoteBody(func(m map[string]any) { m["deliverBy"] = "2026-07-07" }))
	wantStatus(t, r, http.StatusAccepted)
	var sh struct {
		ID, Carrier, Service  string
		EstimatedDeliveryDate string `json:"estimatedDeliveryDate"`
		Guaranteed            *bool  `json:"guaranteed"`
	}
	r.Decode(t, &sh)
	if sh.Carrier != by[0].Carrier || sh.Service != by[0].Service {
		t.Errorf("create by 2026-07-07 bought %s %s, want the cheapest arriving by then: %s %s", sh.Carrier, sh.Service, by[0].Carrier, by[0].Service)
	}
	// The label reports the delivery date of the rate it was bought at,
	// on create and when read again.
	var again struct {
		EstimatedDeliveryDate string `json:"estimatedDeliveryDate"`
		Guaranteed            *bool  `json:"guaranteed"`
	}
	b.doT(t, http.MethodGet, "/api/v1/labels/"+sh.ID, b.token, nil).Decode(t, &again)
	for _, got := range []struct {
		date       string
		guaranteed *bool
	}{{sh.EstimatedDeliveryDate, sh.Guaranteed}, {again.EstimatedDeliveryDate, again.Guaranteed}} {
		if got.date != by[0].EstimatedDeliveryDate || got.guaranteed == nil || *got.guaranteed != *by[0].Guaranteed {
			t.Errorf("label's delivery date %q guaranteed %v, want the bought rate's %q %v",
				got.date, got.guaranteed, by[0].EstimatedDeliveryDate, *by[0].Guaranteed)
		}
	}
}

func TestDeliverByImpossibleOrPast(t *testing.T) {
	t.Parallel()
	b := setupAt(t, datesNow)
	for _, path := range []string{"/api/v1/labels/quote", "/api/v1/labels/create"} {
		r := b.doT(t, http.MethodPost, path, b.token, quoteBody(func(m map[string]any) { m["deliverBy"] = "2026-07-02" }))
		body := wantError(t, r, http.StatusUnprocessableEntity, "no_matching_service")
		if av, _ := body["availableServices"].([]any); len(av) == 0 {
			t.Errorf("%s: no availableServices: %v", path, body)
		}
		r = b.doT(t, http.MethodPost, path, b.token, quoteBody(func(m map[string]any) {
			m["deliverBy"], m["carrier"], m["service"] = "2026-07-06", "UPS", "Ground" // arrives Tuesday the 7th
			if path == "/api/v1/labels/quote" {
				delete(m, "carrier")
				delete(m, "service")
				m["deliverBy"] = "2026-07-03" // the observed holiday: nothing arrives
			}
		}))
		wantError(t, r, http.StatusUnprocessableEntity, "no_matching_service")
		r = b.doT(t, http.MethodPost, path, b.token, quoteBody(func(m map[string]any) { m["deliverBy"] = "2026-07-01" }))
		if body := wantError(t, r, http.StatusUnprocessableEntity, "invalid_field"); body["field"] != "deliverBy" {
			t.Errorf("%s: past deliverBy: field = %v, want deliverBy", path, body["field"])
		}
	}
}

// Live mode: each carrier's own date comes through (UPS and FedEx express
// services guaranteed, USPS Priority Mail Express guaranteed); a rate whose
// carrier gave no date (FedEx Ground) still has one, not guaranteed.
func TestLiveQuoteDeliveryDates(t *testing.T) {
	t.Parallel()
	b, _, live := setupLive(t)
	// Phone numbers on both ends, which FedEx requires (carriers/requirements.go).
	r := b.do(http.MethodPost, "/api/v1/labels/quote", live, quoteBody(func(m map[string]any) {
		object(m, "fromAddress")["phone"] = "4155550100"
		object(m, "toAddress")["phone"] = "2025550100"
	}))
	wantStatus(t, r, http.StatusOK)
	var q struct {
		Rates []datedRate `json:"rates"`
	}
	r.Decode(t, &q)
	got := map[string]bool{}
	for _, rt := range q.Rates {
		if _, err := time.Parse(time.DateOnly, rt.EstimatedDeliveryDate); err != nil || rt.Guaranteed == nil {
			t.Fatalf("%s %s: estimatedDeliveryDate %q, guaranteed %v", rt.Carrier, rt.Service, rt.EstimatedDeliveryDate, rt.Guaranteed)
		}
		got[rt.Carrier+" "+rt.Service] = *rt.Guaranteed
	}
	for svc, want := range map[string]bool{"UPS NextDayAir": true, "UPS Ground": false, "FedEx 2Day": true, "FedEx Ground": false,
		"USPS PriorityExpress": true, "USPS GroundAdvantage": false} {
		if g, ok := got[svc]; !ok || g != want {
			t.Errorf("live %s: guaranteed %v (quoted %t), want %v", svc, g, ok, want)
		}
	}
}

package shipping_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/shipping"
)

// newServicesAt is newServices with the shipping service's clock fixed at now.
func newServicesAt(t *testing.T, now time.Time) *services {
	t.Helper()
	s := shipping.NewTestServices(t, accounts.Test, shipping.Config{Now: func() time.Time { return now }})
	return &services{st: s.Store, accounts: s.Accounts, shipping: s.Shipping, caller: s.Caller}
}

func day(s string) *time.Time {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return &d
}

// Thursday 2026-07-02, San Francisco to New York: Independence Day is
// observed on Friday the 3rd, so the next-day services arrive Monday the
// 6th, the two-day ones Tuesday the 7th, the ground ones Friday the 10th.
var deliverByNow = time.Date(2026, 7, 2, 15, 0, 0, 0, time.UTC)

func TestDeliverBySelection(t *testing.T) {
	t.Parallel()
	s := newServicesAt(t, deliverByNow)
	ctx := context.Background()
	all, err := s.shipping.Quote(ctx, s.caller, newLabel().Input)
	if err != nil {
		t.Fatal(err)
	}
	// The cheapest rate arriving by Tuesday, computed from the full quote.
	var want shipping.Rate
	for _, r := range all.Rates {
		if !r.EstimatedDeliveryDate.After(*day("2026-07-07")) {
			want = r
			break
		}
	}
	if want.Service == "" || want.CustomerPriceCents == all.Rates[0].CustomerPriceCents {
		t.Fatalf("the test needs a cheaper rate that arrives later; quote: %+v", all.Rates)
	}

	by, err := s.shipping.QuoteBy(ctx, s.caller, newLabel().Input, day("2026-07-07"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range by.Rates {
		if r.EstimatedDeliveryDate.After(*day("2026-07-07")) {
			t.Errorf("quote by 2026-07-07 has %s %s arriving %s", r.Carrier, r.Service, r.EstimatedDeliveryDate.Format(time.DateOnly))
		}
	}
	if len(by.Rates) == 0 || !cmp.Equal(by.Rates[0], want) {
		t.Errorf("quote by 2026-07-07 starts with %+v, want %+v", by.Rates, want)
	}

	in := newLabel()
	in.DeliverBy = day("2026-07-07")
	sh, _, err := s.shipping.Create(ctx, s.caller, in)
	if err != nil {
		t.Fatal(err)
	}
	if got := []string{sh.Carrier, sh.Service}; !cmp.Equal(got, []string{want.Carrier, want.Service}) {
		t.Errorf("create with deliverBy bought %v, want %s %s", got, want.Carrier, want.Service)
	}
}

func TestDeliverByNoMatch(t *testing.T) {
	t.Parallel()
	s := newServicesAt(t, deliverByNow)
	ctx := context.Background()
	str := func(v string) *string { return &v }
	tests := []struct {
		name string
		sel  shipping.Selection
	}{
		{"today: nothing arrives the day it ships", shipping.Selection{DeliverBy: day("2026-07-02")}},
		{"the tier is slower than the date", shipping.Selection{ServiceCategory: str(carriers.CategoryEconomy), DeliverBy: day("2026-07-09")}},
		{"the service is slower than the date", shipping.Selection{Carrier: str("UPS"), Service: str("Ground"), DeliverBy: day("2026-07-09")}},
	}
	for _, tt := range tests {
		in := newLabel()
		in.Selection = tt.sel
		_, _, err := s.shipping.Create(ctx, s.caller, in)
		var nm *shipping.NoMatchingServiceError
		if !errors.As(err, &nm) || len(nm.Available) == 0 {
			t.Errorf("%s: create: %v, want NoMatchingServiceError with the available services", tt.name, err)
		}
	}
	_, err := s.shipping.QuoteBy(ctx, s.caller, newLabel().Input, day("2026-07-02"))
	var nm *shipping.NoMatchingServiceError
	if !errors.As(err, &nm) || len(nm.Available) == 0 {
		t.Errorf("quote by today: %v, want NoMatchingServiceError", err)
	}

	// The exact service arriving in time is bought.
	in := newLabel()
	in.Selection = shipping.Selection{Carrier: str("UPS"), Service: str("Ground"), DeliverBy: day("2026-07-10")}
	if sh, _, err := s.shipping.Create(ctx, s.caller, in); err != nil || sh.Service != "Ground" {
		t.Errorf("UPS Ground by 2026-07-10: %v, %v", sh.Service, err)
	}
}

func TestDeliverByInThePast(t *testing.T) {
	t.Parallel()
	s := newServicesAt(t, deliverByNow)
	ctx := context.Background()
	in := newLabel()
	in.DeliverBy = day("2026-07-01")
	want := []shipping.Issue{{Path: "deliverBy", Message: "is in the past"}}
	_, _, err := s.shipping.Create(ctx, s.caller, in)
	var ie *shipping.InputError
	if !errors.As(err, &ie) || !cmp.Equal(ie.Issues, want) {
		t.Errorf("create: %v, want InputError on deliverBy", err)
	}
	_, err = s.shipping.QuoteBy(ctx, s.caller, newLabel().Input, day("2026-07-01"))
	if !errors.As(err, &ie) || !cmp.Equal(ie.Issues, want) {
		t.Errorf("quote: %v, want InputError on deliverBy", err)
	}
}

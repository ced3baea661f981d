package sandbox_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
)

// Every sandbox rate carries its delivery date, counted in delivery days
// from the shipment's ship date, and whether it is guaranteed.
func TestRatesDeliveryDates(t *testing.T) {
	t.Parallel()
	type dated struct {
		Days       int
		Date       string
		Guaranteed bool
	}
	s := domestic() // San Francisco to New York: the farthest zone
	// Thursday 2026-07-02: Independence Day is observed on Friday the 3rd
	// and the 4th is a Saturday, so nothing arrives before Monday the 6th.
	s.ShipDate = time.Date(2026, 7, 2, 0, 0, 0, 0, time.UTC)
	want := map[string]dated{
		"USPS GroundAdvantage":    {5, "2026-07-10", false},
		"USPS Priority":           {3, "2026-07-08", false},
		"USPS PriorityExpress":    {2, "2026-07-07", true},
		"UPS Ground":              {5, "2026-07-10", false},
		"UPS 3DaySelect":          {3, "2026-07-08", false},
		"UPS 2ndDayAir":           {2, "2026-07-07", true},
		"UPS NextDayAir":          {1, "2026-07-06", true},
		"FedEx Ground":            {5, "2026-07-10", false},
		"FedEx ExpressSaver":      {3, "2026-07-08", false},
		"FedEx 2Day":              {2, "2026-07-07", true},
		"FedEx StandardOvernight": {1, "2026-07-06", true},
	}
	// Shipped on Monday 2026-07-06, USPS counts Saturday the 11th, UPS does not.
	later := s
	later.ShipDate = time.Date(2026, 7, 6, 0, 0, 0, 0, time.UTC)
	wantLater := map[string]dated{"USPS GroundAdvantage": {5, "2026-07-11", false}, "UPS Ground": {5, "2026-07-13", false}}

	got, gotLater := map[string]dated{}, map[string]dated{}
	for _, c := range newCarriers() {
		for _, sh := range []struct {
			s   carriers.Shipment
			out map[string]dated
		}{{s, got}, {later, gotLater}} {
			rates, err := c.Rates(context.Background(), sh.s)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rates {
				sh.out[r.Carrier+" "+r.Service] = dated{r.EstimatedDays, r.EstimatedDeliveryDate.Format(time.DateOnly), r.Guaranteed}
			}
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("delivery dates (-want +got):\n%s", diff)
	}
	for k, w := range wantLater {
		if gotLater[k] != w {
			t.Errorf("%s shipped Monday: got %+v, want %+v", k, gotLater[k], w)
		}
	}
}

// Without a ship date the sandbox counts from its own clock's ship date.
func TestRatesDeliveryDateFromClock(t *testing.T) {
	t.Parallel()
	c := carrierNamed(t, newCarriers(), "UPS") // fixedNow: Wednesday 2026-07-01
	rates, err := c.Rates(context.Background(), domestic())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rates {
		if r.Service == "NextDayAir" {
			if got := r.EstimatedDeliveryDate.Format(time.DateOnly); got != "2026-07-02" {
				t.Errorf("NextDayAir from Wednesday 2026-07-01 arrives %s, want 2026-07-02", got)
			}
			return
		}
	}
	t.Fatal("no NextDayAir rate")
}

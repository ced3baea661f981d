package shipping

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
)

// Rate selection (the spec's order), on a quote as rates returns it:
// cheapest first.
func TestSelectRate(t *testing.T) {
	t.Parallel()
	rates := []Rate{
		{Carrier: "USPS", Service: "GroundAdvantage", ServiceCategory: "economy", CustomerPriceCents: 700},
		{Carrier: "UPS", Service: "Ground", ServiceCategory: "economy", CustomerPriceCents: 800},
		{Carrier: "USPS", Service: "Priority", ServiceCategory: "standard", CustomerPriceCents: 900},
		{Carrier: "FedEx", Service: "Ground", ServiceCategory: "standard", CustomerPriceCents: 950},
		{Carrier: "UPS", Service: "2ndDayAir", ServiceCategory: "express", CustomerPriceCents: 1800},
		{Carrier: "FedEx", Service: "2Day", ServiceCategory: "express", CustomerPriceCents: 1900},
		{Carrier: "UPS", Service: "NextDayAir", ServiceCategory: "overnight", CustomerPriceCents: 4000},
	}
	sel := func(carrier, service, category string) Selection {
		var s Selection
		if carrier != "" {
			s.Carrier = &carrier
		}
		if service != "" {
			s.Service = &service
		}
		if category != "" {
			s.ServiceCategory = &category
		}
		return s
	}
	for _, tc := range []struct {
		name string
		sel  Selection
		want int // index into rates
	}{
		{"nothing selects the cheapest overall", sel("", "", ""), 0},
		{"carrier and service select that exact service, not the cheapest", sel("UPS", "NextDayAir", ""), 6},
		{"carrier and service are case-insensitive", sel("fedex", "2DAY", ""), 5},
		{"serviceCategory selects the cheapest in the tier", sel("", "", "express"), 4},
		{"serviceCategory of one rate", sel("", "", "overnight"), 6},
		{"carrier alone selects its cheapest", sel("FedEx", "", ""), 3},
		{"carrier and category select the carrier's cheapest in the tier", sel("FedEx", "", "express"), 5},
		{"carrier, service and its own category", sel("USPS", "Priority", "standard"), 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := selectRate(rates, tc.sel)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(rates[tc.want], got); diff != "" {
				t.Errorf("selected (-want +got):\n%s", diff)
			}
		})
	}

	available := make([]ServiceOption, len(rates))
	for i, r := range rates {
		available[i] = ServiceOption{Carrier: r.Carrier, Service: r.Service, ServiceCategory: r.ServiceCategory}
	}
	for _, tc := range []struct {
		name string
		sel  Selection
	}{
		{"unknown service", sel("USPS", "NextDayAir", "")},
		{"unknown carrier", sel("DHL", "", "")},
		{"service in another tier", sel("USPS", "Priority", "overnight")},
		{"tier the carrier does not offer", sel("USPS", "", "overnight")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := selectRate(rates, tc.sel)
			var nm *NoMatchingServiceError
			if !errors.As(err, &nm) {
				t.Fatalf("err = %v, want a NoMatchingServiceError", err)
			}
			if diff := cmp.Diff(available, nm.Available); diff != "" {
				t.Errorf("available services are not the quote's (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.sel, nm.Selection); diff != "" {
				t.Errorf("selection (-want +got):\n%s", diff)
			}
		})
	}

	t.Run("service without carrier", func(t *testing.T) {
		_, err := selectRate(rates, sel("", "Priority", ""))
		var in *InputError
		if !errors.As(err, &in) {
			t.Fatalf("err = %v, want an InputError", err)
		}
		if diff := cmp.Diff([]Issue{{Path: "carrier", Message: "is required with service", Missing: true}}, in.Issues); diff != "" {
			t.Errorf("issues (-want +got):\n%s", diff)
		}
	})
}

// A quote's failures are unreachable only when every carrier is
// unreachable from this server: one carrier's own outage among them is a
// state that passes (503 with Retry-After).
func TestNoRatesErrorUnreachable(t *testing.T) {
	t.Parallel()
	unreachable := func(name string) CarrierFailure {
		return FailureOf(name, &carriers.Error{Carrier: name, Operation: "rate", Kind: carriers.ErrUnavailable, Unreachable: true, Message: name + " could not be reached"})
	}
	down := FailureOf("FedEx", &carriers.Error{Carrier: "FedEx", Operation: "rate", Kind: carriers.ErrUnavailable, HTTPStatus: 503, Message: "down"})
	for _, tc := range []struct {
		name       string
		failures   []CarrierFailure
		kind       error
		retryAfter time.Duration
	}{
		{"every carrier unreachable", []CarrierFailure{unreachable("UPS"), unreachable("USPS")}, ErrCarrierUnreachable, 0},
		{"one of them down", []CarrierFailure{unreachable("UPS"), down}, ErrCarrierUnavailable, 30 * time.Second},
		{"one of them failed", []CarrierFailure{unreachable("UPS"), FailureOf("USPS", errors.New("bad answer"))}, ErrCarrierFailed, 0},
	} {
		var e *CarriersError
		if !errors.As(NoRatesError(tc.failures), &e) || e.Kind != tc.kind || e.RetryAfter != tc.retryAfter {
			t.Errorf("%s: %+v, want kind %v, Retry-After %s", tc.name, e, tc.kind, tc.retryAfter)
		}
	}
}

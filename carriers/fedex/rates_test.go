package fedex

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/fedex/fedexfake"
)

// march2 is a date of March 2026: the fake dates its Express services'
// commitments from the ship date 2026-03-02; Ground gets no date.
func march2(day int) time.Time { return time.Date(2026, 3, day, 0, 0, 0, 0, time.UTC) }

func TestRatesDomestic(t *testing.T) {
	t.Parallel()
	c, _ := newTestCarrier(t)
	got, err := c.Rates(context.Background(), domestic())
	if err != nil {
		t.Fatalf("Rates: %v", err)
	}
	// The fake bills 3 LB (10 x 8 x 4 in is 2.3 LB dimensional, above 1.5
	// LB actual): base + per-pound price of each service. SMART_POST, which
	// shipd does not sell, is skipped. Ground's transit time comes from the
	// answer (THREE_DAYS), 2Day's from commit.daysInTransit, the others from
	// the service table.
	want := []carriers.Rate{
		{Carrier: "FedEx", Service: "Ground", ServiceCategory: "economy", CarrierRateCents: 1425, Currency: "USD", EstimatedDays: 3},
		{Carrier: "FedEx", Service: "ExpressSaver", ServiceCategory: "standard", CarrierRateCents: 2995, Currency: "USD", EstimatedDays: 3, EstimatedDeliveryDate: march2(5)},
		{Carrier: "FedEx", Service: "2Day", ServiceCategory: "express", CarrierRateCents: 3898, Currency: "USD", EstimatedDays: 2, EstimatedDeliveryDate: march2(4), Guaranteed: true},
		{Carrier: "FedEx", Service: "StandardOvernight", ServiceCategory: "overnight", CarrierRateCents: 6704, Currency: "USD", EstimatedDays: 1, EstimatedDeliveryDate: march2(3), Guaranteed: true},
		{Carrier: "FedEx", Service: "PriorityOvernight", ServiceCategory: "overnight", CarrierRateCents: 7426, Currency: "USD", EstimatedDays: 1, EstimatedDeliveryDate: march2(3), Guaranteed: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rates (-want +got):\n%s", diff)
	}
}

func TestRatesResidentialWithSignature(t *testing.T) {
	t.Parallel()
	c, _ := newTestCarrier(t)
	s := domestic()
	s.To.Residential = true
	s.Options.SignatureConfirmation = true
	got, err := c.Rates(context.Background(), s)
	if err != nil {
		t.Fatalf("Rates: %v", err)
	}
	// FedEx quotes Home Delivery instead of Ground to a home; every price
	// carries the fake's residential (5.95) and signature (7.50) surcharges,
	// which it only applies when the request says so.
	want := []carriers.Rate{
		{Carrier: "FedEx", Service: "HomeDelivery", ServiceCategory: "economy", CarrierRateCents: 1149 + 336 + 595 + 750, Currency: "USD", EstimatedDays: 3},
		{Carrier: "FedEx", Service: "ExpressSaver", ServiceCategory: "standard", CarrierRateCents: 2995 + 1345, Currency: "USD", EstimatedDays: 3, EstimatedDeliveryDate: march2(5)},
		{Carrier: "FedEx", Service: "2Day", ServiceCategory: "express", CarrierRateCents: 3898 + 1345, Currency: "USD", EstimatedDays: 2, EstimatedDeliveryDate: march2(4), Guaranteed: true},
		{Carrier: "FedEx", Service: "StandardOvernight", ServiceCategory: "overnight", CarrierRateCents: 6704 + 1345, Currency: "USD", EstimatedDays: 1, EstimatedDeliveryDate: march2(3), Guaranteed: true},
		{Carrier: "FedEx", Service: "PriorityOvernight", ServiceCategory: "overnight", CarrierRateCents: 7426 + 1345, Currency: "USD", EstimatedDays: 1, EstimatedDeliveryDate: march2(3), Guaranteed: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rates (-want +got):\n%s", diff)
	}
}

func TestRatesInternational(t *testing.T) {
	t.Parallel()
	c, _ := newTestCarrier(t)
	got, err := c.Rates(context.Background(), international())
	if err != nil {
		t.Fatalf("Rates: %v", err)
	}
	// 24 oz is billed as 2 LB.
	want := []carriers.Rate{
		{Carrier: "FedEx", Service: "InternationalEconomy", ServiceCategory: "standard", CarrierRateCents: 6512 + 2*874, Currency: "USD", EstimatedDays: 5},
		{Carrier: "FedEx", Service: "InternationalPriority", ServiceCategory: "express", CarrierRateCents: 7934 + 2*1021, Currency: "USD", EstimatedDays: 3, EstimatedDeliveryDate: march2(5), Guaranteed: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rates (-want +got):\n%s", diff)
	}
}

func TestRatesPriceGrowsWithWeight(t *testing.T) {
	t.Parallel()
	c, _ := newTestCarrier(t)
	ground := func(oz float64) int64 {
		s := domestic()
		s.Parcel = carriers.Parcel{WeightOz: oz}
		rs, err := c.Rates(context.Background(), s)
		if err != nil {
			t.Fatalf("Rates(%g oz): %v", oz, err)
		}
		for _, r := range rs {
			if r.Service == "Ground" {
				return r.CarrierRateCents
			}
		}
		t.Fatalf("Rates(%g oz): no Ground rate in %v", oz, rs)
		return 0
	}
	// 16 oz is exactly 1.0 LB (1 billed pound); 17 oz is sent as 1.1 LB
	// and billed as 2.
	if got, want := ground(16), int64(1089+112); got != want {
		t.Errorf("Ground for 16 oz = %d, want %d", got, want)
	}
	if got, want := ground(17), int64(1089+2*112); got != want {
		t.Errorf("Ground for 17 oz = %d, want %d", got, want)
	}
}

func TestRatesRefusedLocally(t *testing.T) {
	t.Parallel()
	c, fake := newTestCarrier(t)
	noWeight := domestic()
	noWeight.Parcel.WeightOz = 0
	if _, err := c.Rates(context.Background(), noWeight); !errors.Is(err, carriers.ErrInvalidShipment) {
		t.Errorf("Rates(0 oz) error = %v, want ErrInvalidShipment", err)
	}
	noCustoms := international()
	noCustoms.Customs = nil
	if _, err := c.Rates(context.Background(), noCustoms); !errors.Is(err, carriers.ErrCustomsRequired) {
		t.Errorf("Rates(international without customs) error = %v, want ErrCustomsRequired", err)
	}
	if n := fake.Requests(fedexfake.OpRate); n != 0 {
		t.Errorf("the fake got %d rate requests for shipments refused locally, want 0", n)
	}
}

func TestGoldenRateRequestDomestic(t *testing.T) {
	t.Parallel()
	c, fake := newTestCarrier(t)
	s := domestic()
	s.Options.SignatureConfirmation = true
	if _, err := c.Rates(context.Background(), s); err != nil {
		t.Fatalf("Rates: %v", err)
	}
	// 24 oz is "value": 1.5 LB; 10 x 7.5 x 4 in is 10 x 8 x 4 IN.
	checkGolden(t, "rate_domestic.json", fake.LastRequestBody(fedexfake.OpRate))
}

func TestGoldenRateRequestInternational(t *testing.T) {
	t.Parallel()
	c, fake := newTestCarrier(t)
	if _, err := c.Rates(context.Background(), international()); err != nil {
		t.Fatalf("Rates: %v", err)
	}
	checkGolden(t, "rate_international.json", fake.LastRequestBody(fedexfake.OpRate))
}

func TestParseDocumentedRateReply(t *testing.T) {
	t.Parallel()
	// The example answer of FedEx's Rate API document (rate/v1,
	// RateOutputVO), trimmed of surcharges: loosely typed operational
	// details, several rate types per service, the legacy
	// INTERNATIONAL_PRIORITY code, amounts in CAD.
	body, err := os.ReadFile("testdata/rate_reply_documented.json")
	if err != nil {
		t.Fatal(err)
	}
	got, err := parseRateResponse(body, false)
	if err != nil {
		t.Fatalf("parseRateResponse: %v", err)
	}
	want := []carriers.Rate{
		{Carrier: "FedEx", Service: "InternationalFirst", ServiceCategory: "overnight", CarrierRateCents: 44554, Currency: "CAD", EstimatedDays: 3,
			EstimatedDeliveryDate: time.Date(2020, 7, 16, 0, 0, 0, 0, time.UTC), Guaranteed: true}, // commit.dateDetail.dayCxsFormat
		{Carrier: "FedEx", Service: "InternationalPriority", ServiceCategory: "express", CarrierRateCents: 34515, Currency: "CAD", EstimatedDays: 3,
			EstimatedDeliveryDate: time.Date(2020, 7, 16, 0, 0, 0, 0, time.UTC), Guaranteed: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rates (-want +got):\n%s", diff)
	}
}

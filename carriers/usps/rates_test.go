package usps

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/usps/uspsfake"
)

func TestRatesDomestic(t *testing.T) {
	t.Parallel()
	fake := newFake(t)
	c := newCarrier(t, fake)
	rates, err := c.Rates(context.Background(), domesticShipment())
	if err != nil {
		t.Fatal(err)
	}
	// The fake prices per started pound: 1.5 lb is charged as 2 lb.
	// Priority Mail's Small Flat Rate Box ($10.40) is cheaper than its
	// single-piece price but is not what the label is bought as, and Media
	// Mail is not a service shipd sells; both must be left out.
	want := []carriers.Rate{
		{Carrier: "USPS", Service: "GroundAdvantage", ServiceCategory: carriers.CategoryEconomy, CarrierRateCents: 690, Currency: "USD", EstimatedDays: 3,
			EstimatedDeliveryDate: time.Date(2026, 11, 5, 0, 0, 0, 0, time.UTC)},
		{Carrier: "USPS", Service: "Priority", ServiceCategory: carriers.CategoryStandard, CarrierRateCents: 1160, Currency: "USD", EstimatedDays: 2,
			EstimatedDeliveryDate: time.Date(2026, 11, 4, 0, 0, 0, 0, time.UTC)},
		{Carrier: "USPS", Service: "PriorityExpress", ServiceCategory: carriers.CategoryExpress, CarrierRateCents: 3500, Currency: "USD", EstimatedDays: 1,
			EstimatedDeliveryDate: time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC), Guaranteed: true},
	}
	if diff := cmp.Diff(want, rates); diff != "" {
		t.Errorf("rates (-want +got):\n%s", diff)
	}
}

func TestRatesWithSignature(t *testing.T) {
	t.Parallel()
	fake := newFake(t)
	c := newCarrier(t, fake)
	s := domesticShipment()
	s.Options.SignatureConfirmation = true
	rates, err := c.Rates(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	// Signature Confirmation (921) costs $3.65 on Ground Advantage and
	// Priority; Priority Mail Express takes Signature Requested (981), free.
	got := map[string]int64{}
	for _, r := range rates {
		got[r.Service] = r.CarrierRateCents
	}
	want := map[string]int64{"GroundAdvantage": 1055, "Priority": 1525, "PriorityExpress": 3500}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rates with signature (-want +got):\n%s", diff)
	}
}

func TestRatesInternational(t *testing.T) {
	t.Parallel()
	fake := newFake(t)
	c := newCarrier(t, fake)
	rates, err := c.Rates(context.Background(), internationalShipment())
	if err != nil {
		t.Fatal(err)
	}
	// No commitment for international mail: the table's typical days.
	// Global Express Guaranteed is not sold and is left out.
	want := []carriers.Rate{
		{Carrier: "USPS", Service: "FirstClassPackageInternational", ServiceCategory: carriers.CategoryEconomy, CarrierRateCents: 2270, Currency: "USD", EstimatedDays: 12},
		{Carrier: "USPS", Service: "PriorityMailInternational", ServiceCategory: carriers.CategoryStandard, CarrierRateCents: 5350, Currency: "USD", EstimatedDays: 8},
		{Carrier: "USPS", Service: "PriorityMailExpressInternational", ServiceCategory: carriers.CategoryExpress, CarrierRateCents: 7000, Currency: "USD", EstimatedDays: 4},
	}
	if diff := cmp.Diff(want, rates); diff != "" {
		t.Errorf("rates (-want +got):\n%s", diff)
	}
}

func TestRatesWithoutACall(t *testing.T) {
	t.Parallel()
	fake := newFake(t)
	c := newCarrier(t, fake)

	intlSig := internationalShipment()
	intlSig.Options.SignatureConfirmation = true
	rates, err := c.Rates(context.Background(), intlSig)
	if err != nil || len(rates) != 0 {
		t.Errorf("international with signature: %v, %v; want no rates, no error", rates, err)
	}
	fromAbroad := domesticShipment()
	fromAbroad.From.Country = "CA"
	rates, err = c.Rates(context.Background(), fromAbroad)
	if err != nil || len(rates) != 0 {
		t.Errorf("from Canada: %v, %v; want no rates, no error", rates, err)
	}
	weightless := domesticShipment()
	weightless.Parcel.WeightOz = 0
	if _, err := c.Rates(context.Background(), weightless); !errors.Is(err, carriers.ErrInvalidShipment) {
		t.Errorf("weight 0: err = %v, want ErrInvalidShipment", err)
	}
	if n := fake.Requests(uspsfake.OpRates); n != 0 {
		t.Errorf("%d rate requests reached USPS, want 0", n)
	}
}

func TestParseRatesDocumentedExamples(t *testing.T) {
	t.Parallel()
	// USPS's own DomesticOutboundOptionsExample prices only Parcel Select,
	// which shipd does not sell: no rates, no error.
	rates, err := parseRates(readExample(t, "options_domestic.json"), rateQuery{mailingDate: "2024-10-02"})
	if err != nil || len(rates) != 0 {
		t.Errorf("domestic example: %v, %v; want no rates", rates, err)
	}
	rates, err = parseRates(readExample(t, "options_international.json"), rateQuery{international: true, mailingDate: "2024-10-02"})
	if err != nil {
		t.Fatal(err)
	}
	want := []carriers.Rate{{Carrier: "USPS", Service: "PriorityMailExpressInternational", ServiceCategory: carriers.CategoryExpress,
		CarrierRateCents: 6564, Currency: "USD", EstimatedDays: 4}}
	if diff := cmp.Diff(want, rates); diff != "" {
		t.Errorf("international example (-want +got):\n%s", diff)
	}
}

func TestParseRatesAmountsAndCommitments(t *testing.T) {
	t.Parallel()
	body := `{"pricingOptions":[{"shippingOptions":[
	  {"mailClass":"USPS_GROUND_ADVANTAGE","rateOptions":[{"totalBasePrice":5.840000000000001,"rates":[{"price":5.84,"rateIndicator":"SP"}],
	    "commitment":{"name":"MILITARY","scheduleDeliveryDate":"2026-11-06"}}]},
	  {"mailClass":"PRIORITY_MAIL","rateOptions":[{"totalBasePrice":"12","rates":[{"rateIndicator":"SP"}],"commitment":{"name":"NO STD"}}]},
	  {"mailClass":"PRIORITY_MAIL_EXPRESS","rateOptions":[{"totalBasePrice":1e2,"rates":[{"rateIndicator":"PA"}],"commitment":{"name":"2 Days","expectedDeliveryDate":"2026-11-04","scheduleDeliveryDate":"2026-11-09","guaranteedDelivery":true}}]},
	  {"mailClass":"USPS_CONNECT_LOCAL","rateOptions":[{"totalBasePrice":"not a price"}]}
	]}]}`
	rates, err := parseRates([]byte(body), rateQuery{mailingDate: "2026-11-02"})
	if err != nil {
		t.Fatal(err)
	}
	want := []carriers.Rate{
		// Float noise beyond the cent is rounded away; no commitment
		// count, so the days to the scheduled date; without
		// expectedDeliveryDate the deprecated scheduleDeliveryDate is read.
		{Carrier: "USPS", Service: "GroundAdvantage", ServiceCategory: carriers.CategoryEconomy, CarrierRateCents: 584, Currency: "USD", EstimatedDays: 4,
			EstimatedDeliveryDate: time.Date(2026, 11, 6, 0, 0, 0, 0, time.UTC)},
		// A price sent as a string; a commitment without days: typical days.
		{Carrier: "USPS", Service: "Priority", ServiceCategory: carriers.CategoryStandard, CarrierRateCents: 1200, Currency: "USD", EstimatedDays: 3},
		{Carrier: "USPS", Service: "PriorityExpress", ServiceCategory: carriers.CategoryExpress, CarrierRateCents: 10000, Currency: "USD", EstimatedDays: 2,
			// expectedDeliveryDate wins over the deprecated field.
			EstimatedDeliveryDate: time.Date(2026, 11, 4, 0, 0, 0, 0, time.UTC), Guaranteed: true},
	}
	if diff := cmp.Diff(want, rates); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestParseCents(t *testing.T) {
	t.Parallel()
	good := map[string]int64{"7.99": 799, "12": 1200, "0.1": 10, "5.840000000000001": 584, "4.995": 500, "1.2E1": 1200, "0": 0, "286.03": 28603}
	for in, want := range good {
		if got, err := parseCents(in); err != nil || got != want {
			t.Errorf("parseCents(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "abc", "-1.00", "1e999999", "NaN", "12..3", "99999999999"} {
		if got, err := parseCents(in); err == nil {
			t.Errorf("parseCents(%q) = %d, want an error", in, got)
		}
	}
}

func TestPoundsFromOunces(t *testing.T) {
	t.Parallel()
	for oz, want := range map[float64]float64{24: 1.5, 16: 1, 1: 0.0625, 3.3: 0.2063, 1120: 70, 0.1: 0.0063} {
		if got := poundsFromOunces(oz); got != want {
			t.Errorf("poundsFromOunces(%g) = %g, want %g", oz, got, want)
		}
	}
}

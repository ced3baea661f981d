package ups

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/ups/upsfake"
)

// march is a date of March 2026: the fake's clock is 2026-03-10 and it
// answers arrival dates that many days later, guaranteed for every air service.
func march(day int) time.Time { return time.Date(2026, 3, day, 0, 0, 0, 0, time.UTC) }

func TestRatesDomestic(t *testing.T) {
	t.Parallel()
	c, fake, _ := testCarrier(t)
	got, err := c.Rates(context.Background(), domesticShipment())
	if err != nil {
		t.Fatal(err)
	}
	// The fake's tariff: billable 3 lb (10x8x4 in is 320/139 = 2.3 lb
	// dimensional, over the 1.5 lb actual), base + per-lb price, 5.45
	// residential surcharge, negotiated at 85 %. Ground's transit days come
	// from the time-in-transit estimate (ZIP 210 to 951: 4 days), the air
	// services' from it as well.
	want := []carriers.Rate{
		{Carrier: "UPS", Service: "Ground", ServiceCategory: "economy", CarrierRateCents: 1704, Currency: "USD", EstimatedDays: 4, EstimatedDeliveryDate: march(14)},
		{Carrier: "UPS", Service: "3DaySelect", ServiceCategory: "standard", CarrierRateCents: 2834, Currency: "USD", EstimatedDays: 3, EstimatedDeliveryDate: march(13), Guaranteed: true},
		{Carrier: "UPS", Service: "2ndDayAir", ServiceCategory: "express", CarrierRateCents: 3463, Currency: "USD", EstimatedDays: 2, EstimatedDeliveryDate: march(12), Guaranteed: true},
		{Carrier: "UPS", Service: "2ndDayAirAM", ServiceCategory: "express", CarrierRateCents: 3837, Currency: "USD", EstimatedDays: 2, EstimatedDeliveryDate: march(12), Guaranteed: true},
		{Carrier: "UPS", Service: "NextDayAirSaver", ServiceCategory: "overnight", CarrierRateCents: 5189, Currency: "USD", EstimatedDays: 1, EstimatedDeliveryDate: march(11), Guaranteed: true},
		{Carrier: "UPS", Service: "NextDayAir", ServiceCategory: "overnight", CarrierRateCents: 5835, Currency: "USD", EstimatedDays: 1, EstimatedDeliveryDate: march(11), Guaranteed: true},
		{Carrier: "UPS", Service: "NextDayAirEarly", ServiceCategory: "overnight", CarrierRateCents: 8648, Currency: "USD", EstimatedDays: 1, EstimatedDeliveryDate: march(11), Guaranteed: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rates (-want +got):\n%s", diff)
	}
	body := fake.LastRequest(upsfake.OpRate)
	// 24 oz goes as 1.5 LBS; 4.4 in rounds to 4 in.
	if diff := cmp.Diff([]any{"LBS", "1.5", "4"}, []any{
		field(t, body, "RateRequest", "Shipment", "Package", 0, "PackageWeight", "UnitOfMeasurement", "Code"),
		field(t, body, "RateRequest", "Shipment", "Package", 0, "PackageWeight", "Weight"),
		field(t, body, "RateRequest", "Shipment", "Package", 0, "Dimensions", "Height"),
	}); diff != "" {
		t.Errorf("units (-want +got):\n%s", diff)
	}
}

// A quick quote (postal codes and countries only, no street, city or
// name) is rated at the same prices: each address line UPS requires is the
// postal code, which the fake, holding to Rating.yaml, accepts.
func TestRatesWithoutStreets(t *testing.T) {
	t.Parallel()
	c, fake, _ := testCarrier(t)
	full, err := c.Rates(context.Background(), domesticShipment())
	if err != nil {
		t.Fatal(err)
	}
	s := domesticShipment()
	for _, a := range []*carriers.Address{&s.From, &s.To} {
		*a = carriers.Address{State: a.State, Zip: a.Zip, Country: a.Country, Residential: a.Residential}
	}
	got, err := c.Rates(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(full, got); diff != "" {
		t.Errorf("rates without streets (-with +without):\n%s", diff)
	}
	body := fake.LastRequest(upsfake.OpRate)
	if diff := cmp.Diff([]any{[]any{"21093"}, []any{"951131234"}, nil}, []any{
		field(t, body, "RateRequest", "Shipment", "Shipper", "Address", "AddressLine"),
		field(t, body, "RateRequest", "Shipment", "ShipTo", "Address", "AddressLine"),
		field(t, body, "RateRequest", "Shipment", "ShipTo", "Address", "City"),
	}); diff != "" {
		t.Errorf("address lines (-want +got):\n%s", diff)
	}
}

func TestRatesSameServiceNamesAsSandbox(t *testing.T) {
	t.Parallel()
	// The sandbox UPS (carriers/sandbox/pricing.go) sells these names; a
	// service chosen in test mode must exist under the same name live.
	for _, name := range []string{"Ground", "3DaySelect", "2ndDayAir", "NextDayAir", "WorldwideExpedited", "WorldwideSaver"} {
		if _, ok := serviceByName(name); !ok {
			t.Errorf("service %q of the sandbox UPS is missing from the live table", name)
		}
	}
}

func TestRatesInternational(t *testing.T) {
	t.Parallel()
	c, fake, _ := testCarrier(t)
	got, err := c.Rates(context.Background(), internationalShipment())
	if err != nil {
		t.Fatal(err)
	}
	// 3 lb billable, 6.95 signature surcharge, negotiated at 85 %.
	want := []carriers.Rate{
		{Carrier: "UPS", Service: "WorldwideExpedited", ServiceCategory: "standard", CarrierRateCents: 8793, Currency: "USD", EstimatedDays: 5, EstimatedDeliveryDate: march(15), Guaranteed: true},
		{Carrier: "UPS", Service: "WorldwideSaver", ServiceCategory: "express", CarrierRateCents: 10357, Currency: "USD", EstimatedDays: 3, EstimatedDeliveryDate: march(13), Guaranteed: true},
		{Carrier: "UPS", Service: "WorldwideExpress", ServiceCategory: "express", CarrierRateCents: 10875, Currency: "USD", EstimatedDays: 2, EstimatedDeliveryDate: march(12), Guaranteed: true},
		{Carrier: "UPS", Service: "WorldwideExpressPlus", ServiceCategory: "express", CarrierRateCents: 13706, Currency: "USD", EstimatedDays: 2, EstimatedDeliveryDate: march(12), Guaranteed: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rates (-want +got):\n%s", diff)
	}
	body := fake.LastRequest(upsfake.OpRate)
	// The declared value (75 + 19.99 dollars) rounded up to whole dollars.
	if got := field(t, body, "RateRequest", "Shipment", "InvoiceLineTotal", "MonetaryValue"); got != "95" {
		t.Errorf("InvoiceLineTotal = %v, want 95", got)
	}
}

func TestRatesRefusesBeforeCalling(t *testing.T) {
	t.Parallel()
	c, fake, _ := testCarrier(t)
	noWeight := domesticShipment()
	noWeight.Parcel.WeightOz = 0
	if _, err := c.Rates(context.Background(), noWeight); !errors.Is(err, carriers.ErrInvalidShipment) {
		t.Errorf("weightless parcel: %v, want ErrInvalidShipment", err)
	}
	noCustoms := internationalShipment()
	noCustoms.Customs = nil
	if _, err := c.Rates(context.Background(), noCustoms); !errors.Is(err, carriers.ErrCustomsRequired) {
		t.Errorf("international without customs: %v, want ErrCustomsRequired", err)
	}
	if n := fake.Requests(upsfake.OpRate); n != 0 {
		t.Errorf("%d rate requests reached UPS, want 0", n)
	}
}

func TestParseRateResponse(t *testing.T) {
	t.Parallel()
	// List rates only (no negotiated rates), a single RatedShipment object
	// as versions before v2409 send it, an unknown service (96, freight)
	// to skip, amounts that a float would get wrong, and transit days from
	// the guarantee when there is no time-in-transit; dates from the
	// guarantee's ScheduledDeliveryDate and from the arrival with a
	// GuaranteedIndicator (an empty tag), none from a date in another format.
	body := `{"RateResponse":{"Response":{"ResponseStatus":{"Code":"1","Description":"Success"}},
	  "RatedShipment":[
	    {"Service":{"Code":"96"},"TotalCharges":{"CurrencyCode":"USD","MonetaryValue":"512.00"}},
	    {"Service":{"Code":"01"},"TotalCharges":{"CurrencyCode":"USD","MonetaryValue":"1234567.89"},
	     "GuaranteedDelivery":{"BusinessDaysInTransit":"1","ScheduledDeliveryDate":"20260312"}},
	    {"Service":{"Code":"03"},"TotalCharges":{"CurrencyCode":"usd","MonetaryValue":"0.29"},
	     "TimeInTransit":{"ServiceSummary":{"EstimatedArrival":{"BusinessDaysInTransit":"not a number","Arrival":{"Date":"2026-03-15"}}}}},
	    {"Service":{"Code":"12"},"TotalCharges":{"CurrencyCode":"USD","MonetaryValue":"19.990"},
	     "NegotiatedRateCharges":{"TotalCharge":{"CurrencyCode":"USD","MonetaryValue":""}},
	     "TimeInTransit":{"ServiceSummary":{"GuaranteedIndicator":"","EstimatedArrival":{"Arrival":{"Date":"20260316"}}}}}]}}`
	got, err := parseRateResponse([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	want := []carriers.Rate{
		{Carrier: "UPS", Service: "NextDayAir", ServiceCategory: "overnight", CarrierRateCents: 123456789, Currency: "USD", EstimatedDays: 1, EstimatedDeliveryDate: march(12), Guaranteed: true},
		{Carrier: "UPS", Service: "Ground", ServiceCategory: "economy", CarrierRateCents: 29, Currency: "USD", EstimatedDays: 5},
		{Carrier: "UPS", Service: "3DaySelect", ServiceCategory: "standard", CarrierRateCents: 1999, Currency: "USD", EstimatedDays: 3, EstimatedDeliveryDate: march(16), Guaranteed: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	single := `{"RateResponse":{"RatedShipment":{"Service":{"Code":"02"},"TotalCharges":{"CurrencyCode":"USD","MonetaryValue":"7"}}}}`
	got, err = parseRateResponse([]byte(single))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]carriers.Rate{{Carrier: "UPS", Service: "2ndDayAir", ServiceCategory: "express", CarrierRateCents: 700, Currency: "USD", EstimatedDays: 2}}, got); diff != "" {
		t.Errorf("single object (-want +got):\n%s", diff)
	}
}

func TestParseCents(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int64{
		"0": 0, "0.1": 10, "0.29": 29, "1.005000": -1, "12.3": 1230, "12.30": 1230, "12.300": 1230,
		" 7.07 ": 707, "1234567.89": 123456789, "-1.00": -1, "1e3": -1, "": -1, ".5": -1, "5.": 500,
		"NaN": -1, "1,000.00": -1, "9999999999999999": -1,
	} {
		got, err := parseCents(in)
		if want < 0 {
			if err == nil {
				t.Errorf("parseCents(%q) = %d, want an error", in, got)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("parseCents(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
}

func TestUnits(t *testing.T) {
	t.Parallel()
	for oz, want := range map[float64]string{24: "1.5", 1: "0.1", 16: "1", 32: "2", 17: "1.1", 1.6: "0.1", 0.0001: "0.1", 2400: "150"} {
		if got := poundsFromOunces(oz); got != want {
			t.Errorf("poundsFromOunces(%g) = %q, want %q", oz, got, want)
		}
	}
	for in, want := range map[float64]string{4.4: "4", 4.5: "5", 0.2: "1", 108: "108"} {
		if got := inches(in); got != want {
			t.Errorf("inches(%g) = %q, want %q", in, got, want)
		}
	}
	if got := unitValue(7500, 3); got != "25" {
		t.Errorf("unitValue(7500, 3) = %q, want 25", got)
	}
	if got := unitValue(1000, 3); got != "3.333333" {
		t.Errorf("unitValue(1000, 3) = %q, want 3.333333", got)
	}
}

func TestConcurrentRatesFetchOneToken(t *testing.T) {
	t.Parallel()
	c, fake, refreshes := testCarrier(t)
	var wg sync.WaitGroup
	errs := make([]error, 20)
	for i := range errs {
		wg.Go(func() {
			_, errs[i] = c.Rates(context.Background(), domesticShipment())
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff([]int{1, 20, 1}, []int{fake.TokenRequests(), fake.Requests(upsfake.OpRate), int(refreshes.Load())}); diff != "" {
		t.Errorf("token requests, rate requests, refreshes (-want +got):\n%s", diff)
	}
}

func TestExpiredTokenIsRefreshedOnceAndRetried(t *testing.T) {
	t.Parallel()
	c, fake, refreshes := testCarrier(t)
	if _, err := c.Rates(context.Background(), domesticShipment()); err != nil {
		t.Fatal(err)
	}
	fake.ExpireTokens()
	if _, err := c.Rates(context.Background(), domesticShipment()); err != nil {
		t.Fatalf("after ExpireTokens: %v", err)
	}
	// One 401, one refresh, one successful retry.
	if diff := cmp.Diff([]int{2, 3, 2}, []int{fake.TokenRequests(), fake.Requests(upsfake.OpRate), int(refreshes.Load())}); diff != "" {
		t.Errorf("token requests, rate requests, refreshes (-want +got):\n%s", diff)
	}

	// Many callers refused at once still cause a single refresh.
	fake.ExpireTokens()
	var wg sync.WaitGroup
	errs := make([]error, 10)
	for i := range errs {
		wg.Go(func() { _, errs[i] = c.Rates(context.Background(), domesticShipment()) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := fake.TokenRequests(); got != 3 {
		t.Errorf("after concurrent 401s: %d token requests, want 3", got)
	}
}

func TestCredentialsRefusedAfterTheRetry(t *testing.T) {
	t.Parallel()
	c, fake, _ := testCarrier(t)
	body := upsfake.ErrorBody("250002", "Invalid Authentication Information.")
	fake.FailNext(upsfake.OpRate, 401, body)
	fake.FailNext(upsfake.OpRate, 401, body)
	_, err := c.Rates(context.Background(), domesticShipment())
	ce := carrierError(t, err)
	want := carriers.Error{Carrier: "UPS", Operation: "rate", HTTPStatus: 401, Code: "250002",
		Message: "the carrier refused the credentials", Kind: carriers.ErrFailed}
	if diff := cmp.Diff(want, *ce, sameError()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{2, 2}, []int{fake.TokenRequests(), fake.Requests(upsfake.OpRate)}); diff != "" {
		t.Errorf("token requests, rate requests (-want +got):\n%s", diff)
	}
}

package dhlexpress

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/dhlexpress/dhlexpressfake"
)

type quoted struct {
	Service, Category, Currency, Code string
	Cents, Duties                     int64
	Days                              int
	Date                              string
	Guaranteed                        bool
}

func quotes(rates []carriers.Rate) []quoted {
	var out []quoted
	for _, r := range rates {
		out = append(out, quoted{Service: r.Service, Category: r.ServiceCategory, Currency: r.Currency, Code: r.ProductCode,
			Cents: r.CarrierRateCents, Duties: r.DutiesCents, Days: r.EstimatedDays, Date: r.EstimatedDeliveryDate.Format(time.DateOnly), Guaranteed: r.Guaranteed})
	}
	return out
}

// Rates are in DHL's billing currency (BILLC, not the public tariff's nor
// the base currency's): euros from Germany, dollars from the US; each with
// its product code, DHL's delivery date and transit days, guaranteed on
// the time-definite network only. EXPRESS EASY, a product shipd does not
// sell, is left out.
func TestRatesByLane(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, _, _ := newTestCarrier(t)
	// 1.5 kg billable (1.2 kg volumetric): base + per kg × 1.5.
	for _, tc := range []struct {
		name string
		s    carriers.Shipment
		want []quoted
	}{
		{"within Germany", domestic(), []quoted{
			{"DomesticExpress", carriers.CategoryOvernight, "EUR", "N", 2215, 0, 1, "2026-03-04", true},
		}},
		{"Germany to France, with a signature", withinEU(), []quoted{
			{"ExpressWorldwide", carriers.CategoryExpress, "EUR", "D", 4490 + 525 + 450, 0, 3, "2026-03-06", true},
			{"ExpressWorldwideEU", carriers.CategoryExpress, "EUR", "U", 3490 + 375 + 450, 0, 2, "2026-03-05", true},
			{"Express1200", carriers.CategoryOvernight, "EUR", "T", 5990 + 570 + 450, 0, 2, "2026-03-05", true},
			{"Express900", carriers.CategoryOvernight, "EUR", "E", 7990 + 630 + 450, 0, 2, "2026-03-05", true},
			{"EconomySelect", carriers.CategoryEconomy, "EUR", "W", 2990 + 270 + 450, 0, 4, "2026-03-07", false},
		}},
		{"New York to Paris, DAP", carriers.Shipment{From: newYork, To: paris, Parcel: parcel, Customs: goods("DAP")}, []quoted{
			{"ExpressWorldwide", carriers.CategoryExpress, "USD", "P", 4490 + 525, 0, 3, "2026-03-06", true},
			{"Express1200", carriers.CategoryOvernight, "USD", "Y", 5990 + 570, 0, 2, "2026-03-05", true},
			{"Express900", carriers.CategoryOvernight, "USD", "K", 7990 + 630, 0, 2, "2026-03-05", true},
		}},
	} {
		rates, err := c.Rates(ctx, tc.s)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if d := cmp.Diff(tc.want, quotes(rates)); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, d)
		}
	}
}

// A DDP quote carries the landed cost of the goods DHL estimates (5% duty
// on the watch, classified; the highest rate, 12%, on the strap, which has
// no HS code; 20% tax; 10.00 of fees) inside its price, and DD's fee.
func TestRatesDDPLandedCost(t *testing.T) {
	t.Parallel()
	c, fake, _ := newTestCarrier(t)
	rates, err := c.Rates(context.Background(), usToEUDDP())
	if err != nil {
		t.Fatal(err)
	}
	duties := int64(25000*5/100 + 1000*12/100 + 26000*20/100 + 1000)
	if len(rates) != 3 {
		t.Fatalf("rates %+v", rates)
	}
	for _, r := range rates {
		dap := map[string]int64{"ExpressWorldwide": 4490 + 525, "Express1200": 5990 + 570, "Express900": 7990 + 630}[r.Service]
		if r.DutiesCents != duties || r.CarrierRateCents != dap+1500+duties || r.Currency != "USD" {
			t.Errorf("%s: %d with %d of duties in %s; want %d with %d", r.Service, r.CarrierRateCents, r.DutiesCents, r.Currency, dap+1500+duties, duties)
		}
	}
	if got := dhlexpressfake.Duties(25000, "USD", true) + dhlexpressfake.Duties(1000, "USD", false) - 1000; got != duties {
		t.Errorf("the fake charges %d, the test expects %d", got, duties)
	}
	if n := fake.Requests(dhlexpressfake.OpLandedCost); n != 1 {
		t.Errorf("%d landed cost calls, want 1", n)
	}
	// A DAP quote asks no landed cost.
	dap := usToEUDDP()
	dap.Customs.Incoterm = carriers.IncotermDAP
	if _, err := c.Rates(context.Background(), dap); err != nil {
		t.Fatal(err)
	}
	if n := fake.Requests(dhlexpressfake.OpLandedCost); n != 1 {
		t.Errorf("a DAP quote asked the landed cost: %d calls", n)
	}
}

// The landed cost failing fails the DDP quote: a price without the duties
// would be sold short.
func TestRatesDDPLandedCostDown(t *testing.T) {
	t.Parallel()
	c, fake, _ := newTestCarrier(t)
	fake.FailNext(dhlexpressfake.OpLandedCost, http.StatusServiceUnavailable, dhlexpressfake.ErrorBody(503, "Service unavailable"))
	if _, err := c.Rates(context.Background(), usToEUDDP()); !errors.Is(err, carriers.ErrUnavailable) {
		t.Fatalf("DDP rates with the landed cost down: %v, want ErrUnavailable", err)
	}
}

// Several pieces are rated together, each piece its own package.
func TestRatesMultiPiece(t *testing.T) {
	t.Parallel()
	c, _, _ := newTestCarrier(t)
	rates, err := c.Rates(context.Background(), threePieces())
	if err != nil {
		t.Fatal(err)
	}
	// 1.5 + 2.2 + 0.8 kg (the third's 0.3 kg volumetric is less) = 4.5 kg.
	for _, r := range rates {
		if r.Service == "EconomySelect" && r.CarrierRateCents != 2990+810 {
			t.Errorf("EconomySelect %d, want %d", r.CarrierRateCents, 2990+810)
		}
	}
}

// What DHL could not rate is refused before calling it.
func TestRatesRefusedBeforeCalling(t *testing.T) {
	t.Parallel()
	c, fake, _ := newTestCarrier(t)
	noCustoms := carriers.Shipment{From: newYork, To: paris, Parcel: parcel}
	weightless := domestic()
	weightless.Parcel.WeightOz, weightless.Parcel.Metric = 0, nil
	if _, err := c.Rates(context.Background(), noCustoms); !errors.Is(err, carriers.ErrCustomsRequired) {
		t.Errorf("without customs: %v", err)
	}
	if _, err := c.Rates(context.Background(), weightless); !errors.Is(err, carriers.ErrInvalidShipment) {
		t.Errorf("weightless: %v", err)
	}
	if n := fake.Requests(dhlexpressfake.OpRates); n != 0 {
		t.Errorf("%d rate calls", n)
	}
}

// parseRates reads amounts in the currency's minor units, from the
// decimal text: yen have none, dinars three.
func TestParseRatesMinorUnits(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		body  string
		cents int64
		cur   string
	}{
		{`{"products":[{"productCode":"P","totalPrice":[{"currencyType":"BILLC","priceCurrency":"JPY","price":12345}],"weight":{}}]}`, 12345, "JPY"},
		{`{"products":[{"productCode":"P","totalPrice":[{"currencyType":"BILLC","priceCurrency":"KWD","price":12.3456}],"weight":{}}]}`, 12346, "KWD"},
		{`{"products":[{"productCode":"P","totalPrice":[{"priceCurrency":"eur","price":0.1}],"weight":{}}]}`, 10, "EUR"},
	} {
		rates, err := parseRates([]byte(tc.body))
		if err != nil || len(rates) != 1 || rates[0].CarrierRateCents != tc.cents || rates[0].Currency != tc.cur {
			t.Errorf("%s: %+v, %v; want %d %s", tc.body, rates, err, tc.cents, tc.cur)
		}
	}
}

// A product shipd sells without a usable price fails the whole answer; an
// answer that is not DHL's is ErrFailed, never a panic.
func TestParseRatesMalformed(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		``, `[]`, `{}`, `{"products": null}`, dhlexpressfake.BodyMalformed, dhlexpressfake.BodyTruncated,
		`{"products":[{"productCode":"P","totalPrice":[]}]}`,
		`{"products":[{"productCode":"P","totalPrice":[{"currencyType":"BILLC","priceCurrency":"XX","price":1}]}]}`,
		`{"products":[{"productCode":"P","totalPrice":[{"currencyType":"BILLC","priceCurrency":"USD","price":-1}]}]}`,
		`{"products":[{"productCode":"P","totalPrice":[{"currencyType":"BILLC","priceCurrency":"USD","price":1e3}]}]}`,
	} {
		_, err := parseRates([]byte(body))
		if !errors.Is(err, carriers.ErrFailed) {
			t.Errorf("%q: %v, want ErrFailed", body, err)
		}
	}
}

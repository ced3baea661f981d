package server_test

import (
	"context"
	"math/big"
	"net/http"
	"strings"
	"testing"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/app"
	"github.com/shipd-dev/shipd/exchangerates"
)

// ecbFile is the ECB's reference rates of 2026-11-27 (USD 1.0512, GBP
// 0.8312, CHF 0.9381 per euro).
const ecbFile = "../exchangerates/testdata/eurofxref-daily.xml"

// withExchangeRates converts carriers' prices with the ECB file at path.
func withExchangeRates(t testing.TB, path string) setupOption {
	f, err := exchangerates.OpenFile(path, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return func(c *app.Config) { c.ExchangeRates = f }
}

// accountIn makes an account billed in currency with a test token of every scope.
func (b *bundle) accountIn(name, currency string) (accounts.Account, string) {
	b.t.Helper()
	a, err := b.app.Accounts.CreateAccountWith(context.Background(), accounts.NewAccount{Name: name, HasPaymentMethod: true, Currency: currency})
	if err != nil {
		b.t.Fatal(err)
	}
	_, token := b.newToken(a.ID, "test", allScopes...)
	return a, token
}

// converted is amount minor units at num/den units per unit, rounded half
// away from zero: the test's own arithmetic, not the server's.
func converted(amount, num, den int64) int64 {
	v := new(big.Rat).Mul(big.NewRat(amount, 1), big.NewRat(num, den))
	v.Add(v, big.NewRat(1, 2))
	return new(big.Int).Quo(v.Num(), v.Denom()).Int64()
}

// An account billed in euros is quoted, charged and shown in euros: a
// carrier pricing in euros as it priced; one pricing in dollars converted
// at the ECB's rate, its own figure and the rate beside the price; the
// purchase charges what was quoted and records the rate.
func TestEuroAccountConvertsDollarRates(t *testing.T) {
	t.Parallel()
	b := setupLabels(t, withExchangeRates(t, ecbFile))
	_, eur := b.accountIn("Kiezladen", "EUR")

	european := map[string]bool{"DHLParcelDE": true, "GLS": true, "DPD": true, "DHLExpress": true}
	for _, r := range quoteRates(t, b, eur, deBody()) {
		switch {
		case r.Currency != "EUR" || r.CustomerPriceCents != r.CarrierRateCents+r.PlatformFeeCents:
			t.Errorf("a rate within Germany for a euro account: %+v", r)
		case european[r.Carrier] && (r.CarrierCurrency != "" || r.ExchangeRate != ""):
			t.Errorf("a European carrier's euros converted for a euro account: %+v", r)
		case !european[r.Carrier] && (r.CarrierCurrency != "USD" || r.CarrierRateCents != converted(r.CarrierAmountCents, 10000, 10512)):
			t.Errorf("a US carrier's dollars within Germany for a euro account: %+v", r)
		}
	}

	// The US carriers price in dollars: 1 USD is 1/1.0512 EUR.
	var usps rateDoc
	for _, r := range quoteRates(t, b, eur, labelBody()) {
		if r.Currency != "EUR" || r.CarrierCurrency != "USD" || r.ExchangeRate != "0.9512937595" {
			t.Errorf("a US rate for a euro account: %+v", r)
		}
		if want := converted(r.CarrierAmountCents, 10000, 10512); r.CarrierRateCents != want || r.CustomerPriceCents != want+8 {
			t.Errorf("%s %s: %d USD cents became %d EUR cents (customer %d), want %d (+8)", r.Carrier, r.Service, r.CarrierAmountCents, r.CarrierRateCents, r.CustomerPriceCents, want)
		}
		if r.Carrier == "USPS" && r.Service == "Priority" {
			usps = r
		}
	}
	if usps.Carrier == "" {
		t.Fatal("no USPS Priority rate")
	}
	s := createLabel(t, b, eur, labelBody(withField("carrier", "USPS"), withField("service", "Priority")))
	s = waitForStatus(t, b, eur, s.ID, "purchased")
	if s.Currency != "EUR" || s.CarrierRateCents != usps.CarrierRateCents || s.CustomerPriceCents != usps.CustomerPriceCents ||
		s.CarrierCurrency == nil || *s.CarrierCurrency != "USD" || s.CarrierAmountCents == nil || *s.CarrierAmountCents != usps.CarrierAmountCents ||
		s.ExchangeRate == nil || *s.ExchangeRate != usps.ExchangeRate {
		t.Errorf("the label bought at the quote %+v: %+v", usps, s)
	}

	// A dollar account is quoted the euro carriers converted the other way.
	for _, r := range quoteRates(t, b, b.token, deBody()) {
		if !european[r.Carrier] {
			if r.Currency != "USD" || r.CarrierCurrency != "" {
				t.Errorf("a US carrier for a dollar account: %+v", r)
			}
			continue
		}
		if r.Currency != "USD" || r.CarrierCurrency != "EUR" || r.ExchangeRate != "1.0512" ||
			r.CarrierRateCents != converted(r.CarrierAmountCents, 10512, 10000) {
			t.Errorf("a European carrier's rate for a dollar account: %+v", r)
		}
	}
}

// Without the operator's exchange rates, a carrier pricing in another
// currency than the account's is left out with no_exchange_rate, and a
// quote left with nothing is 422 no_rates saying why.
func TestNoExchangeRate(t *testing.T) {
	t.Parallel()
	b := setupLabels(t)
	_, eur := b.accountIn("Kiezladen", "EUR")
	_, ars := b.accountIn("Tienda", "ARS")
	if rates := quoteRates(t, b, eur, deBody()); len(rates) == 0 {
		t.Fatal("no euro rates for a euro account")
	}
	wantNoRate := func(what string, errs []any, carriers ...string) {
		t.Helper()
		var got []string
		for _, e := range errs {
			e := e.(map[string]any)
			got = append(got, e["carrier"].(string))
			if e["code"] != "no_exchange_rate" || e["kind"] != "rejected" || !strings.Contains(e["message"].(string), "serve --exchange-rates") {
				t.Errorf("%s: carrier error %v", what, e)
			}
		}
		if strings.Join(got, " ") != strings.Join(carriers, " ") {
			t.Errorf("%s: carriers left out %v, want %v", what, got, carriers)
		}
	}

	// Within Germany for a dollar account: UPS and FedEx quote in dollars,
	// the European carriers are left out, each saying why.
	r := b.do("POST", "/api/v1/labels/quote", b.token, deBody())
	wantStatus(t, r, http.StatusOK)
	q := r.JSON(t)
	for _, rate := range q["rates"].([]any) {
		if c := rate.(map[string]any)["carrier"]; c != "UPS" && c != "FedEx" {
			t.Errorf("a rate of %v for a dollar account without exchange rates", c)
		}
	}
	errs, _ := q["carrierErrors"].([]any)
	wantNoRate("within Germany in dollars", errs, "DHLParcelDE", "GLS", "DPD", "DHLExpress")

	// Nothing left: 422 no_rates, saying why, for a quote and a create.
	for _, tc := range []struct {
		name, token string
		body        map[string]any
		left        []string
	}{
		{"dollars for a euro account", eur, labelBody(), []string{"USPS", "UPS", "FedEx"}},
		{"pesos within Germany", ars, deBody(), []string{"UPS", "FedEx", "DHLParcelDE", "GLS", "DPD", "DHLExpress"}},
	} {
		for _, op := range []string{"quote", "create"} {
			m := wantError(t, b.do("POST", "/api/v1/labels/"+op, tc.token, tc.body), http.StatusUnprocessableEntity, "no_rates")
			if !strings.Contains(m["error"].(string), "no carrier offers a rate for this shipment") {
				t.Errorf("%s, %s: %v", tc.name, op, m["error"])
			}
			errs, _ := m["carrierErrors"].([]any)
			wantNoRate(tc.name+", "+op, errs, tc.left...)
		}
	}
}

// The platform fee is set per currency; a currency without its own fee
// pays the default in its minor unit.
func TestPlatformFeePerCurrency(t *testing.T) {
	t.Parallel()
	b := setupLabels(t, withExchangeRates(t, ecbFile), func(c *app.Config) { c.PlatformFees = map[string]int64{"EUR": 12} })
	_, eur := b.accountIn("Kiezladen", "EUR")
	_, gbp := b.accountIn("Corner Shop", "GBP")
	for _, tc := range []struct {
		token, currency string
		fee             int64
	}{{eur, "EUR", 12}, {gbp, "GBP", 8}, {b.token, "USD", 8}} {
		for _, r := range quoteRates(t, b, tc.token, deBody()) {
			if r.Currency != tc.currency || r.PlatformFeeCents != tc.fee || r.CustomerPriceCents != r.CarrierRateCents+tc.fee {
				t.Errorf("%s account: want a fee of %d: %+v", tc.currency, tc.fee, r)
			}
		}
	}
}

// A batch of an account billed in euros is priced in euros, every item,
// and bought at those prices (the batch reads the account's currency once,
// for all its items).
func TestEuroAccountBatchIsPricedInEuros(t *testing.T) {
	t.Parallel()
	b := setupLabels(t, withExchangeRates(t, ecbFile))
	_, eur := b.accountIn("Kiezladen", "EUR")
	var usps rateDoc
	for _, r := range quoteRates(t, b, eur, labelBody()) {
		if r.Carrier == "USPS" && r.Service == "Priority" {
			usps = r
		}
	}
	if usps.Carrier == "" || usps.Currency != "EUR" {
		t.Fatalf("USPS Priority for a euro account: %+v", usps)
	}
	item := labelBody(withField("carrier", "USPS"), withField("service", "Priority"))
	r := b.doT(t, "POST", "/api/v1/batches", eur, batchBody(item, item, item))
	wantStatus(t, r, http.StatusAccepted)
	var accepted batchDoc
	r.Decode(t, &accepted)
	waitUntil(t, "the euro batch completed", func() bool {
		var d batchDoc
		b.doT(t, "GET", "/api/v1/batches/"+accepted.ID, eur, nil).Decode(t, &d)
		return d.Status == "completed" && d.Counts.Purchased == 3
	})
	var page batchShipmentList
	b.doT(t, "GET", "/api/v1/batches/"+accepted.ID+"/shipments", eur, nil).Decode(t, &page)
	if len(page.Data) != 3 {
		t.Fatalf("%d shipments in the batch, want 3", len(page.Data))
	}
	for _, s := range page.Data {
		if s.Status != "purchased" || s.Currency != "EUR" || s.CarrierRateCents != usps.CarrierRateCents || s.CustomerPriceCents != usps.CustomerPriceCents ||
			s.ExchangeRate == nil || *s.ExchangeRate != usps.ExchangeRate {
			t.Errorf("an item of the euro batch, quoted %+v: %+v", usps, s.shipmentDoc)
		}
	}
}

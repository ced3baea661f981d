package dhlparcelde

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/dhlparcelde/dhlparceldefake"
)

// rateSummary is what a test compares of a rate.
type rateSummary struct {
	Service, ProductCode string
	Days                 int
	Unpriced             bool
}

func summarize(rs []carriers.Rate) []rateSummary {
	var out []rateSummary
	for _, r := range rs {
		out = append(out, rateSummary{r.Service, r.ProductCode, r.EstimatedDays, r.Unpriced})
	}
	return out
}

// DHL Paket has no rating API: Rates answers the products that take the
// shipment, unpriced, with their product codes, and calls nothing.
func TestRatesAreTheProductsOfTheRoute(t *testing.T) {
	t.Parallel()
	c, fake := testCarrier(t)
	ctx := context.Background()
	light := carriers.MetricParcelOf(carriers.MetricParcel{WeightG: 800, LengthCm: 30, WidthCm: 20, HeightCm: 5})
	heavy := carriers.MetricParcelOf(carriers.MetricParcel{WeightG: 32000})
	bulky := carriers.MetricParcelOf(carriers.MetricParcel{WeightG: 2000, LengthCm: 130, WidthCm: 20, HeightCm: 20})
	withParcel := func(s carriers.Shipment, p carriers.Parcel) carriers.Shipment { s.Parcel = p; return s }
	signed := domesticShipment()
	signed.Parcel = light
	signed.Options.SignatureConfirmation = true
	fromVienna := domesticShipment()
	fromVienna.From = vienna()
	returnFromNewYork := returnShipment()
	returnFromNewYork.From = carriers.Address{Name: "Jo", Street1: "1 Main St", City: "New York", State: "NY", Zip: "10001", Country: "US"}
	for _, tc := range []struct {
		name string
		s    carriers.Shipment
		want []rateSummary
	}{
		{"800 g within Germany", withParcel(domesticShipment(), light), []rateSummary{
			{"Paket", "V01PAK", 2, true}, {"Kleinpaket", "V62KP", 2, true}}},
		{"2.5 kg within Germany (over Kleinpaket's kilogram)", domesticShipment(), []rateSummary{{"Paket", "V01PAK", 2, true}}},
		{"32 kg, over DHL Paket's 31.5", withParcel(domesticShipment(), heavy), nil},
		{"130 cm long, over 120", withParcel(domesticShipment(), bulky), nil},
		{"to France", euShipment(), []rateSummary{{"Europaket", "V54EPAK", 4, true}, {"PaketInternational", "V53WPAK", 5, true}}},
		{"800 g to Switzerland, across a customs border", swissShipment(), []rateSummary{
			{"PaketInternational", "V53WPAK", 10, true}, {"WarenpostInternational", "V66WPI", 12, true}}},
		{"a signature: Paket alone", signed, []rateSummary{{"Paket", "V01PAK", 2, true}}},
		{"from Austria: DHL Paket ships from Germany", fromVienna, nil},
		{"a return from Vienna", returnShipment(), []rateSummary{{"Retoure", "", 5, true}}},
		{"a return from New York: not a country of the Returns API", returnFromNewYork, nil},
	} {
		rs, err := c.Rates(ctx, tc.s)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if diff := cmp.Diff(tc.want, summarize(rs)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
		for _, r := range rs {
			if r.Carrier != "DHLParcelDE" || r.CarrierRateCents != 0 || r.ServiceCategory == "" {
				t.Errorf("%s: rate %+v", tc.name, r)
			}
		}
	}
	for _, op := range []string{dhlparceldefake.OpOrder, dhlparceldefake.OpReturn, dhlparceldefake.OpTrack} {
		if n := fake.Requests(op); n != 0 {
			t.Errorf("rates made %d %s calls, want none", n, op)
		}
	}
}

func TestRatesRefuseWhatNoProductTakes(t *testing.T) {
	t.Parallel()
	c, _ := testCarrier(t)
	noCustoms := swissShipment()
	noCustoms.Customs = nil
	if _, err := c.Rates(context.Background(), noCustoms); !errors.Is(err, carriers.ErrCustomsRequired) {
		t.Errorf("to Switzerland without customs: %v, want ErrCustomsRequired", err)
	}
	weightless := domesticShipment()
	weightless.Parcel = carriers.Parcel{}
	if _, err := c.Rates(context.Background(), weightless); !errors.Is(err, carriers.ErrInvalidShipment) {
		t.Errorf("no weight: %v, want ErrInvalidShipment", err)
	}
}

// The descriptor's Priced wraps the connector with a rate sheet: a
// service's rows price it in euros, by product code or name, by
// destination and weight; without a sheet the quote is refused saying
// where one is set.
func TestRatesPricedByARateSheet(t *testing.T) {
	t.Parallel()
	c, _ := testCarrier(t)
	sheet, err := carriers.ParseRateSheet(strings.NewReader("service,destination,maxWeightG,price,currency\n" +
		"V01PAK,DE,5000,5.49,EUR\nV01PAK,DE,31500,9.49,EUR\nKleinpaket,DE,1000,3.99,EUR\n" +
		"PaketInternational,*,5000,17.99,EUR\nRetoure,*,31500,6.20,EUR\n"))
	if err != nil {
		t.Fatal(err)
	}
	priced := Descriptor().Priced(c, sheet, "test")
	rs, err := priced.Rates(context.Background(), domesticShipment())
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 || rs[0].Service != "Paket" || rs[0].CarrierRateCents != 549 || rs[0].Currency != "EUR" || rs[0].Unpriced {
		t.Fatalf("2.5 kg within Germany: %+v, want Paket at 5.49 EUR", rs)
	}
	rs, err = priced.Rates(context.Background(), euShipment())
	if err != nil || len(rs) != 1 || rs[0].Service != "PaketInternational" || rs[0].CarrierRateCents != 1799 {
		t.Fatalf("to France: %+v %v, want Paket International alone (Europaket has no row)", rs, err)
	}
	rs, err = priced.Rates(context.Background(), returnShipment())
	if err != nil || len(rs) != 1 || rs[0].Service != "Retoure" || rs[0].CarrierRateCents != 620 {
		t.Fatalf("a return: %+v %v", rs, err)
	}
	_, err = Descriptor().Priced(c, nil, "set SHIPD_DHLPARCELDE_RATE_SHEET").Rates(context.Background(), domesticShipment())
	if ce := carrierError(t, err); !errors.Is(err, carriers.ErrRejected) || !strings.Contains(ce.Message, "SHIPD_DHLPARCELDE_RATE_SHEET") {
		t.Fatalf("without a sheet: %v", err)
	}
}

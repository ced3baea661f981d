package dhlexpress_test

import (
	"context"
	"slices"
	"testing"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/dhlexpress"
	"github.com/shipd-dev/shipd/carriers/sandbox"
)

// The sandbox's DHL Express ships from any country, quoted in the origin's
// currency: Domestic Express at home (not in the US, where DHL sells none),
// the Express products abroad, Express Worldwide EU and Economy Select
// between EU member states.
func TestSandboxDHLExpress(t *testing.T) {
	t.Parallel()
	cat, err := carriers.NewCatalog(dhlexpress.Descriptor())
	if err != nil {
		t.Fatal(err)
	}
	c := sandbox.New(sandbox.Config{Catalog: cat})[0]
	at := func(country, zip string) carriers.Address {
		return carriers.Address{Name: "A Person", Street1: "Street 1", City: "City", Zip: zip, Country: country, Phone: "+1 212 555 0100"}
	}
	goods := &carriers.Customs{ContentsType: carriers.ContentsMerchandise, Items: []carriers.CustomsItem{{Description: "Watch", Quantity: 1, ValueCents: 20000, WeightOz: 8}}}
	kg := carriers.MetricParcelOf(carriers.MetricParcel{WeightG: 1000, LengthCm: 20, WidthCm: 15, HeightCm: 10})
	quote := func(s carriers.Shipment) (services []string, currency string) {
		t.Helper()
		rs, err := c.Rates(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			services, currency = append(services, r.Service), r.Currency
		}
		slices.Sort(services)
		return services, currency
	}
	for _, tc := range []struct {
		name     string
		s        carriers.Shipment
		services []string
		currency string
	}{
		{"within Germany", carriers.Shipment{From: at("DE", "10115"), To: at("DE", "80331"), Parcel: kg}, []string{"DomesticExpress"}, "EUR"},
		{"Germany to France", carriers.Shipment{From: at("DE", "10115"), To: at("FR", "75001"), Parcel: kg},
			[]string{"EconomySelect", "Express1200", "Express900", "ExpressWorldwide", "ExpressWorldwideEU"}, "EUR"},
		{"the US to Germany", carriers.Shipment{From: at("US", "10001"), To: at("DE", "10115"), Parcel: kg, Customs: goods},
			[]string{"Express1200", "Express900", "ExpressWorldwide"}, "USD"},
		{"the UK to the US", carriers.Shipment{From: at("GB", "SW1A 1AA"), To: at("US", "10001"), Parcel: kg, Customs: goods},
			[]string{"Express1200", "Express900", "ExpressWorldwide"}, "GBP"},
		{"Switzerland to Germany", carriers.Shipment{From: at("CH", "8001"), To: at("DE", "10115"), Parcel: kg, Customs: goods},
			[]string{"Express1200", "Express900", "ExpressWorldwide"}, "CHF"},
		{"within the US", carriers.Shipment{From: at("US", "10001"), To: at("US", "94105"), Parcel: kg}, nil, ""},
	} {
		services, currency := quote(tc.s)
		if !slices.Equal(services, tc.services) || currency != tc.currency {
			t.Errorf("%s: %v in %s, want %v in %s", tc.name, services, currency, tc.services, tc.currency)
		}
	}
}

// The twin is the live connector's: the same services (shipd's names, DHL's
// product names, categories and guarantees), numbers of the waybill's form
// behind a sandbox prefix, the same label formats and sizes.
func TestSandboxTwinMatchesTheLiveConnector(t *testing.T) {
	t.Parallel()
	tariff := dhlexpress.Descriptor().Sandbox
	var twin []string
	for _, svc := range append(append([]carriers.SandboxService{}, tariff.Domestic...), tariff.International...) {
		twin = append(twin, svc.Name)
		codes := dhlexpress.ProductCodes(svc.Name)
		if len(codes) == 0 {
			t.Errorf("the twin's %s is no live service", svc.Name)
			continue
		}
		live, ok := dhlexpress.LiveService(svc.Name)
		if !ok || live.Label != svc.Label || live.Category != svc.Category || live.Guaranteed != svc.Guaranteed {
			t.Errorf("%s: twin %q %s guaranteed %v, live %+v", svc.Name, svc.Label, svc.Category, svc.Guaranteed, live)
		}
	}
	slices.Sort(twin)
	live := dhlexpress.ServiceNames()
	slices.Sort(live)
	if !slices.Equal(twin, live) {
		t.Errorf("twin services %v, live %v", twin, live)
	}
	if tariff.TrackingDigits != 10 {
		t.Errorf("the twin's numbers have %d digits, a waybill 10", tariff.TrackingDigits)
	}
}

package gls_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/gls"
	"github.com/shipd-dev/shipd/carriers/sandbox"
)

// The sandbox's GLS quotes Parcel and Express in euros from the countries
// of its national companies, up to 40 kg, several parcels under one
// shipment.
func TestSandboxGLS(t *testing.T) {
	t.Parallel()
	cat, err := carriers.NewCatalog(gls.Descriptor())
	if err != nil {
		t.Fatal(err)
	}
	c := sandbox.New(sandbox.Config{Catalog: cat})[0]
	at := func(country, zip string) carriers.Address {
		return carriers.Address{Name: "A Person", Street1: "Street 1", City: "City", Zip: zip, Country: country, Phone: "+49 30 1234567"}
	}
	kg := func(k float64) carriers.Parcel {
		return carriers.MetricParcelOf(carriers.MetricParcel{WeightG: k * 1000})
	}
	quote := func(s carriers.Shipment) []string {
		t.Helper()
		rs, err := c.Rates(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rs {
			if r.Currency != "EUR" {
				t.Errorf("%s in %s", r.Service, r.Currency)
			}
			out = append(out, r.Service)
		}
		slices.Sort(out)
		return out
	}
	if got := quote(carriers.Shipment{From: at("DE", "10115"), To: at("DE", "80331"), Parcel: kg(39)}); !slices.Equal(got, []string{"Express", "Parcel"}) {
		t.Errorf("39 kg within Germany: %v", got)
	}
	// Over GLS's 40 kg: no rate, and the carrier says why.
	var ce *carriers.Error
	if _, err := c.Rates(context.Background(), carriers.Shipment{From: at("DE", "10115"), To: at("DE", "80331"), Parcel: kg(41)}); !errors.As(err, &ce) ||
		ce.Code != carriers.CodeParcelTooHeavy || !strings.Contains(ce.Message, "at most 40 kg (88.18 lb) a parcel; this one weighs 41 kg") {
		t.Errorf("41 kg, over GLS's limit: %v", err)
	}
	if got := quote(carriers.Shipment{From: at("NL", "1012 AB"), To: at("BE", "1000"), Parcel: kg(2)}); !slices.Equal(got, []string{"Express", "Parcel"}) {
		t.Errorf("the Netherlands to Belgium: %v", got)
	}
	if got := quote(carriers.Shipment{From: at("GB", "SW1A 1AA"), To: at("DE", "10115"), Parcel: kg(2),
		Customs: &carriers.Customs{Items: []carriers.CustomsItem{{Description: "Tea", Quantity: 1, ValueCents: 1000, WeightOz: 70}}}}); len(got) != 0 {
		t.Errorf("from the UK, where GLS has no company of its own: %v", got)
	}
	if !c.MultiPieceService("Parcel") {
		t.Error("GLS ships several parcels under one shipment")
	}
}

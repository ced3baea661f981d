package dpd_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/dpd"
	"github.com/shipd-dev/shipd/carriers/sandbox"
)

// The sandbox's DPD quotes Classic and its Express products at home,
// Classic and International Express abroad, in euros, up to 31.5 kg; it
// has no manifest step (DPD scans every parcel on pickup).
func TestSandboxDPD(t *testing.T) {
	t.Parallel()
	cat, err := carriers.NewCatalog(dpd.Descriptor())
	if err != nil {
		t.Fatal(err)
	}
	c := sandbox.New(sandbox.Config{Catalog: cat})[0]
	at := func(country, zip string) carriers.Address {
		return carriers.Address{Name: "A Person", Street1: "Street 1", City: "City", Zip: zip, Country: country, Email: "a@example.com"}
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
			out = append(out, r.Service)
		}
		slices.Sort(out)
		return out
	}
	home := quote(carriers.Shipment{From: at("DE", "10115"), To: at("DE", "80331"), Parcel: kg(5)})
	if !slices.Equal(home, []string{"Classic", "Express12", "Express18", "Express830"}) {
		t.Errorf("within Germany: %v", home)
	}
	if got := quote(carriers.Shipment{From: at("DE", "10115"), To: at("FR", "75001"), Parcel: kg(5)}); !slices.Equal(got, []string{"Classic", "InternationalExpress"}) {
		t.Errorf("to France: %v", got)
	}
	// Over DPD's 31.5 kg: no rate, and the carrier says why.
	var ce *carriers.Error
	if _, err := c.Rates(context.Background(), carriers.Shipment{From: at("DE", "10115"), To: at("DE", "80331"), Parcel: kg(32)}); !errors.As(err, &ce) ||
		ce.Code != carriers.CodeParcelTooHeavy || !strings.Contains(ce.Message, "at most 31.5 kg (69.45 lb) a parcel; this one weighs 32 kg") {
		t.Errorf("32 kg, over DPD's limit: %v", err)
	}
	if c.Capabilities().Has(carriers.CapManifests) {
		t.Error("DPD has a manifest step")
	}
}

package dhlparcelde_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/dhlparcelde"
	"github.com/shipd-dev/shipd/carriers/sandbox"
)

func twin(t *testing.T) carriers.Carrier {
	t.Helper()
	cat, err := carriers.NewCatalog(dhlparcelde.Descriptor())
	if err != nil {
		t.Fatal(err)
	}
	cs := sandbox.New(sandbox.Config{Catalog: cat, Now: func() time.Time { return time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC) }})
	if len(cs) != 1 || cs[0].Name() != "DHLParcelDE" {
		t.Fatalf("sandbox carriers %v", cs)
	}
	return cs[0]
}

func berlin() carriers.Address {
	return carriers.Address{Name: "Shop GmbH", Street1: "Hauptstr. 5", City: "Berlin", Zip: "10115", Country: "DE"}
}

func grams(g float64) carriers.Parcel {
	return carriers.MetricParcelOf(carriers.MetricParcel{WeightG: g, LengthCm: 30, WidthCm: 20, HeightCm: 10})
}

// The sandbox's DHL Paket quotes in euros what DHL sells from Germany:
// Paket and Kleinpaket at home (Kleinpaket up to 1 kg), Europaket and Paket
// International within the EU, Paket International beyond.
func TestSandboxDHLPaketServices(t *testing.T) {
	t.Parallel()
	c := twin(t)
	services := func(to carriers.Address, p carriers.Parcel) map[string]int64 {
		t.Helper()
		s := carriers.Shipment{From: berlin(), To: to, Parcel: p}
		if carriers.CustomsRequired(s.From, s.To) {
			s.Customs = &carriers.Customs{ContentsType: carriers.ContentsMerchandise,
				Items: []carriers.CustomsItem{{Description: "Book", Quantity: 1, ValueCents: 2000, WeightOz: p.WeightOz}}}
		}
		rs, err := c.Rates(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]int64{}
		for _, r := range rs {
			if r.Currency != "EUR" {
				t.Errorf("%s in %s", r.Service, r.Currency)
			}
			out[r.Service] = r.CarrierRateCents
		}
		return out
	}
	cologne := carriers.Address{Name: "Erika Mustermann", Street1: "Heidestr. 17", City: "Köln", Zip: "51147", Country: "DE"}
	if got := services(cologne, grams(800)); len(got) != 2 || got["Kleinpaket"] != 399 || got["Paket"] != 549+35 {
		t.Errorf("800 g within Germany: %v", got)
	}
	if got := services(cologne, grams(2500)); len(got) != 1 || got["Paket"] != 549+3*35 {
		t.Errorf("2.5 kg within Germany (no Kleinpaket): %v", got)
	}
	// Over DHL Paket's 31.5 kg: no rate, and the carrier says why.
	var ce *carriers.Error
	if _, err := c.Rates(context.Background(), carriers.Shipment{From: berlin(), To: cologne, Parcel: grams(32000)}); !errors.As(err, &ce) ||
		ce.Code != carriers.CodeParcelTooHeavy || !strings.Contains(ce.Message, "at most 31.5 kg (69.45 lb) a parcel; this one weighs 32 kg") {
		t.Errorf("32 kg, over DHL Paket's 31.5: %v", err)
	}
	paris := carriers.Address{Name: "Jean Dupont", Company: "Dupont SARL", Street1: "5 rue de Rivoli", City: "Paris", Zip: "75001", Country: "FR"}
	if got := services(paris, grams(2000)); cmp.Diff([]string{"Europaket", "PaketInternational"}, keys(got)) != "" {
		t.Errorf("to France: %v", got)
	}
	zurich := carriers.Address{Name: "Heidi Muster", Street1: "Bahnhofstr. 1", City: "Zürich", Zip: "8001", Country: "CH"}
	if got := services(zurich, grams(2000)); cmp.Diff([]string{"PaketInternational"}, keys(got)) != "" {
		t.Errorf("to Switzerland, outside the EU: %v", got)
	}
}

func keys(m map[string]int64) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	if len(out) > 1 && out[0] > out[1] {
		out[0], out[1] = out[1], out[0]
	}
	return out
}

// DHL Paket ships from Germany only: no rate from Austria, and a purchase
// from there is refused.
func TestSandboxDHLPaketShipsFromGermany(t *testing.T) {
	t.Parallel()
	c := twin(t)
	vienna := carriers.Address{Name: "Shop", Street1: "Ring 1", City: "Wien", Zip: "1010", Country: "AT"}
	s := carriers.Shipment{From: vienna, To: berlin(), Parcel: grams(1000)}
	if rs, err := c.Rates(context.Background(), s); err != nil || len(rs) != 0 {
		t.Errorf("from Austria: %v %v, want no rate", rs, err)
	}
	_, err := c.Buy(context.Background(), carriers.BuyRequest{Reference: "shp_at", Shipment: s,
		Rate: carriers.Rate{Carrier: "DHLParcelDE", Service: "Europaket"}})
	if !errors.Is(err, carriers.ErrRejected) {
		t.Errorf("a purchase from Austria: %v, want ErrRejected", err)
	}
}

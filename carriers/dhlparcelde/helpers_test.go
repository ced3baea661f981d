package dhlparcelde

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/apidoc"
	"github.com/shipd-dev/shipd/carriers/dhlparcelde/dhlparceldefake"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// testNow is a fixed clock: a Wednesday morning in Germany (CET).
func testNow() time.Time { return time.Date(2026, 3, 11, 9, 30, 0, 0, time.UTC) }

// testReference is a shipd shipment id.
const testReference = "shp_0123456789abcdef01234567"

// testConfig is the fake's customer, with the API secret pickups need.
func testConfig(fake *dhlparceldefake.Server) Config {
	return Config{APIKey: dhlparceldefake.APIKey, Username: dhlparceldefake.Username, Password: dhlparceldefake.Password,
		BillingNumber: dhlparceldefake.BillingNumber, APISecret: dhlparceldefake.APISecret,
		BaseURL: fake.URL(), HTTPClient: fake.Client(), Now: testNow, Logger: slog.New(slog.DiscardHandler)}
}

// testCarrier is a Carrier wired to a fresh fake with a fixed clock.
func testCarrier(t *testing.T) (*Carrier, *dhlparceldefake.Server) {
	t.Helper()
	fake := dhlparceldefake.New(t)
	fake.SetNow(testNow)
	c, err := New(testConfig(fake))
	if err != nil {
		t.Fatal(err)
	}
	return c, fake
}

// recordedCarrier is testCarrier with every exchange recorded.
func recordedCarrier(t *testing.T) (*Carrier, *dhlparceldefake.Server, *apidoc.Recorder) {
	t.Helper()
	fake := dhlparceldefake.New(t)
	fake.SetNow(testNow)
	rec := &apidoc.Recorder{Next: fake.Client().Transport}
	cfg := testConfig(fake)
	cfg.HTTPClient = &http.Client{Transport: rec}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c, fake, rec
}

func bonn() carriers.Address {
	return carriers.Address{Name: "Max Mustermann", Company: "Mein Online-Shop GmbH", Street1: "Sträßchensweg 10",
		City: "Bonn", Zip: "53113", Country: "DE", Email: "versand@shop.example", Phone: "+49 228 1234567"}
}

func cologne() carriers.Address {
	return carriers.Address{Name: "Erika Mustermann", Street1: "Heidestr. 17", Street2: "Hinterhaus", City: "Köln", Zip: "51147",
		Country: "DE", Email: "erika@example.com", Phone: "+49 221 7654321", Residential: true}
}

func paris() carriers.Address {
	return carriers.Address{Name: "Jean Dupont", Company: "Dupont SARL", Street1: "5 rue de Rivoli", City: "Paris", Zip: "75001",
		Country: "FR", Email: "jean@dupont.example", Phone: "+33 1 23 45 67 89"}
}

func zurich() carriers.Address {
	return carriers.Address{Name: "Heidi Muster", Street1: "Bahnhofstrasse 1", City: "Zürich", Zip: "8001", Country: "CH",
		Phone: "+41 44 123 45 67", Email: "heidi@example.ch"}
}

func vienna() carriers.Address {
	return carriers.Address{Name: "Franz Huber", Street1: "Mariahilfer Straße 12a", City: "Wien", Zip: "1070", Country: "AT",
		Email: "franz@example.at"}
}

// metric is a parcel of g grams, 30 x 20 x 10 cm.
func metric(g float64) carriers.Parcel {
	return carriers.MetricParcelOf(carriers.MetricParcel{WeightG: g, LengthCm: 30, WidthCm: 20, HeightCm: 10})
}

func domesticShipment() carriers.Shipment {
	return carriers.Shipment{From: bonn(), To: cologne(), Parcel: metric(2500), ShipDate: time.Date(2026, 3, 11, 0, 0, 0, 0, time.UTC)}
}

func euShipment() carriers.Shipment {
	s := domesticShipment()
	s.To = paris()
	return s
}

func swissShipment() carriers.Shipment {
	s := domesticShipment()
	s.To = zurich()
	s.Parcel = metric(800)
	s.Customs = &carriers.Customs{ContentsType: carriers.ContentsMerchandise, ExporterTaxID: "DE123456789012345",
		Items: []carriers.CustomsItem{
			{Description: "Cotton T-shirt", Quantity: 3, ValueCents: 7500, WeightOz: 18, HSTariffNumber: "6109.10", OriginCountry: "PT"},
			{Description: "Enamel mug", Quantity: 1, ValueCents: 1999, WeightOz: 6},
		}}
	return s
}

// returnShipment is a return label: the customer in Vienna sends the
// parcel back to the shop in Bonn.
func returnShipment() carriers.Shipment {
	return carriers.Shipment{From: vienna(), To: bonn(), Parcel: metric(1200), Return: true}
}

func buyRequest(s carriers.Shipment, service string) carriers.BuyRequest {
	return carriers.BuyRequest{Reference: testReference, Shipment: s, Rate: carriers.Rate{Carrier: carrierName, Service: service}}
}

// carrierError asserts err is a *carriers.Error and returns it.
func carrierError(t *testing.T, err error) *carriers.Error {
	t.Helper()
	var ce *carriers.Error
	if !errors.As(err, &ce) {
		t.Fatalf("error %v (%T) is not a *carriers.Error", err, err)
	}
	return ce
}

// checkGolden compares a recorded JSON request with testdata/name, after
// indenting it; -update rewrites the file.
func checkGolden(t *testing.T, name string, body []byte) {
	t.Helper()
	if len(body) == 0 {
		t.Fatalf("%s: no request was recorded", name)
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, body, "", "  "); err != nil {
		t.Fatalf("%s: request is not JSON: %v", name, err)
	}
	buf.WriteByte('\n')
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), buf.String()); diff != "" {
		t.Errorf("%s mismatch (-golden +sent):\n%s", name, diff)
	}
}

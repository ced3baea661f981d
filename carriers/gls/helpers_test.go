package gls

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/gls/glsfake"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// testNow is a fixed clock: a Tuesday afternoon in Germany.
func testNow() time.Time { return time.Date(2026, 3, 10, 14, 4, 5, 0, time.UTC) }

// testCarrier is a Carrier wired to a fresh fake with a fixed clock; the
// counter counts OnTokenRefresh calls.
func testCarrier(t *testing.T) (*Carrier, *glsfake.Server, *atomic.Int64) {
	t.Helper()
	fake := glsfake.New(t)
	fake.SetNow(testNow)
	var refreshes atomic.Int64
	c, err := New(Config{ClientID: glsfake.ClientID, ClientSecret: glsfake.ClientSecret, ContactID: glsfake.ContactID,
		BaseURL: fake.URL(), HTTPClient: fake.Client(), Now: testNow, OnTokenRefresh: func() { refreshes.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	return c, fake, &refreshes
}

func berlin() carriers.Address {
	return carriers.Address{Name: "Ada Lovelace", Company: "Analytical Engines GmbH", Street1: "Friedrichstraße 123",
		City: "Berlin", Zip: "10117", Country: "DE", Phone: "+49 30 1234567", Email: "ada@example.com"}
}

func munich() carriers.Address {
	return carriers.Address{Name: "Grace Hopper", Street1: "Marienplatz 8", Street2: "3. OG", City: "München", Zip: "80331",
		Country: "de", Phone: "+49 170 1234567", Email: "grace@example.com", Residential: true}
}

func kg(k float64) carriers.Parcel {
	return carriers.MetricParcelOf(carriers.MetricParcel{WeightG: k * 1000, LengthCm: 30, WidthCm: 20, HeightCm: 10})
}

func domesticShipment() carriers.Shipment {
	return carriers.Shipment{From: berlin(), To: munich(), Parcel: kg(2.345), ShipDate: testNow()}
}

// switzerland is a shipment out of the EU's customs union, declared.
func switzerland() carriers.Shipment {
	s := domesticShipment()
	s.To = carriers.Address{Name: "Hedy Lamarr", Street1: "Bahnhofstrasse 1", City: "Zürich", Zip: "8001", Country: "CH", Phone: "+41 44 123 45 67"}
	s.Customs = &carriers.Customs{ContentsType: carriers.ContentsMerchandise, Items: []carriers.CustomsItem{
		{Description: "Notebook", Quantity: 2, ValueCents: 2400, WeightOz: 20, HSTariffNumber: "4820.10", OriginCountry: "DE"}}}
	return s
}

func buyRequest(s carriers.Shipment, service string) carriers.BuyRequest {
	return carriers.BuyRequest{Reference: "shp_0123456789abcdef01234567", Shipment: s, Rate: carriers.Rate{Carrier: "GLS", Service: service}}
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

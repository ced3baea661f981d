package dpd

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
	"github.com/shipd-dev/shipd/carriers/dpd/dpdfake"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// testNow is a fixed clock: a Tuesday afternoon in Germany.
func testNow() time.Time { return time.Date(2026, 3, 10, 14, 4, 5, 0, time.UTC) }

func testCarrier(t *testing.T) (*Carrier, *dpdfake.Server, *atomic.Int64) {
	t.Helper()
	fake := dpdfake.New(t)
	fake.SetNow(testNow)
	var logins atomic.Int64
	c, err := New(Config{Login: dpdfake.Login, Password: dpdfake.Password, BUCode: dpdfake.BUCode, CustomerID: dpdfake.CustomerID,
		BaseURL: fake.URL(), HTTPClient: fake.Client(), Now: testNow, OnTokenRefresh: func() { logins.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	return c, fake, &logins
}

func hamburg() carriers.Address {
	return carriers.Address{Name: "Ada Lovelace", Company: "Analytical Engines GmbH", Street1: "Jungfernstieg 7",
		City: "Hamburg", Zip: "20354", Country: "DE", Phone: "+49 40 1234567", Email: "ada@example.com"}
}

func cologne() carriers.Address {
	return carriers.Address{Name: "Grace Hopper", Street1: "Domkloster 4", Street2: "Hinterhaus", City: "Köln", Zip: "50667",
		Country: "de", Phone: "0221 123 45 67", Email: "grace@example.com", Residential: true}
}

func kg(k float64) carriers.Parcel {
	return carriers.MetricParcelOf(carriers.MetricParcel{WeightG: k * 1000, LengthCm: 30.2, WidthCm: 20, HeightCm: 10})
}

func domesticShipment() carriers.Shipment {
	return carriers.Shipment{From: hamburg(), To: cologne(), Parcel: kg(2.3451), ShipDate: testNow()}
}

// toLondon leaves the EU's customs union, declared.
func toLondon() carriers.Shipment {
	s := domesticShipment()
	s.To = carriers.Address{Name: "Tim Berners-Lee", Street1: "10 Downing Street", City: "London", Zip: "SW1A 2AA", Country: "GB", Phone: "+44 20 7946 0958"}
	s.Customs = &carriers.Customs{ContentsType: carriers.ContentsGift, Incoterm: carriers.IncotermDDP, Items: []carriers.CustomsItem{
		{Description: "Wool scarf", Quantity: 2, ValueCents: 4500, WeightOz: 10, HSTariffNumber: "6117.10", OriginCountry: "de"},
		{Description: "Book", Quantity: 1, ValueCents: 1999, WeightOz: 16, OriginCountry: "GB"}}}
	return s
}

func buyRequest(s carriers.Shipment, service string) carriers.BuyRequest {
	return carriers.BuyRequest{Reference: "shp_0123456789abcdef01234567", Shipment: s, Rate: carriers.Rate{Carrier: "DPD", Service: service}}
}

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

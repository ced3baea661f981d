package dhlexpress

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/apidoc"
	"github.com/shipd-dev/shipd/carriers/dhlexpress/dhlexpressfake"
)

var update = flag.Bool("update", false, "rewrite the golden request files in testdata/")

// testNow is the tests' clock, a Tuesday morning: it fixes the ship dates
// of the golden requests.
var testNow = time.Date(2026, 3, 3, 9, 30, 0, 0, time.UTC)

// newTestCarrier is a carrier at a fresh fake, its exchanges recorded.
func newTestCarrier(t *testing.T) (*Carrier, *dhlexpressfake.Server, *apidoc.Recorder) {
	t.Helper()
	fake := dhlexpressfake.New(t)
	fake.SetNow(func() time.Time { return testNow })
	rec := &apidoc.Recorder{Next: http.DefaultTransport}
	return carrierAt(t, fake.BaseURL(), &http.Client{Transport: rec, Timeout: 10 * time.Second}), fake, rec
}

// carrierAt is a carrier of the fake's credentials at base.
func carrierAt(t *testing.T, base string, client *http.Client) *Carrier {
	t.Helper()
	c, err := New(Config{Username: dhlexpressfake.Username, Password: dhlexpressfake.Password, AccountNumber: dhlexpressfake.AccountNumber,
		BaseURL: base, HTTPClient: client, Now: func() time.Time { return testNow }})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func addr(name, street, city, zip, country, phone string) carriers.Address {
	return carriers.Address{Name: name, Street1: street, City: city, Zip: zip, Country: country, Phone: phone}
}

var (
	berlin  = addr("Anna Schmidt", "Friedrichstr. 123", "Berlin", "10117", "DE", "+49 30 1234567")
	munich  = addr("Max Huber", "Marienplatz 8", "Munich", "80331", "DE", "+49 89 7654321")
	paris   = addr("Claire Martin", "9 Rue Simart", "Paris", "75018", "FR", "+33 1 23456789")
	newYork = carriers.Address{Name: "Grace Hopper", Company: "Acme Inc", Street1: "350 Fifth Avenue", Street2: "Suite 7", City: "New York",
		State: "NY", Zip: "10118", Country: "US", Phone: "+1 212 555 0100", Email: "grace@example.com"}
	// parcel is 1.5 kg in a 30 x 20 x 10 cm box (1.2 kg volumetric).
	parcel = carriers.MetricParcelOf(carriers.MetricParcel{WeightG: 1500, LengthCm: 30, WidthCm: 20, HeightCm: 10})
)

// goods is a declaration of two lines, the first classified.
func goods(incoterm string) *carriers.Customs {
	return &carriers.Customs{ContentsType: carriers.ContentsMerchandise, ContentsExplanation: "Watches and straps", Incoterm: incoterm,
		InvoiceNumber: "INV-42", Items: []carriers.CustomsItem{
			{Description: "Wrist watch", Quantity: 2, ValueCents: 25000, WeightOz: 8, HSTariffNumber: "9102.11", OriginCountry: "CH"},
			{Description: "Leather strap", Quantity: 3, ValueCents: 1000, WeightOz: 3, OriginCountry: "US"},
		}}
}

// The shipments of the golden requests.
func domestic() carriers.Shipment { return carriers.Shipment{From: berlin, To: munich, Parcel: parcel} }

func withinEU() carriers.Shipment {
	s := carriers.Shipment{From: berlin, To: paris, Parcel: parcel, Options: carriers.Options{SignatureConfirmation: true}}
	s.Customs = &carriers.Customs{ContentsType: carriers.ContentsMerchandise, Items: []carriers.CustomsItem{{Description: "Book", Quantity: 1, ValueCents: 2000, WeightOz: 20}}}
	return s
}

// usToEUDDP is goods from New York to Paris, duties paid by the shipper,
// with every registration number.
func usToEUDDP() carriers.Shipment {
	cu := goods(carriers.IncotermDDP)
	cu.ExporterEORI, cu.ImporterVAT, cu.IOSS, cu.ExporterTaxID = "DE123456789012345", "FR12345678901", "IM2500000042", "12-3456789"
	return carriers.Shipment{From: newYork, To: paris, Parcel: parcel, Customs: cu}
}

func threePieces() carriers.Shipment {
	s := withinEU()
	s.Options = carriers.Options{}
	second := carriers.MetricParcelOf(carriers.MetricParcel{WeightG: 2200})
	third := carriers.MetricParcelOf(carriers.MetricParcel{WeightG: 800, LengthCm: 20, WidthCm: 15, HeightCm: 5})
	s.Pieces = []carriers.Parcel{parcel, second, third}
	return s
}

// returned is a return label: the Paris customer sends the goods back to
// the Berlin merchant, whose account pays.
func returned() carriers.Shipment {
	s := carriers.Shipment{From: paris, To: berlin, Parcel: parcel, Return: true}
	return s
}

func buyRequest(ref string, s carriers.Shipment, service, currency string) carriers.BuyRequest {
	return carriers.BuyRequest{Reference: ref, Shipment: s,
		Rate: carriers.Rate{Carrier: Name, Service: service, CarrierRateCents: 5000, Currency: currency}}
}

// goldenMu serialises -update writes of tests running in parallel.
var goldenMu sync.Mutex

// checkGolden compares a request body with testdata/name, indented so
// that diffs read well.
func checkGolden(t *testing.T, name string, body []byte) {
	t.Helper()
	if len(body) == 0 {
		t.Fatalf("%s: no request body", name)
	}
	var got bytes.Buffer
	if err := json.Indent(&got, body, "", "  "); err != nil {
		t.Fatalf("%s: request body is not JSON: %v\n%s", name, err, body)
	}
	got.WriteByte('\n')
	path := filepath.Join("testdata", name)
	if *update {
		goldenMu.Lock()
		defer goldenMu.Unlock()
		if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./carriers/dhlexpress/ -run Golden -update to write it)", err)
	}
	if diff := cmp.Diff(string(want), got.String()); diff != "" {
		t.Errorf("%s: request body differs from the golden file (-want +got):\n%s", name, diff)
	}
}

// asCarrierError returns err as a *carriers.Error or fails the test.
func asCarrierError(t *testing.T, err error) *carriers.Error {
	t.Helper()
	var ce *carriers.Error
	if !errors.As(err, &ce) {
		t.Fatalf("error %v (%T) is not a *carriers.Error", err, err)
	}
	return ce
}

package ups

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
	"github.com/shipd-dev/shipd/carriers/ups/upsfake"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// testNow is a fixed clock: a Tuesday afternoon.
func testNow() time.Time { return time.Date(2026, 3, 10, 15, 4, 5, 0, time.UTC) }

// testCarrier is a Carrier wired to a fresh fake with a fixed clock; the
// returned counter counts OnTokenRefresh calls.
func testCarrier(t *testing.T) (*Carrier, *upsfake.Server, *atomic.Int64) {
	t.Helper()
	fake := upsfake.New(t)
	fake.SetNow(testNow)
	var refreshes atomic.Int64
	c, err := New(Config{
		ClientID:       upsfake.ClientID,
		ClientSecret:   upsfake.ClientSecret,
		AccountNumber:  upsfake.AccountNumber,
		BaseURL:        fake.URL(),
		HTTPClient:     fake.Client(),
		Now:            testNow,
		OnTokenRefresh: func() { refreshes.Add(1) },
	})
	if err != nil {
		t.Fatal(err)
	}
	return c, fake, &refreshes
}

func domesticShipment() carriers.Shipment {
	return carriers.Shipment{
		From: carriers.Address{
			Name: "Ada Lovelace", Company: "Analytical Engines", Street1: "2311 York Rd",
			City: "Timonium", State: "MD", Zip: "21093", Country: "US", Phone: "+1 (410) 555-0100",
		},
		To: carriers.Address{
			Name: "Grace Hopper", Street1: "355 West San Fernando Street", Street2: "Apt 4",
			City: "San Jose", State: "CA", Zip: "95113-1234", Country: "us", Phone: "408-555-0199",
			Residential: true,
		},
		// 24 oz is 1.5 LBS; 10 x 8 x 4 in weighs 3 lb dimensionally.
		Parcel: carriers.Parcel{LengthIn: 10, WidthIn: 8, HeightIn: 4.4, WeightOz: 24},
	}
}

func internationalShipment() carriers.Shipment {
	s := domesticShipment()
	s.To = carriers.Address{
		Name: "Tim Berners-Lee", Company: "W3C", Street1: "2004 Route des Lucioles",
		City: "Sophia Antipolis", Zip: "06410", Country: "FR", Phone: "+33 4 92 38 79 72",
	}
	s.Options.SignatureConfirmation = true
	s.Customs = &carriers.Customs{
		ContentsType: carriers.ContentsMerchandise,
		Items: []carriers.CustomsItem{
			{Description: "Cotton T-shirt", Quantity: 3, ValueCents: 7500, WeightOz: 18, HSTariffNumber: "6109.10", OriginCountry: "us"},
			{Description: "Enamel mug with a very long description that needs wrapping", Quantity: 1, ValueCents: 1999, WeightOz: 6, OriginCountry: "PT"},
		},
	}
	return s
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

// sameError compares the Kind of carriers.Error values by identity: the
// sentinels are compared, not their text.
func sameError() cmp.Option {
	return cmp.Comparer(func(a, b error) bool { return a == b })
}

// field reads a value from a recorded JSON request by path.
func field(t *testing.T, body []byte, path ...any) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("request is not JSON: %v", err)
	}
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("at %v: not an object", p)
			}
			v = m[k]
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				t.Fatalf("at %v: not an array long enough", p)
			}
			v = a[k]
		}
	}
	return v
}

package usps

import (
	"bytes"
	"encoding/json"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/usps/uspsfake"
)

var update = flag.Bool("update", false, "rewrite the golden request files under testdata/golden")

// testNow is the clock of adapter and fake: a Monday, so mailing dates and
// commitments are stable in golden files.
var testNow = time.Date(2026, 11, 2, 15, 0, 0, 0, time.UTC)

func fixedNow() time.Time { return testNow }

// newFake starts a fake USPS on the test clock.
func newFake(t *testing.T, opts ...uspsfake.Option) *uspsfake.Server {
	t.Helper()
	return uspsfake.New(t, append([]uspsfake.Option{uspsfake.WithClock(fixedNow)}, opts...)...)
}

func testConfig(fake *uspsfake.Server) Config {
	return Config{
		ClientID: uspsfake.ClientID, ClientSecret: uspsfake.ClientSecret,
		CRID: uspsfake.CRID, MID: uspsfake.MID, AccountNumber: uspsfake.AccountNumber,
		BaseURL: fake.URL(), HTTPClient: &http.Client{Timeout: 10 * time.Second}, Now: fixedNow,
	}
}

func newCarrier(t *testing.T, fake *uspsfake.Server) *Carrier {
	t.Helper()
	c, err := New(testConfig(fake))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func domesticShipment() carriers.Shipment {
	return carriers.Shipment{
		From: carriers.Address{Name: "Ada Lovelace", Company: "Analytical Engines", Street1: "4120 Bingham Ave",
			City: "St. Louis", State: "MO", Zip: "63116", Country: "US", Phone: "(314) 555-0100", Email: "ada@example.com"},
		To: carriers.Address{Name: "Joe Doe", Street1: "1100 Wyoming St", Street2: "Suite 150",
			City: "St. Louis", State: "MO", Zip: "63118-2628", Country: "US", Residential: true},
		// 24 oz is 1.5 lb.
		Parcel: carriers.Parcel{LengthIn: 10, WidthIn: 8, HeightIn: 4, WeightOz: 24},
	}
}

func internationalShipment() carriers.Shipment {
	s := domesticShipment()
	s.To = carriers.Address{Name: "Marie Tremblay", Street1: "100 Queen St W", City: "Toronto", State: "ON",
		Zip: "M5H 2N2", Country: "CA", Phone: "+14165550123"}
	s.Customs = &carriers.Customs{
		ContentsType: carriers.ContentsMerchandise, NonDeliveryOption: carriers.NonDeliveryReturn,
		Items: []carriers.CustomsItem{
			{Description: "Cotton T-shirt", Quantity: 2, ValueCents: 2500, WeightOz: 6, HSTariffNumber: "6109.10", OriginCountry: "US"},
			{Description: "Enamel mug with a very long description that USPS cuts", Quantity: 1, ValueCents: 1299, WeightOz: 10},
		},
	}
	return s
}

// asCarrierError returns err as a *carriers.Error or fails the test.
func asCarrierError(t *testing.T, err error) *carriers.Error {
	t.Helper()
	ce, ok := err.(*carriers.Error)
	if !ok {
		t.Fatalf("error %T %v is not a *carriers.Error", err, err)
	}
	return ce
}

// golden compares a request body with testdata/golden/name, pretty-printed;
// with -update it rewrites the file instead.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, got, "", "  "); err != nil {
		pretty.Reset()
		pretty.Write(got)
	}
	pretty.WriteByte('\n')
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, pretty.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./carriers/usps/ -run Golden -update)", err)
	}
	if diff := cmp.Diff(string(want), pretty.String()); diff != "" {
		t.Errorf("request %s differs from the golden file (-want +got):\n%s", name, diff)
	}
}

func readExample(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "examples", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

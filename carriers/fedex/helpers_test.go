package fedex

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
	"github.com/shipd-dev/shipd/carriers/fedex/fedexfake"
)

var update = flag.Bool("update", false, "rewrite the golden request files in testdata/")

// testNow is the adapter's clock in tests: it fixes the ship dates in the
// golden requests.
var testNow = time.Date(2026, 3, 2, 15, 4, 5, 0, time.UTC)

// newTestCarrier returns a fresh fake FedEx and a carrier configured for it.
func newTestCarrier(t *testing.T) (*Carrier, *fedexfake.Server) {
	t.Helper()
	fake := fedexfake.New(t)
	return carrierFor(t, fake, nil), fake
}

func carrierFor(t *testing.T, fake *fedexfake.Server, client *http.Client) *Carrier {
	t.Helper()
	c, err := New(Config{
		ClientID: fedexfake.ClientID, ClientSecret: fedexfake.ClientSecret, AccountNumber: fedexfake.AccountNumber,
		BaseURL: fake.URL(), HTTPClient: client, Now: func() time.Time { return testNow },
	})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

func sanFrancisco() carriers.Address {
	return carriers.Address{
		Name: "Ada Lovelace", Company: "Analytical Engines", Street1: "417 Montgomery St", Street2: "Floor 5",
		City: "San Francisco", State: "CA", Zip: "94104", Country: "US", Phone: "+1 (415) 555-0100", Email: "ada@example.com",
	}
}

func newYork() carriers.Address {
	return carriers.Address{
		Name: "Grace Hopper", Street1: "350 5th Ave", City: "New York", State: "ny", Zip: "10118", Country: "us",
		Phone: "212-555-0199",
	}
}

func london() carriers.Address {
	return carriers.Address{
		Name: "Charles Babbage", Street1: "1 Dorset St", City: "London", Zip: "W1U 4EG", Country: "GB",
		Phone: "+44 20 7946 0958",
	}
}

// domestic is 24 oz (1.5 LB) in a 10 x 7.5 x 4 in box (sent as 10 x 8 x 4).
func domestic() carriers.Shipment {
	return carriers.Shipment{
		From: sanFrancisco(), To: newYork(),
		Parcel: carriers.Parcel{LengthIn: 10, WidthIn: 7.5, HeightIn: 4, WeightOz: 24},
	}
}

func international() carriers.Shipment {
	return carriers.Shipment{
		From: sanFrancisco(), To: london(),
		Parcel: carriers.Parcel{WeightOz: 24},
		Customs: &carriers.Customs{
			ContentsType: carriers.ContentsMerchandise, NonDeliveryOption: carriers.NonDeliveryReturn,
			Items: []carriers.CustomsItem{
				{Description: "Cotton T-shirt", Quantity: 2, ValueCents: 2500, WeightOz: 12, HSTariffNumber: "6109.10", OriginCountry: "us"},
				{Description: "Mug", Quantity: 1, ValueCents: 1299, WeightOz: 10},
			},
		},
	}
}

func buyRequest(ref string, s carriers.Shipment, service string) carriers.BuyRequest {
	return carriers.BuyRequest{
		Reference: ref, Shipment: s,
		Rate: carriers.Rate{Carrier: Name, Service: service, CarrierRateCents: 1425, Currency: "USD"},
	}
}

// goldenMu serialises -update writes of tests running in parallel.
var goldenMu sync.Mutex

// checkGolden compares a request body the fake recorded with
// testdata/name, indented so that diffs read well.
func checkGolden(t *testing.T, name string, body []byte) {
	t.Helper()
	if len(body) == 0 {
		t.Fatalf("%s: the fake recorded no request body", name)
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
		t.Fatalf("%v (run go test ./carriers/fedex/ -run Golden -update to write it)", err)
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

package dhlexpress

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/apidoc"
	"github.com/shipd-dev/shipd/carriers/dhlexpress/dhlexpressfake"
	"github.com/shipd-dev/shipd/carriers/dhlexpress/spec"
	"github.com/shipd-dev/shipd/carriers/verifier"
)

// The tests in this file hold the adapter, and dhlexpressfake, to DHL's
// MyDHL API document vendored in carriers/dhlexpress/spec: every golden
// request must be one the document's operation accepts, and every request
// of the adapter's flows against the fake, and every answer the fake gives,
// must match the operation it was sent to. A problem the document reports
// is either fixed (in the adapter or the fake) or excused in
// spec.Exceptions, with the reason.

func loadDocument(t testing.TB) *apidoc.Excused {
	t.Helper()
	docs, err := spec.Checker()
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

// TestSpecGoldenRequests checks every golden request file against the
// operation the adapter sends it to. A new file in testdata/ must be added
// here.
func TestSpecGoldenRequests(t *testing.T) {
	t.Parallel()
	base := "/mydhlapi"
	sentTo := map[string]apidoc.GoldenRequest{
		"rate_domestic.json":     apidoc.Post(base + ratesPath),
		"rate_eu.json":           apidoc.Post(base + ratesPath),
		"rate_us_eu_ddp.json":    apidoc.Post(base + ratesPath),
		"rate_pieces.json":       apidoc.Post(base + ratesPath),
		"landed_cost_us_eu.json": apidoc.Post(base + landedCostPath),
		"ship_domestic.json":     apidoc.Post(base + shipmentsPath),
		"ship_eu.json":           apidoc.Post(base + shipmentsPath),
		"ship_us_eu_ddp.json":    apidoc.Post(base + shipmentsPath),
		"ship_pieces.json":       apidoc.Post(base + shipmentsPath),
		"ship_return.json":       apidoc.Post(base + shipmentsPath),
		"pickup.json":            apidoc.Post(base + pickupsPath),
	}
	loadDocument(t).CheckGoldenRequests(t, "testdata", "*.json", sentTo)
}

// TestSpecFlows runs the adapter's flows against the fake and checks every
// request and answer against the document, and that every operation the
// adapter calls was exercised.
func TestSpecFlows(t *testing.T) {
	t.Parallel()
	docs := loadDocument(t)
	ctx := context.Background()
	flows := []struct {
		name string
		run  func(t *testing.T, c *Carrier, fake *dhlexpressfake.Server, client func() *http.Client) error
	}{
		{"credentials", func(t *testing.T, c *Carrier, _ *dhlexpressfake.Server, _ func() *http.Client) error {
			return c.CheckCredentials(ctx)
		}},
		{"wrong credentials", func(t *testing.T, _ *Carrier, fake *dhlexpressfake.Server, client func() *http.Client) error {
			wrong, err := New(Config{Username: dhlexpressfake.Username, Password: "not-the-password", AccountNumber: dhlexpressfake.AccountNumber,
				BaseURL: fake.BaseURL(), HTTPClient: client()})
			if err != nil {
				return err
			}
			if err := wrong.CheckCredentials(ctx); !errors.Is(err, carriers.ErrFailed) {
				t.Errorf("wrong password: %v, want ErrFailed", err)
			}
			return nil
		}},
		{"rates domestic, EU, multi-piece", func(t *testing.T, c *Carrier, _ *dhlexpressfake.Server, _ func() *http.Client) error {
			for _, s := range []carriers.Shipment{domestic(), withinEU(), threePieces()} {
				if _, err := c.Rates(ctx, s); err != nil {
					return err
				}
			}
			return nil
		}},
		{"rates US to EU DDP (landed cost)", func(t *testing.T, c *Carrier, _ *dhlexpressfake.Server, _ func() *http.Client) error {
			_, err := c.Rates(ctx, usToEUDDP())
			return err
		}},
		{"rates where DHL sells nothing", func(t *testing.T, c *Carrier, _ *dhlexpressfake.Server, _ func() *http.Client) error {
			s := domestic()
			s.From, s.To = newYork, newYork
			if _, err := c.Rates(ctx, s); !errors.Is(err, carriers.ErrRejected) {
				t.Errorf("US domestic rates: %v, want DHL's refusal", err)
			}
			return nil
		}},
		{"buy, track, track many, void refused", func(t *testing.T, c *Carrier, _ *dhlexpressfake.Server, _ func() *http.Client) error {
			l, err := c.Buy(ctx, buyRequest("shp_0123456789abcdef01234510", usToEUDDP(), "ExpressWorldwide", "USD"))
			if err != nil {
				return err
			}
			if _, err := c.Track(ctx, l.TrackingNumber); err != nil {
				return err
			}
			if _, err := c.TrackMany(ctx, []string{l.TrackingNumber, "1999999999"}); err != nil {
				return err
			}
			if _, err := c.Void(ctx, carriers.VoidRequest{TrackingNumber: l.TrackingNumber}); !errors.Is(err, carriers.ErrRejected) {
				t.Errorf("void: %v, want the refusal", err)
			}
			return nil
		}},
		{"buy multi-piece, track a piece, a waybill never sold", func(t *testing.T, c *Carrier, _ *dhlexpressfake.Server, _ func() *http.Client) error {
			req := buyRequest("shp_0123456789abcdef01234511", threePieces(), "ExpressWorldwideEU", "EUR")
			req.LabelFormat = carriers.LabelZPL
			l, err := c.Buy(ctx, req)
			if err != nil {
				return err
			}
			if _, err := c.Track(ctx, l.Pieces[1]); err != nil {
				return err
			}
			if _, err := c.Track(ctx, "1999999999"); err != nil {
				return err
			}
			_, err = c.TrackMany(ctx, []string{"1999999998"})
			return err
		}},
		{"buy refused by DHL", func(t *testing.T, c *Carrier, _ *dhlexpressfake.Server, _ func() *http.Client) error {
			// DOMESTIC EXPRESS between two countries: DHL's 422.
			req := buyRequest("shp_0123456789abcdef01234512", withinEU(), "DomesticExpress", "EUR")
			if _, err := c.Buy(ctx, req); !errors.Is(err, carriers.ErrRejected) {
				t.Errorf("buy: %v, want DHL's refusal", err)
			}
			return nil
		}},
		{"find a purchase, and one never made", func(t *testing.T, c *Carrier, _ *dhlexpressfake.Server, _ func() *http.Client) error {
			req := buyRequest("shp_0123456789abcdef01234513", domestic(), "DomesticExpress", "EUR")
			if _, err := c.Buy(ctx, req); err != nil {
				return err
			}
			if _, found, err := c.FindPurchase(ctx, req); err != nil || !found {
				t.Errorf("FindPurchase: found %v, %v", found, err)
			}
			never := buyRequest("shp_0123456789abcdef01234514", domestic(), "DomesticExpress", "EUR")
			if _, found, err := c.FindPurchase(ctx, never); err != nil || found {
				t.Errorf("FindPurchase of a purchase never made: found %v, %v", found, err)
			}
			return nil
		}},
		{"pickup and cancel, twice", func(t *testing.T, c *Carrier, _ *dhlexpressfake.Server, _ func() *http.Client) error {
			req := pickupAt(berlin)
			conf, err := c.SchedulePickup(ctx, req)
			if err != nil {
				return err
			}
			cancel := carriers.PickupCancelRequest{ConfirmationNumber: conf.ConfirmationNumber, Address: req.Address}
			if err := c.CancelPickup(ctx, cancel); err != nil {
				return err
			}
			if err := c.CancelPickup(ctx, cancel); !errors.Is(err, carriers.ErrRejected) {
				t.Errorf("second cancel: %v, want ErrRejected", err)
			}
			return nil
		}},
		{"verify a served and an unserved address", func(t *testing.T, c *Carrier, _ *dhlexpressfake.Server, _ func() *http.Client) error {
			a := verifier.Address{Street1: "Friedrichstr. 123", City: "Berlin", Zip: "10117", Country: "DE"}
			if _, err := c.Verify(ctx, a); err != nil {
				return err
			}
			a.Zip = dhlexpressfake.NotServedPostalCode + "99"
			_, err := c.Verify(ctx, a)
			return err
		}},
	}
	seen := map[string]bool{}
	for _, f := range flows {
		fake := dhlexpressfake.New(t)
		fake.SetNow(func() time.Time { return testNow })
		recs := []*apidoc.Recorder{{Next: http.DefaultTransport}}
		client := func() *http.Client {
			recs = append(recs, &apidoc.Recorder{Next: http.DefaultTransport})
			return &http.Client{Transport: recs[len(recs)-1]}
		}
		c := carrierAt(t, fake.BaseURL(), &http.Client{Transport: recs[0]})
		if err := f.run(t, c, fake, client); err != nil {
			t.Errorf("%s: %v", f.name, err)
		}
		var exchanges []apidoc.Exchange
		for _, r := range recs {
			exchanges = append(exchanges, r.Exchanges()...)
		}
		ops := docs.CheckExchanges(t, exchanges, nil)
		for _, op := range ops {
			seen[op] = true
		}
		t.Logf("%s: %s", f.name, strings.Join(ops, "; "))
	}
	want := []string{
		spec.Document + " DELETE /pickups/{dispatchConfirmationNumber} (exp-api-pickups-cancel)",
		spec.Document + " GET /address-validate (exp-api-address-validate)",
		spec.Document + " GET /shipments/{shipmentTrackingNumber}/tracking (exp-api-shipments-tracking)",
		spec.Document + " GET /tracking (exp-api-shipments-tracking-multi)",
		spec.Document + " POST /landed-cost (exp-api-landed-cost)",
		spec.Document + " POST /pickups (exp-api-pickups)",
		spec.Document + " POST /rates (exp-api-rates-many)",
		spec.Document + " POST /shipments (exp-api-shipments)",
	}
	if diff := cmp.Diff(want, slices.Sorted(maps.Keys(seen))); diff != "" {
		t.Errorf("operations exercised (-want +got):\n%s", diff)
	}
}

// The checks can fail: the document refuses a golden request with a field
// it does not have, an incoterm outside its list or a missing required
// field, so a pass above means something.
func TestSpecRefusesWhatTheDocumentRefuses(t *testing.T) {
	t.Parallel()
	docs := loadDocument(t)
	body, err := os.ReadFile(filepath.Join("testdata", "ship_domestic.json"))
	if err != nil {
		t.Fatal(err)
	}
	for name, broken := range map[string]string{
		"unknown field":    strings.Replace(string(body), `"incoterm": "DAP"`, `"incoterm": "DAP", "shipdOnly": true`, 1),
		"incoterm":         strings.Replace(string(body), `"incoterm": "DAP"`, `"incoterm": "XYZ"`, 1),
		"required product": strings.Replace(string(body), `"productCode": "N",`, ``, 1),
	} {
		if broken == string(body) {
			t.Fatalf("%s: the golden file changed, the test no longer breaks it", name)
		}
		if err := docs.CheckRequestBody(http.MethodPost, "/mydhlapi"+shipmentsPath, "application/json", []byte(broken)); !errors.Is(err, apidoc.ErrMismatch) {
			t.Errorf("%s: %v, want a mismatch", name, err)
		}
	}
}

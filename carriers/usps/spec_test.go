package usps

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/apidoc"
	"github.com/shipd-dev/shipd/carriers/usps/spec"
	"github.com/shipd-dev/shipd/carriers/usps/uspsfake"
	"github.com/shipd-dev/shipd/carriers/verifier"
)

// The tests in this file hold the adapter, and uspsfake, to USPS's published
// OpenAPI documents vendored in carriers/usps/spec: every golden request
// must be one the document of its operation accepts, and every request of
// the adapter's flows against uspsfake, and every answer the fake gives,
// must match the operation it was sent to. A problem the documents report
// is either fixed (in the adapter or the fake) or excused in
// uspsExceptions, with the reason. USPS publishes no document for the OAuth
// token nor for Tracking's POST /tracking/v3r2/tracking: undocumentedChecks
// checks those two by hand.

func uspsDocuments(t testing.TB) *apidoc.Excused {
	t.Helper()
	docs, err := spec.Checker()
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

// undocumentedChecks check by hand, for each endpoint no vendored document
// covers, what the adapter relies on; the key is the request path.
func undocumentedChecks() apidoc.Undocumented {
	return apidoc.Undocumented{
		// OAuth 2.0 client credentials (developers.usps.com, Getting
		// Started): a form POST answered with a bearer token.
		tokenPath: func(t testing.TB, x apidoc.Exchange) {
			if ct := x.Request.Header.Get("Content-Type"); ct != "application/x-www-form-urlencoded" {
				t.Errorf("token request Content-Type %q", ct)
			}
			form, err := url.ParseQuery(string(x.RequestBody))
			if err != nil {
				t.Fatalf("token request: %v", err)
			}
			if form.Get("grant_type") != "client_credentials" || form.Get("client_id") == "" || form.Get("client_secret") == "" {
				t.Errorf("token request fields: grant_type %q, client_id and client_secret set: %v, %v",
					form.Get("grant_type"), form.Has("client_id"), form.Has("client_secret"))
			}
			var answer struct {
				AccessToken string          `json:"access_token"`
				TokenType   string          `json:"token_type"`
				ExpiresIn   json.RawMessage `json:"expires_in"`
			}
			if err := json.Unmarshal(x.Body, &answer); err != nil || answer.AccessToken == "" ||
				!strings.EqualFold(answer.TokenType, "bearer") || len(answer.ExpiresIn) == 0 {
				t.Errorf("token answer %d %s: not access_token, token_type bearer and expires_in (%v)", x.Status, x.Body, err)
			}
		},
		// Tracking 3.0's batch endpoint: an array of {trackingNumber},
		// answered with an array of details (200) or of details and
		// failures (207). tracking.yaml documents only the GET of v3.
		trackingPath: func(t testing.TB, x apidoc.Exchange) {
			var asked []struct {
				TrackingNumber string `json:"trackingNumber"`
			}
			if err := json.Unmarshal(x.RequestBody, &asked); err != nil || len(asked) == 0 || asked[0].TrackingNumber == "" {
				t.Errorf("tracking request %s (%v)", x.RequestBody, err)
			}
			if x.Status != http.StatusOK && x.Status != http.StatusMultiStatus {
				return // an error answer: the adapter reads it as errors are read
			}
			var answer []struct {
				TrackingNumber string `json:"trackingNumber"`
			}
			if err := json.Unmarshal(x.Body, &answer); err != nil || len(answer) != len(asked) {
				t.Errorf("tracking answer %d %s (%v)", x.Status, x.Body, err)
			}
		},
	}
}

// TestSpecGoldenRequests checks every golden request file against the
// operation the adapter sends it to. A new file in testdata/golden must be
// added here.
func TestSpecGoldenRequests(t *testing.T) {
	t.Parallel()
	docs := uspsDocuments(t)
	dir := filepath.Join("testdata", "golden")
	docs.CheckGoldenRequests(t, dir, "*.json", map[string]apidoc.GoldenRequest{
		"label_domestic.json":                apidoc.Post(labelPath),
		"label_international.json":           apidoc.Post(intlLabelPath),
		"label_return.json":                  apidoc.Post(returnLabelPath),
		"payment_authorization.json":         apidoc.Post(paymentPath),
		"rates_domestic.json":                apidoc.Post(optionsPath),
		"rates_international.json":           apidoc.Post(optionsPath),
		"rates_return.json":                  apidoc.Post(optionsPath),
		"rates_signature_no_dimensions.json": apidoc.Post(optionsPath),
	}, "address_query.json", "track.json") // checked below: a query, and a body no document covers
	read := func(name string) []byte {
		body, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return body
	}

	// The address golden is the query of a GET.
	var query url.Values
	if err := json.Unmarshal(read("address_query.json"), &query); err != nil {
		t.Fatal(err)
	}
	r, err := http.NewRequest(http.MethodGet, "http://usps.test"+addressPath+"?"+query.Encode(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := docs.CheckRequest(r, nil); err != nil {
		t.Errorf("address_query.json: %v", err)
	}

	// No document covers the tracking request: the same hand check as the
	// flows'.
	r, err = http.NewRequest(http.MethodPost, "http://usps.test"+trackingPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := docs.Operation(r); !errors.Is(err, apidoc.ErrUndocumented) {
		t.Errorf("%s is documented now (%v): check track.json against the document", trackingPath, err)
	}
	undocumentedChecks()[trackingPath](t, apidoc.Exchange{Request: r, RequestBody: read("track.json"), Status: http.StatusBadRequest})
}

// TestSpecFlows runs the adapter's flows against uspsfake and checks every
// request and answer against the documents.
func TestSpecFlows(t *testing.T) {
	t.Parallel()
	docs := uspsDocuments(t)
	ctx := context.Background()
	readyAt := time.Date(2026, 11, 3, 9, 0, 0, 0, time.UTC)
	pickup := carriers.PickupRequest{
		Reference: "pkp_0123456789abcdef01234567", Address: domesticShipment().From,
		ReadyAt: readyAt, CloseAt: readyAt.Add(8 * time.Hour), PackageCount: 2, TotalWeightOz: 64,
		Instructions: "Ring at the loading dock",
	}
	buy := func(c *Carrier, ref string, s carriers.Shipment, service string) (carriers.Label, error) {
		return c.Buy(ctx, carriers.BuyRequest{Reference: ref, Shipment: s, Rate: carriers.Rate{Carrier: "USPS", Service: service}})
	}
	flows := []struct {
		name string
		run  func(t *testing.T, c *Carrier) error
	}{
		{"token", func(t *testing.T, c *Carrier) error { return c.CheckCredentials(ctx) }},
		{"rates domestic, international, return", func(t *testing.T, c *Carrier) error {
			if _, err := c.Rates(ctx, domesticShipment()); err != nil {
				return err
			}
			if _, err := c.Rates(ctx, internationalShipment()); err != nil {
				return err
			}
			s := domesticShipment()
			s.Return = true
			_, err := c.Rates(ctx, s)
			return err
		}},
		{"buy domestic, track, void", func(t *testing.T, c *Carrier) error {
			s := domesticShipment()
			s.Options.SignatureConfirmation = true
			l, err := buy(c, "shp_0123456789abcdef01234567", s, "GroundAdvantage")
			if err != nil {
				return err
			}
			if _, err := c.Track(ctx, l.TrackingNumber); err != nil {
				return err
			}
			_, err = c.Void(ctx, carriers.VoidRequest{TrackingNumber: l.TrackingNumber, Reference: "shp_0123456789abcdef01234567"})
			return err
		}},
		{"buy international, void", func(t *testing.T, c *Carrier) error {
			l, err := buy(c, "shp_0123456789abcdef01234568", internationalShipment(), "PriorityMailInternational")
			if err != nil {
				return err
			}
			_, err = c.Void(ctx, carriers.VoidRequest{TrackingNumber: l.TrackingNumber, Reference: "shp_0123456789abcdef01234568"})
			return err
		}},
		{"buy return", func(t *testing.T, c *Carrier) error {
			s := domesticShipment()
			s.Return = true
			_, err := buy(c, "shp_0123456789abcdef01234569", s, "Priority")
			return err
		}},
		{"buy two, SCAN form", func(t *testing.T, c *Carrier) error {
			var labels []carriers.ManifestLabel
			for _, ref := range []string{"shp_0123456789abcdef0123456a", "shp_0123456789abcdef0123456b"} {
				l, err := buy(c, ref, domesticShipment(), "GroundAdvantage")
				if err != nil {
					return err
				}
				labels = append(labels, carriers.ManifestLabel{TrackingNumber: l.TrackingNumber})
			}
			_, err := c.Manifest(ctx, carriers.ManifestRequest{Reference: "man_0123456789abcdef01234567",
				From: domesticShipment().From, ShipDate: testNow, Labels: labels})
			return err
		}},
		{"verify", func(t *testing.T, c *Carrier) error {
			_, err := c.Verify(ctx, verifier.Address{Company: "Acme", Street1: "3120 M Street", Street2: "Suite 4",
				City: "Washington", State: "dc", Zip: "20007-3704", Country: "US"})
			return err
		}},
		{"pickup and cancel", func(t *testing.T, c *Carrier) error {
			conf, err := c.SchedulePickup(ctx, pickup)
			if err != nil {
				return err
			}
			return c.CancelPickup(ctx, carriers.PickupCancelRequest{Reference: pickup.Reference,
				ConfirmationNumber: conf.ConfirmationNumber, Location: conf.Location, Address: pickup.Address,
				ReadyAt: pickup.ReadyAt})
		}},
		// The fake's own answers to what it refuses or does not know are
		// answers too: they must be documented ones.
		{"track a number never sold, void twice", func(t *testing.T, c *Carrier) error {
			if _, err := c.Track(ctx, "9205590234567899999999"); err != nil {
				return err
			}
			l, err := buy(c, "shp_0123456789abcdef0123456c", domesticShipment(), "GroundAdvantage")
			if err != nil {
				return err
			}
			void := carriers.VoidRequest{TrackingNumber: l.TrackingNumber, Reference: "shp_0123456789abcdef0123456c"}
			if _, err := c.Void(ctx, void); err != nil {
				return err
			}
			_, _ = c.Void(ctx, void) // refused or reported as voided: the answer is what is checked
			return nil
		}},
		{"verify an address USPS does not know", func(t *testing.T, c *Carrier) error {
			// No house number: the fake finds no match (404).
			if _, err := c.Verify(ctx, verifier.Address{Street1: "Nowhere Rd", City: "St. Louis", State: "MO", Zip: "63116", Country: "US"}); err != nil {
				return err
			}
			return nil
		}},
		{"pickup where USPS does not come", func(t *testing.T, c *Carrier) error {
			p := pickup
			p.Address.Street1 = uspsfake.PickupIneligibleStreet
			if _, err := c.SchedulePickup(ctx, p); err == nil {
				t.Error("a pickup at an address without service was scheduled")
			}
			return nil
		}},
	}
	seen := map[string]bool{}
	for _, f := range flows {
		fake := newFake(t)
		rec := &apidoc.Recorder{Next: http.DefaultTransport}
		cfg := testConfig(fake)
		cfg.HTTPClient = &http.Client{Transport: rec, Timeout: 10 * time.Second}
		c, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		// The exchanges are checked even when the flow failed: the
		// document may say why the fake refused.
		if err := f.run(t, c); err != nil {
			t.Errorf("%s: %v", f.name, err)
		}
		ops := docs.CheckExchanges(t, rec.Exchanges(), undocumentedChecks())
		for _, op := range ops {
			seen[op] = true
		}
		t.Logf("%s: %s", f.name, strings.Join(ops, "; "))
	}
	// Every operation the adapter calls was exercised.
	want := []string{
		"addresses.yaml GET /address (get-address)",
		"carrier-pickup.yaml DELETE /carrier-pickup/{confirmationNumber} (delete-carrier-pickup-confirmation-number)",
		"carrier-pickup.yaml GET /carrier-pickup/{confirmationNumber} (get-carrier-pickup-confirmation-number)",
		"carrier-pickup.yaml POST /carrier-pickup (post-carrier-pickup)",
		"domestic-labels.yaml DELETE /label/{trackingNumber} (delete-label-by-tracking)",
		"domestic-labels.yaml POST /label (post-label)",
		"domestic-labels.yaml POST /return-label (post-return-label)",
		"international-labels.yaml DELETE /international-label/{trackingNumber} (delete-international-label-by-tracking)",
		"international-labels.yaml POST /international-label (post-international-label)",
		"no document: POST /oauth2/v3/token",
		"no document: POST /tracking/v3r2/tracking",
		"payments.yaml POST /payment-authorization (post-payments-payment-authorization)",
		"scan-forms.yaml POST /scan-form (post-scan-form)",
		"shipping-options.yaml POST /options/search (post-options-search)",
	}
	if diff := cmp.Diff(want, slices.Sorted(maps.Keys(seen))); diff != "" {
		t.Errorf("operations exercised (-want +got):\n%s", diff)
	}
}

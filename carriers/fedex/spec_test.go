package fedex

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/apidoc"
	"github.com/shipd-dev/shipd/carriers/fedex/fedexfake"
	"github.com/shipd-dev/shipd/carriers/fedex/spec"
)

// The tests in this file hold the adapter, and fedexfake, to FedEx's
// published OpenAPI documents vendored in carriers/fedex/spec: every golden
// request must be one the document of its operation accepts, and every
// request of the adapter's flows against fedexfake, and every answer the
// fake gives, must match the operation it was sent to. A problem the
// documents report is either fixed (in the adapter or the fake) or excused
// in fedexExceptions, with the reason. FedEx publishes no document for the
// OAuth token nor the Ground end-of-day close: checkUndocumented checks
// those two by hand.

func loadFedExDocuments(t *testing.T) *apidoc.Set {
	t.Helper()
	set, err := apidoc.Load(spec.FS(), spec.Names()...)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// undocumentedChecks check by hand, for each endpoint no vendored document
// covers, what the adapter relies on; the key is the request path.
func undocumentedChecks() map[string]func(t *testing.T, x apidoc.Exchange) {
	return map[string]func(t *testing.T, x apidoc.Exchange){
		// FedEx's Authorization API: a form POST, answered with a bearer
		// token (developer.fedex.com, API Authorization).
		tokenPath: func(t *testing.T, x apidoc.Exchange) {
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
				AccessToken string `json:"access_token"`
				TokenType   string `json:"token_type"`
				ExpiresIn   *int   `json:"expires_in"`
			}
			if err := json.Unmarshal(x.Body, &answer); err != nil || answer.AccessToken == "" ||
				!strings.EqualFold(answer.TokenType, "bearer") || answer.ExpiresIn == nil {
				t.Errorf("token answer %d %s: not access_token, token_type bearer and expires_in (%v)", x.Status, x.Body, err)
			}
		},
		// Ground End of Day Close (PUT /ship/v1/endofday/): FedEx's
		// reference, not in ship-api.json.
		endOfDayPath: func(t *testing.T, x apidoc.Exchange) {
			if x.Request.Method != http.MethodPut {
				t.Errorf("end of day sent as %s", x.Request.Method)
			}
			var req struct {
				AccountNumber         *struct{ Value string } `json:"accountNumber"`
				CloseReqType          string                  `json:"closeReqType"`
				GroundServiceCategory string                  `json:"groundServiceCategory"`
				CloseDate             string                  `json:"closeDate"`
				ReprintOption         string                  `json:"reprintOption"`
				TrackingNumber        string                  `json:"trackingNumber"`
			}
			err := json.Unmarshal(x.RequestBody, &req)
			// A close (GCDR), or a reprint of the close documents of the
			// close that took one shipment (RGCDR, BY_TRACKING_NUMBER).
			closing := req.CloseReqType == "GCDR" && req.ReprintOption == "" && req.TrackingNumber == ""
			reprint := req.CloseReqType == "RGCDR" && req.ReprintOption == "BY_TRACKING_NUMBER" && req.TrackingNumber != ""
			if err != nil || req.AccountNumber == nil || req.AccountNumber.Value == "" || !(closing || reprint) ||
				req.GroundServiceCategory != "GROUND" || !isoDate.MatchString(req.CloseDate) {
				t.Errorf("end of day request %s (%v)", x.RequestBody, err)
			}
			if x.Status >= 400 {
				// Refused (nothing to close): FedEx's error body.
				var refused struct {
					Errors []struct{ Code, Message string } `json:"errors"`
				}
				if err := json.Unmarshal(x.Body, &refused); err != nil || len(refused.Errors) == 0 || refused.Errors[0].Code == "" {
					t.Errorf("end of day refusal %d %s (%v)", x.Status, x.Body, err)
				}
				return
			}
			var answer endOfDayResponse
			if err := json.Unmarshal(x.Body, &answer); err != nil || answer.Output == nil || len(answer.Output.CloseDocuments) == 0 {
				t.Errorf("end of day answer %d %s (%v)", x.Status, x.Body, err)
			}
		},
	}
}

var isoDate = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

// checkExchanges checks every recorded exchange against the documents (or
// by hand, for the undocumented endpoints) and returns the operations they
// went to.
func checkExchanges(t *testing.T, set *apidoc.Set, exchanges []apidoc.Exchange) []string {
	t.Helper()
	excused := apidoc.Excusing(spec.Exceptions()...)
	var ops []string
	for _, x := range exchanges {
		op, err := set.Operation(x.Request)
		if errors.Is(err, apidoc.ErrUndocumented) {
			if check, ok := undocumentedChecks()[x.Request.URL.Path]; ok {
				check(t, x)
				ops = append(ops, "no document: "+x.Request.Method+" "+x.Request.URL.Path)
				continue
			}
		}
		if err != nil {
			t.Errorf("%s %s: %v", x.Request.Method, x.Request.URL.Path, err)
			continue
		}
		ops = append(ops, op.String())
		if err := apidoc.Except(set.CheckRequest(x.Request, x.RequestBody), excused); err != nil {
			t.Error(err)
		}
		if err := apidoc.Except(set.CheckResponse(x.Request, x.Status, x.Header, x.Body), excused); err != nil {
			t.Error(err)
		}
	}
	return ops
}

// TestSpecGoldenRequests checks every golden request file against the
// operation the adapter sends it to. A new file in testdata/ must be added
// here.
func TestSpecGoldenRequests(t *testing.T) {
	t.Parallel()
	set := loadFedExDocuments(t)
	type sent struct{ method, path string }
	sentTo := map[string]sent{
		"cancel.json":                 {http.MethodPut, cancelPath},
		"rate_domestic.json":          {http.MethodPost, ratePath},
		"rate_international.json":     {http.MethodPost, ratePath},
		"rate_international_ddp.json": {http.MethodPost, ratePath},
		"rate_pieces.json":            {http.MethodPost, ratePath},
		"ship_domestic.json":          {http.MethodPost, shipPath},
		"ship_international.json":     {http.MethodPost, shipPath},
		"ship_international_ddp.json": {http.MethodPost, shipPath},
		"ship_pieces.json":            {http.MethodPost, shipPath},
		"ship_return.json":            {http.MethodPost, shipPath},
		"track.json":                  {http.MethodPost, trackPath},
		"track_associated.json":       {http.MethodPost, associatedPath},
		"track_reference.json":        {http.MethodPost, referencePath},
	}
	// Not a request: rate-api.json's own example answer, which the parser
	// is tested with. It is not checked: it contradicts the document's
	// schema (operationalDetail's originLocationIds, commitDays and ten
	// more are scalars where the schema, and the answers karrio captured
	// from FedEx, have arrays).
	const reply = "rate_reply_documented.json"
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	if diff := cmp.Diff(slices.Sorted(maps.Keys(sentTo)), slices.DeleteFunc(names, func(n string) bool { return n == reply })); diff != "" {
		t.Errorf("golden files without an operation here, or gone (-here +testdata):\n%s", diff)
	}
	excused := apidoc.Excusing(spec.Exceptions()...)
	for name, to := range sentTo {
		body, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Error(err)
			continue
		}
		if err := apidoc.Except(set.CheckRequestBody(to.method, to.path, "application/json", body), excused); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestSpecFlows runs the adapter's flows against fedexfake and checks every
// request and answer against the documents.
func TestSpecFlows(t *testing.T) {
	t.Parallel()
	set := loadFedExDocuments(t)
	ctx := context.Background()
	readyAt := time.Date(2026, 3, 3, 9, 0, 0, 0, time.UTC)
	pickup := carriers.PickupRequest{
		Reference: "pkp_0123456789abcdef01234567", Address: sanFrancisco(),
		ReadyAt: readyAt, CloseAt: readyAt.Add(8 * time.Hour), PackageCount: 2, TotalWeightOz: 64,
		Instructions: "Ring at the loading dock",
	}
	flows := []struct {
		name string
		run  func(t *testing.T, c *Carrier) error
	}{
		{"token", func(t *testing.T, c *Carrier) error { return c.CheckCredentials(ctx) }},
		{"rates domestic", func(t *testing.T, c *Carrier) error {
			_, err := c.Rates(ctx, domestic())
			return err
		}},
		{"rates international", func(t *testing.T, c *Carrier) error {
			_, err := c.Rates(ctx, international())
			return err
		}},
		{"rates international DDP", func(t *testing.T, c *Carrier) error {
			_, err := c.Rates(ctx, ddpInternational())
			return err
		}},
		{"rates multi-piece", func(t *testing.T, c *Carrier) error {
			_, err := c.Rates(ctx, threePieces())
			return err
		}},
		{"buy domestic, track, void", func(t *testing.T, c *Carrier) error {
			l, err := c.Buy(ctx, buyRequest("shp_0123456789abcdef01234567", domestic(), "Ground"))
			if err != nil {
				return err
			}
			if _, err := c.Track(ctx, l.TrackingNumber); err != nil {
				return err
			}
			_, err = c.Void(ctx, carriers.VoidRequest{TrackingNumber: l.TrackingNumber, Reference: "shp_0123456789abcdef01234567"})
			return err
		}},
		{"buy international", func(t *testing.T, c *Carrier) error {
			_, err := c.Buy(ctx, buyRequest("shp_0123456789abcdef01234568", international(), "InternationalPriority"))
			return err
		}},
		{"buy international DDP", func(t *testing.T, c *Carrier) error {
			_, err := c.Buy(ctx, buyRequest("shp_0123456789abcdef01234569", ddpInternational(), "InternationalPriority"))
			return err
		}},
		{"buy return", func(t *testing.T, c *Carrier) error {
			s := domestic()
			s.Return = true
			_, err := c.Buy(ctx, buyRequest("shp_0123456789abcdef0123456a", s, "Ground"))
			return err
		}},
		{"buy multi-piece, track the pieces, void", func(t *testing.T, c *Carrier) error {
			l, err := c.Buy(ctx, buyRequest("shp_0123456789abcdef0123456b", threePieces(), "Ground"))
			if err != nil {
				return err
			}
			if _, err := c.TrackMany(ctx, []string{l.TrackingNumber}); err != nil {
				return err
			}
			_, err = c.Void(ctx, carriers.VoidRequest{TrackingNumber: l.TrackingNumber, Reference: "shp_0123456789abcdef0123456b", Pieces: l.Pieces})
			return err
		}},
		{"find a purchase, and one never made", func(t *testing.T, c *Carrier) error {
			req := buyRequest("shp_0123456789abcdef0123456c", domestic(), "Ground")
			if _, err := c.Buy(ctx, req); err != nil {
				return err
			}
			if _, found, err := c.FindPurchase(ctx, req); err != nil || !found {
				t.Errorf("FindPurchase: found %v, %v", found, err)
			}
			never := buyRequest("shp_0123456789abcdef0123456d", domestic(), "Ground")
			if _, found, err := c.FindPurchase(ctx, never); err != nil || found {
				t.Errorf("FindPurchase of a purchase never made: found %v, %v", found, err)
			}
			return nil
		}},
		// The fake's own answers to what it refuses or does not know are
		// answers too: they must be documented ones.
		{"track a number never sold, void twice", func(t *testing.T, c *Carrier) error {
			if _, err := c.TrackMany(ctx, []string{"794699999999", "794688888888"}); err != nil {
				return err
			}
			l, err := c.Buy(ctx, buyRequest("shp_0123456789abcdef0123456e", domestic(), "Ground"))
			if err != nil {
				return err
			}
			void := carriers.VoidRequest{TrackingNumber: l.TrackingNumber, Reference: "shp_0123456789abcdef0123456e"}
			if _, err := c.Void(ctx, void); err != nil {
				return err
			}
			if _, err := c.Void(ctx, void); !errors.Is(err, carriers.ErrRejected) {
				t.Errorf("second void: %v, want ErrRejected", err)
			}
			return nil
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
		{"pickup where FedEx does not come", func(t *testing.T, c *Carrier) error {
			p := pickup
			p.Address.Zip = fedexfake.PickupNoServicePostal
			if _, err := c.SchedulePickup(ctx, p); err == nil {
				t.Error("a pickup at an address without service was scheduled")
			}
			return nil
		}},
		{"ground close, its answer lost, resumed", func(t *testing.T, c *Carrier) error {
			l, err := c.Buy(ctx, buyRequest("shp_0123456789abcdef01234570", domestic(), "Ground"))
			if err != nil {
				return err
			}
			req := carriers.ManifestRequest{Reference: "man_0123456789abcdef01234568", From: sanFrancisco(),
				ShipDate: time.Now(), Labels: []carriers.ManifestLabel{{TrackingNumber: l.TrackingNumber}}}
			if _, err := c.Manifest(ctx, req); err != nil {
				return err
			}
			req.Resumed = true
			form, err := c.Manifest(ctx, req)
			if err == nil && (!form.Recovered || len(form.PDF) == 0) {
				t.Errorf("the resumed close: %+v, want the close's documents reprinted", form)
			}
			return err
		}},
		{"ground close", func(t *testing.T, c *Carrier) error {
			l, err := c.Buy(ctx, buyRequest("shp_0123456789abcdef0123456f", domestic(), "Ground"))
			if err != nil {
				return err
			}
			_, err = c.Manifest(ctx, carriers.ManifestRequest{Reference: "man_0123456789abcdef01234567", From: sanFrancisco(),
				ShipDate: time.Now(), Labels: []carriers.ManifestLabel{{TrackingNumber: l.TrackingNumber}}})
			return err
		}},
	}
	// The ground close runs on the fake's clock, time.Now: the fake closes
	// the labels it sold on the close's date.
	realClock := map[string]bool{"ground close": true, "ground close, its answer lost, resumed": true}
	seen := map[string]bool{}
	for _, f := range flows {
		fake := fedexfake.New(t)
		rec := &apidoc.Recorder{Next: http.DefaultTransport}
		now := func() time.Time { return testNow }
		if realClock[f.name] {
			now = time.Now
		}
		c, err := New(Config{ClientID: fedexfake.ClientID, ClientSecret: fedexfake.ClientSecret, AccountNumber: fedexfake.AccountNumber,
			BaseURL: fake.URL(), HTTPClient: &http.Client{Transport: rec}, Now: now})
		if err != nil {
			t.Fatal(err)
		}
		// The exchanges are checked even when the flow failed: the
		// document may say why the fake refused.
		if err := f.run(t, c); err != nil {
			t.Errorf("%s: %v", f.name, err)
		}
		ops := checkExchanges(t, set, rec.Exchanges())
		for _, op := range ops {
			seen[op] = true
		}
		t.Logf("%s: %s", f.name, strings.Join(ops, "; "))
	}
	// Every operation the adapter calls was exercised.
	want := []string{
		"no document: POST /oauth/token",
		"no document: PUT /ship/v1/endofday/",
		"pickup-api.json POST /pickup/v1/pickups (Create Pickup)",
		"pickup-api.json PUT /pickup/v1/pickups/cancel (Cancel Pickup)",
		"rate-api.json POST /rate/v1/rates/quotes (Rate and Transit times)",
		"ship-api.json POST /ship/v1/shipments (Create Shipment)",
		"ship-api.json PUT /ship/v1/shipments/cancel (Cancel Shipment)",
		"track.json POST /track/v1/associatedshipments (Track Multiple Piece Shipment)",
		"track.json POST /track/v1/referencenumbers (Track by References)",
		"track.json POST /track/v1/trackingnumbers (Track by Tracking Number)",
	}
	if diff := cmp.Diff(want, slices.Sorted(maps.Keys(seen))); diff != "" {
		t.Errorf("operations exercised (-want +got):\n%s", diff)
	}
}

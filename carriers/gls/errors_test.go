package gls

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/gls/glsfake"
	"github.com/shipd-dev/shipd/carriers/oauth"
)

// Every way a GLS answer can go wrong has its class: a refusal is
// ErrRejected with GLS's code and message (ShipIT's headers), a pause or
// an outage ErrUnavailable (Retry-After honoured), GLS failing or answering
// what is not documented ErrFailed.
func TestBuyFailures(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		f    glsfake.Failure
		want carriers.Error
		msg  string // a fragment of the message, for parse failures
	}{
		{name: "ShipIT refusal", f: glsfake.Fault(400, "ERROR_CONSIGNEE_ZIPCODE", "Zipcode 99999 is not valid for DE"),
			want: carriers.Error{HTTPStatus: 400, Code: "ERROR_CONSIGNEE_ZIPCODE", Message: "Zipcode 99999 is not valid for DE", Kind: carriers.ErrRejected}},
		{name: "429 with Retry-After", f: glsfake.Failure{Status: 429, Body: `{"fault":{"faultstring":"Rate limit quota violation","detail":{"errorcode":"policies.ratelimit.QuotaViolation"}}}`, Header: http.Header{"Retry-After": {"7"}}},
			want: carriers.Error{HTTPStatus: 429, Code: "policies.ratelimit.QuotaViolation", Message: "Rate limit quota violation", RetryAfter: 7 * time.Second, Kind: carriers.ErrUnavailable}},
		{name: "503", f: glsfake.Failure{Status: 503},
			want: carriers.Error{HTTPStatus: 503, Message: "HTTP 503 with an empty body", Kind: carriers.ErrUnavailable}},
		{name: "504 from the gateway", f: glsfake.Failure{Status: 504, ContentType: "text/html", Body: "<html>timeout</html>"},
			want: carriers.Error{HTTPStatus: 504, Message: "HTTP 504 with a 20-byte text/html body that is not a GLS error", Kind: carriers.ErrUnavailable}},
		{name: "500", f: glsfake.Fault(500, "ERROR_INTERNAL", "internal error"),
			want: carriers.Error{HTTPStatus: 500, Code: "ERROR_INTERNAL", Message: "internal error", Kind: carriers.ErrFailed}},
		{name: "403", f: glsfake.Failure{Status: 403, Body: `{"fault":{"faultstring":"Invalid ApiKey for given resource","detail":{"errorcode":"oauth.v2.InvalidApiKeyForGivenResource"}}}`},
			want: carriers.Error{HTTPStatus: 403, Code: "oauth.v2.InvalidApiKeyForGivenResource", Message: "Invalid ApiKey for given resource", Kind: carriers.ErrFailed}},
		{name: "a redirect", f: glsfake.Failure{Status: 302, Header: http.Header{"Location": {"https://elsewhere.example/x"}}},
			want: carriers.Error{HTTPStatus: 302, Kind: carriers.ErrFailed}, msg: "redirect to elsewhere.example"},
		{name: "not JSON", f: glsfake.Failure{Status: 200, ContentType: "text/html", Body: "<html>maintenance</html>"},
			want: carriers.Error{HTTPStatus: 200, Kind: carriers.ErrFailed}, msg: "not the documented JSON"},
		{name: "no CreatedShipment", f: glsfake.Failure{Status: 200, Body: `{}`},
			want: carriers.Error{HTTPStatus: 200, Kind: carriers.ErrFailed}, msg: "no CreatedShipment"},
		{name: "wrong types", f: glsfake.Failure{Status: 200, Body: `{"CreatedShipment":{"ParcelData":[{"TrackID":7}]}}`},
			want: carriers.Error{HTTPStatus: 200, Kind: carriers.ErrFailed}, msg: "CreatedShipment.ParcelData.TrackID is a number where a string is expected"},
		{name: "oversized", f: glsfake.Failure{Status: 200, Body: `{"x":"` + strings.Repeat("a", carriers.MaxAnswerBytes) + `"}`},
			want: carriers.Error{HTTPStatus: 200, Kind: carriers.ErrFailed}, msg: "larger than"},
		{name: "cut off", f: glsfake.Failure{Status: 200, Body: `{"CreatedShipment":`, Truncate: true},
			want: carriers.Error{HTTPStatus: 200, Kind: carriers.ErrUnavailable}, msg: "cut off"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, fake, _ := testCarrier(t)
			fake.Fail(glsfake.OpShip, tc.f)
			_, err := c.Buy(context.Background(), buyRequest(domesticShipment(), "Parcel"))
			got := *carrierError(t, err)
			if tc.msg != "" {
				if !strings.Contains(got.Message, tc.msg) {
					t.Errorf("message %q does not contain %q", got.Message, tc.msg)
				}
				got.Message = ""
			}
			tc.want.Carrier, tc.want.Operation = "GLS", opBuy
			if diff := cmp.Diff(tc.want, got, cmp.Comparer(func(a, b error) bool { return a == b })); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

// A 2xx whose labels cannot be used is a sale to void: the parcels it
// names are what was sold; one that names nothing leaves the flow to ask.
func TestBuyUnusable(t *testing.T) {
	t.Parallel()
	c, fake, _ := testCarrier(t)
	fake.Fail(glsfake.OpShip, glsfake.Failure{Status: 200, ContentType: "application/glsVersion1+json",
		Body: `{"CreatedShipment":{"ParcelData":[{"TrackID":"ZX000001","ParcelNumber":"90000000007"}],"PrintData":[{"Data":["bm90IGEgcGRm"],"LabelFormat":"PDF"}],"CustomerID":"1","PickupLocation":"x"}}`})
	_, err := c.Buy(context.Background(), buyRequest(domesticShipment(), "Parcel"))
	sold, ok := carriers.SoldUnusable(err)
	if !ok || sold.TrackingNumber != "90000000007" || sold.CarrierShipmentID != "ZX000001" || !strings.Contains(err.Error(), "not a PDF") {
		t.Fatalf("unusable: %+v %v, %v", sold, ok, err)
	}
	fake.Fail(glsfake.OpShip, glsfake.Failure{Status: 200, Body: `{"CreatedShipment":{"PrintData":[]}}`})
	_, err = c.Buy(context.Background(), buyRequest(domesticShipment(), "Parcel"))
	if sold, ok := carriers.SoldUnusable(err); !ok || sold.TrackingNumber != "" {
		t.Errorf("nothing named: %+v %v, %v", sold, ok, err)
	}
}

// What GLS would refuse is refused before it is called.
func TestBuyRefusedBeforeCalling(t *testing.T) {
	t.Parallel()
	c, fake, _ := testCarrier(t)
	noName := domesticShipment()
	noName.To.Name, noName.To.Company = "", " "
	heavy := domesticShipment()
	heavy.Parcel = kg(41)
	pieces := domesticShipment()
	pieces.Pieces = []carriers.Parcel{kg(1), kg(1)}
	for name, req := range map[string]carriers.BuyRequest{
		"no consignee name":  buyRequest(noName, "Parcel"),
		"41 kg":              buyRequest(heavy, "Parcel"),
		"an unknown service": buyRequest(domesticShipment(), "Freight"),
		"a letter page": func() carriers.BuyRequest {
			r := buyRequest(domesticShipment(), "Parcel")
			r.LabelSize = carriers.LabelLetter
			return r
		}(),
		"PNG of 2 parcels": func() carriers.BuyRequest {
			r := buyRequest(pieces, "Parcel")
			r.LabelFormat = carriers.LabelPNG
			return r
		}(),
		"a return": func() carriers.BuyRequest {
			r := buyRequest(domesticShipment(), "Parcel")
			r.Shipment.Return = true
			return r
		}(),
		"no reference": func() carriers.BuyRequest { r := buyRequest(domesticShipment(), "Parcel"); r.Reference = ""; return r }(),
	} {
		if _, err := c.Buy(context.Background(), req); !errors.Is(err, carriers.ErrRejected) {
			t.Errorf("%s: %v, want a refusal", name, err)
		}
	}
	if n := fake.Requests(glsfake.OpShip) + fake.TokenRequests(); n != 0 {
		t.Errorf("%d calls to GLS", n)
	}
	if _, err := c.Buy(context.Background(), buyRequest(noName, "Parcel")); !strings.Contains(err.Error(), "toAddress.name") {
		t.Errorf("the refusal names the field: %v", err)
	}
}

// One token serves every call until it nears its end; a 401 refreshes it
// once; refused credentials are ErrFailed.
func TestTokens(t *testing.T) {
	t.Parallel()
	c, fake, refreshes := testCarrier(t)
	ctx := context.Background()
	for range 3 {
		if _, err := c.Rates(ctx, domesticShipment()); err != nil {
			t.Fatal(err)
		}
	}
	if n := fake.TokenRequests(); n != 1 || refreshes.Load() != 1 {
		t.Errorf("%d token requests, %d refreshes for 3 calls", n, refreshes.Load())
	}
	if id, secret, ok := func() (string, string, bool) {
		r, _ := http.NewRequest("GET", "/", nil)
		r.Header = fake.LastHeader(glsfake.OpToken)
		return r.BasicAuth()
	}(); !ok || id != glsfake.ClientID || secret != glsfake.ClientSecret {
		t.Errorf("the token request's Basic credentials: %q %v", id, ok)
	}
	fake.ExpireTokens()
	if _, err := c.Rates(ctx, domesticShipment()); err != nil || fake.TokenRequests() != 2 {
		t.Errorf("after the token expired: %v, %d token requests", err, fake.TokenRequests())
	}
	bad, err := New(Config{ClientID: glsfake.ClientID, ClientSecret: "wrong", ContactID: glsfake.ContactID, BaseURL: fake.URL(), HTTPClient: fake.Client(), Now: testNow})
	if err != nil {
		t.Fatal(err)
	}
	err = bad.CheckCredentials(ctx)
	if ce := carrierError(t, err); !errors.Is(err, carriers.ErrFailed) || ce.Operation != oauth.OpToken || ce.Message != oauth.MsgCredentialsRefused {
		t.Errorf("wrong secret: %#v", ce)
	}
	if err := c.CheckCredentials(ctx); err != nil {
		t.Errorf("good credentials: %v", err)
	}
}

const (
	leakSecret  = "s3cr3t-gls-client-secret"
	leakToken   = "tok-VERY-SECRET-GLS-TOKEN-42"
	leakContact = "276z9y8x7w"
)

func leaky(s string) []string {
	var found []string
	for _, secret := range []string{leakSecret, leakToken, leakContact} {
		if strings.Contains(s, secret) {
			found = append(found, secret)
		}
	}
	return found
}

// A hostile GLS that echoes the token, the secret, the contact id and the
// Basic header in its errors has them redacted from every error.
func TestNoSecretInErrors(t *testing.T) {
	t.Parallel()
	for _, tokenStatus := range []int{http.StatusOK, http.StatusBadRequest, http.StatusInternalServerError} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			echo := fmt.Sprintf("auth=%q secret=%s contact=%s", r.Header.Get("Authorization"), leakSecret, leakContact)
			if r.URL.Path == tokenPath {
				if tokenStatus != http.StatusOK {
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(tokenStatus)
					_ = json.NewEncoder(w).Encode(map[string]any{"errors": []any{map[string]string{"message": echo, "type": leakSecret}}})
					return
				}
				_ = json.NewEncoder(w).Encode(map[string]any{"access_token": leakToken, "expires_in": 3600, "token_type": "Bearer"})
				return
			}
			w.Header().Set("error", leakContact)
			w.Header().Set("message", echo)
			w.WriteHeader(http.StatusBadRequest)
		}))
		t.Cleanup(srv.Close)
		c, err := New(Config{ClientID: "client-id", ClientSecret: leakSecret, ContactID: leakContact, BaseURL: srv.URL, HTTPClient: srv.Client(), Now: testNow})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		var errs []error
		_, err = c.Rates(ctx, domesticShipment())
		errs = append(errs, err)
		_, err = c.Buy(ctx, buyRequest(domesticShipment(), "Parcel"))
		errs = append(errs, err)
		_, err = c.Void(ctx, carriers.VoidRequest{TrackingNumber: "12345678901", CarrierShipmentID: "ZX000001"})
		errs = append(errs, err)
		_, err = c.Track(ctx, "12345678901")
		errs = append(errs, err)
		_, err = c.Manifest(ctx, carriers.ManifestRequest{Labels: []carriers.ManifestLabel{{TrackingNumber: "12345678901"}}})
		errs = append(errs, err)
		for i, err := range errs {
			ce := carrierError(t, err)
			for _, s := range []string{err.Error(), fmt.Sprintf("%+v", ce), ce.Code, ce.Message} {
				if l := leaky(s); l != nil {
					t.Errorf("token %d, call %d: %q leaks %v", tokenStatus, i, s, l)
				}
			}
		}
		if tokenStatus == http.StatusOK && !strings.Contains(errs[0].Error(), carriers.Redacted) {
			t.Errorf("the echoed secrets were not redacted but dropped: %v", errs[0])
		}
	}
}

func TestNoSecretWhenPrinted(t *testing.T) {
	t.Parallel()
	cfg := Config{ClientID: "client-id", ClientSecret: leakSecret, ContactID: leakContact, BaseURL: "https://example.test"}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("config", "gls", cfg, "carrier", c)
	for _, s := range []string{fmt.Sprintf("%v", cfg), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg), fmt.Sprintf("%v", c),
		fmt.Sprintf("%+v", c), fmt.Sprintf("%#v", c), logged.String()} {
		if l := leaky(s); l != nil {
			t.Errorf("%q leaks %v", s, l)
		}
	}
}

func TestNewRefusesIncompleteConfig(t *testing.T) {
	t.Parallel()
	for name, cfg := range map[string]Config{
		"no client id":        {ClientSecret: "s", ContactID: "276a45fkqM"},
		"no secret":           {ClientID: "i", ContactID: "276a45fkqM"},
		"no contact id":       {ClientID: "i", ClientSecret: "s"},
		"contact id with ;":   {ClientID: "i", ClientSecret: "s", ContactID: "276a;45fkq"},
		"base URL with path":  {ClientID: "i", ClientSecret: "s", ContactID: "276a45fkqM", BaseURL: "https://api.gls-group.net/shipit-farm"},
		"base URL not http":   {ClientID: "i", ClientSecret: "s", ContactID: "276a45fkqM", BaseURL: "ftp://gls"},
		"secret leak attempt": {ClientID: "i", ClientSecret: leakSecret, ContactID: leakContact + "!"},
	} {
		_, err := New(cfg)
		if !errors.Is(err, ErrConfig) {
			t.Errorf("%s: %v, want ErrConfig", name, err)
			continue
		}
		if l := leaky(err.Error()); l != nil {
			t.Errorf("%s: %v leaks %v", name, err, l)
		}
	}
	c, err := New(Config{ClientID: "i", ClientSecret: "s", ContactID: " 276a45fkqM "})
	if err != nil || c.baseURL != ProductionURL || c.contactID != "276a45fkqM" || c.client.Timeout != carriers.DefaultTimeout || c.Name() != "GLS" {
		t.Errorf("defaults: %+v, %v", c, err)
	}
}

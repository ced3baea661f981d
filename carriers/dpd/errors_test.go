package dpd

import (
	"bytes"
	"context"
	"encoding/base64"
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
	"github.com/shipd-dev/shipd/carriers/dpd/dpdfake"
	"github.com/shipd-dev/shipd/carriers/oauth"
)

func TestBuyFailures(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		f    dpdfake.Failure
		want carriers.Error
		msg  string
	}{
		{name: "a BU refusal", f: dpdfake.Failure{Status: 400, Body: dpdfake.ErrorBody("ZIP_INVALID", "Invalid zip code 99999", "BU-API")},
			want: carriers.Error{HTTPStatus: 400, Code: "ZIP_INVALID", Message: "business unit: Invalid zip code 99999", Kind: carriers.ErrRejected}},
		{name: "an array of errors", f: dpdfake.Failure{Status: 400, Body: `[{"errorCode":"E1","errorMessage":"street is mandatory"},{"errorCode":"E2","errorMessage":"city is mandatory"}]`},
			want: carriers.Error{HTTPStatus: 400, Code: "E1", Message: "street is mandatory; city is mandatory", Kind: carriers.ErrRejected}},
		{name: "BU timeout", f: dpdfake.Failure{Status: 408, Body: dpdfake.ErrorBody("TIMEOUT", "BU Request Timeout", "META-API")},
			want: carriers.Error{HTTPStatus: 408, Code: "TIMEOUT", Message: "BU Request Timeout", Kind: carriers.ErrUnavailable}},
		{name: "429", f: dpdfake.Failure{Status: 429, Header: http.Header{"Retry-After": {"30"}}},
			want: carriers.Error{HTTPStatus: 429, Message: "HTTP 429 with an empty body", RetryAfter: 30 * time.Second, Kind: carriers.ErrUnavailable}},
		{name: "500", f: dpdfake.Failure{Status: 500, Body: dpdfake.ErrorBody("INTERNAL", "Unexpected error", "META-API")},
			want: carriers.Error{HTTPStatus: 500, Code: "INTERNAL", Message: "Unexpected error", Kind: carriers.ErrFailed}},
		{name: "HTML", f: dpdfake.Failure{Status: 502, ContentType: "text/html", Body: "<html>bad gateway</html>"},
			want: carriers.Error{HTTPStatus: 502, Message: "HTTP 502 with a 24-byte text/html body that is not a DPD error", Kind: carriers.ErrFailed}},
		{name: "not JSON", f: dpdfake.Failure{Status: 200, Body: "{"},
			want: carriers.Error{HTTPStatus: 200, Kind: carriers.ErrFailed}, msg: "not the documented JSON"},
		{name: "no parcel ids", f: dpdfake.Failure{Status: 200, Body: `{"label":{"base64Data":"JVBERi0="}}`},
			want: carriers.Error{HTTPStatus: 200, Kind: carriers.ErrFailed}, msg: "no parcelIds"},
		{name: "no label", f: dpdfake.Failure{Status: 200, Body: `{"shipmentId":"05308877770001","parcelIds":["05308877770001"]}`},
			want: carriers.Error{HTTPStatus: 200, Kind: carriers.ErrFailed}, msg: "no label"},
		{name: "a label that is no PDF", f: dpdfake.Failure{Status: 200, Body: `{"parcelIds":["05308877770001"],"label":{"base64Data":"` + base64.StdEncoding.EncodeToString([]byte("^XA^XZ")) + `"}}`},
			want: carriers.Error{HTTPStatus: 200, Kind: carriers.ErrFailed}, msg: "not a PDF"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, fake, _ := testCarrier(t)
			fake.Fail(dpdfake.OpShipment, tc.f)
			_, err := c.Buy(context.Background(), buyRequest(domesticShipment(), "Classic"))
			got := *carrierError(t, err)
			if tc.msg != "" {
				if !strings.Contains(got.Message, tc.msg) {
					t.Errorf("message %q does not contain %q", got.Message, tc.msg)
				}
				got.Message = ""
			}
			tc.want.Carrier, tc.want.Operation = "DPD", opBuy
			if diff := cmp.Diff(tc.want, got, cmp.Comparer(func(a, b error) bool { return a == b })); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

// A label sold whose document cannot be used is voided by its parcel id;
// an answer that names no parcel leaves the flow to find it (it cannot:
// the META-API has no lookup).
func TestBuyUnusable(t *testing.T) {
	t.Parallel()
	c, fake, _ := testCarrier(t)
	fake.Fail(dpdfake.OpShipment, dpdfake.Failure{Status: 200, Body: `{"shipmentId":"S1","parcelIds":["05308877770001"],"label":{"base64Data":"bm90IGEgcGRm"}}`})
	_, err := c.Buy(context.Background(), buyRequest(domesticShipment(), "Classic"))
	if sold, ok := carriers.SoldUnusable(err); !ok || sold.TrackingNumber != "05308877770001" || sold.CarrierShipmentID != "S1" {
		t.Errorf("unusable: %+v %v, %v", sold, ok, err)
	}
}

// What DPD would refuse is refused before it is called.
func TestBuyRefusedBeforeCalling(t *testing.T) {
	t.Parallel()
	c, fake, _ := testCarrier(t)
	long := domesticShipment()
	long.To.Street1 = strings.Repeat("Lange Straße ", 3)
	noPhone := domesticShipment()
	noPhone.To.Phone, noPhone.To.Email = "", ""
	fromFrance := domesticShipment()
	fromFrance.From.Country = "FR"
	heavy := domesticShipment()
	heavy.Parcel = kg(32)
	with := func(s carriers.Shipment, service string, f carriers.LabelFormat, size carriers.LabelSize) carriers.BuyRequest {
		r := buyRequest(s, service)
		r.LabelFormat, r.LabelSize = f, size
		return r
	}
	for name, req := range map[string]carriers.BuyRequest{
		"a street of 39 characters":         buyRequest(long, "Classic"),
		"Express without a contact":         buyRequest(noPhone, "Express12"),
		"from France with DPD Germany's BU": buyRequest(fromFrance, "Classic"),
		"32 kg":                             buyRequest(heavy, "Classic"),
		"a PNG label":                       with(domesticShipment(), "Classic", carriers.LabelPNG, ""),
		"a letter page":                     with(domesticShipment(), "Classic", carriers.LabelPDF, carriers.LabelLetter),
		"International Express at home":     buyRequest(domesticShipment(), "InternationalExpress"),
		"an unknown service":                buyRequest(domesticShipment(), "Parcel"),
	} {
		if _, err := c.Buy(context.Background(), req); !errors.Is(err, carriers.ErrRejected) {
			t.Errorf("%s: %v, want a refusal", name, err)
		}
	}
	if n := fake.Requests(dpdfake.OpShipment) + fake.TokenRequests(); n != 0 {
		t.Errorf("%d calls to DPD", n)
	}
	if _, err := c.Buy(context.Background(), buyRequest(noPhone, "Express12")); !strings.Contains(err.Error(), "toAddress.phone") {
		t.Errorf("the refusal names the field: %v", err)
	}
}

// The login's token is cached for every call; a 401 logs in again once;
// refused credentials are ErrFailed; the login sends its three headers.
func TestLogin(t *testing.T) {
	t.Parallel()
	c, fake, logins := testCarrier(t)
	ctx := context.Background()
	for range 3 {
		if _, err := c.Buy(ctx, buyRequest(domesticShipment(), "Classic")); err != nil {
			t.Fatal(err)
		}
	}
	if fake.TokenRequests() != 1 || logins.Load() != 1 {
		t.Errorf("%d logins for 3 calls", fake.TokenRequests())
	}
	h := fake.LastHeader(dpdfake.OpToken)
	if h.Get("X-DPD-LOGIN") != dpdfake.Login || h.Get("X-DPD-PASSWORD") != dpdfake.Password || h.Get("X-DPD-BUCODE") != dpdfake.BUCode {
		t.Errorf("login headers %v", h)
	}
	fake.ExpireTokens()
	if _, err := c.Buy(ctx, buyRequest(domesticShipment(), "Classic")); err != nil || fake.TokenRequests() != 2 {
		t.Errorf("after the token expired: %v, %d logins", err, fake.TokenRequests())
	}
	for name, cfg := range map[string]Config{
		"a wrong password": {Login: dpdfake.Login, Password: "wrong", BUCode: dpdfake.BUCode, CustomerID: dpdfake.CustomerID},
		"another BU":       {Login: dpdfake.Login, Password: dpdfake.Password, BUCode: "038", CustomerID: dpdfake.CustomerID},
	} {
		cfg.BaseURL, cfg.HTTPClient, cfg.Now = fake.URL(), fake.Client(), testNow
		bad, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		err = bad.CheckCredentials(ctx)
		if ce := carrierError(t, err); !errors.Is(err, carriers.ErrFailed) || ce.Operation != oauth.OpToken || ce.Message != oauth.MsgCredentialsRefused || ce.Code != "LOGIN_FAILED" {
			t.Errorf("%s: %#v", name, ce)
		}
	}
	fake.Fail(dpdfake.OpToken, dpdfake.Failure{Status: 200})
	fake.ExpireTokens()
	fresh, err := New(Config{Login: dpdfake.Login, Password: dpdfake.Password, BUCode: dpdfake.BUCode, CustomerID: dpdfake.CustomerID,
		BaseURL: fake.URL(), HTTPClient: fake.Client(), Now: testNow})
	if err != nil {
		t.Fatal(err)
	}
	if err := fresh.CheckCredentials(ctx); !errors.Is(err, carriers.ErrFailed) || !strings.Contains(err.Error(), "no X-DPD-TOKEN header") {
		t.Errorf("a login without a token: %v", err)
	}
}

// The token lives as long as its JWT says, within DPD's 24 hours (30
// minutes at SEUR).
func TestParseLogin(t *testing.T) {
	t.Parallel()
	now := testNow()
	jwt := func(claims string) string {
		return "eyJhbGciOiJIUzI1NiJ9." + base64.RawURLEncoding.EncodeToString([]byte(claims)) + ".c2ln"
	}
	for _, tc := range []struct {
		token, bu string
		want      time.Duration // -1: refused
	}{
		{"opaque-token", "001", 24 * time.Hour},
		{"opaque-token", "020", 30 * time.Minute},
		{jwt(fmt.Sprintf(`{"exp":%d,"depot":"0176"}`, now.Add(2*time.Hour).Unix())), "001", 2 * time.Hour},
		{jwt(fmt.Sprintf(`{"exp":%d}`, now.Add(48*time.Hour).Unix())), "001", 24 * time.Hour},
		{jwt(`{"exp":"soon"}`), "001", 24 * time.Hour},
		{jwt(fmt.Sprintf(`{"exp":%d}`, now.Add(-time.Minute).Unix())), "001", -1},
		{"", "001", -1},
		{"two words", "001", -1},
	} {
		h := http.Header{}
		if tc.token != "" {
			h.Set(tokenHeader, tc.token)
		}
		tok, err := parseLogin(h, now, tc.bu)
		if tc.want < 0 {
			if err == nil {
				t.Errorf("%q: accepted", tc.token)
			}
			continue
		}
		if err != nil || tok.AccessToken != tc.token || !tok.ExpiresAt.Equal(now.Add(tc.want)) {
			t.Errorf("%q at BU %s: %+v, %v; want %s", tc.token, tc.bu, tok, err, tc.want)
		}
	}
}

const (
	leakPassword = "s3cr3t-dpd-password"
	leakToken    = "tok-VERY-SECRET-DPD-TOKEN-42"
	leakCustomer = "DE99887766"
)

func leaky(s string) []string {
	var found []string
	for _, secret := range []string{leakPassword, leakToken, leakCustomer} {
		if strings.Contains(s, secret) {
			found = append(found, secret)
		}
	}
	return found
}

// A hostile DPD that echoes the password, the customer id and the token
// (its debug lists repeat the BU's requests) has them redacted.
func TestNoSecretInErrors(t *testing.T) {
	t.Parallel()
	for _, loginStatus := range []int{http.StatusOK, http.StatusUnauthorized, http.StatusInternalServerError} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			echo := fmt.Sprintf("auth=%q password=%s customer=%s", r.Header.Get("Authorization"), r.Header.Get("X-DPD-PASSWORD"), leakCustomer)
			if r.URL.Path == loginPath {
				if loginStatus != http.StatusOK {
					w.WriteHeader(loginStatus)
					_, _ = w.Write([]byte(dpdfake.ErrorBody(leakPassword, echo, "META-API")))
					return
				}
				w.Header().Set(tokenHeader, leakToken)
				return
			}
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(dpdfake.ErrorBody(leakCustomer, echo, "BU-API")))
		}))
		t.Cleanup(srv.Close)
		c, err := New(Config{Login: "login", Password: leakPassword, BUCode: "001", CustomerID: leakCustomer, BaseURL: srv.URL, HTTPClient: srv.Client(), Now: testNow})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		_, err1 := c.Buy(ctx, buyRequest(domesticShipment(), "Classic"))
		_, err2 := c.SchedulePickup(ctx, carriers.PickupRequest{Address: hamburg(), ReadyAt: testNow(), PackageCount: 1})
		for i, err := range []error{err1, err2} {
			ce := carrierError(t, err)
			for _, s := range []string{err.Error(), fmt.Sprintf("%+v", ce), ce.Code, ce.Message} {
				if l := leaky(s); l != nil {
					t.Errorf("login %d, call %d: %q leaks %v", loginStatus, i, s, l)
				}
			}
		}
		if loginStatus == http.StatusOK && !strings.Contains(err1.Error(), carriers.Redacted) {
			t.Errorf("the echoed secrets were not redacted but dropped: %v", err1)
		}
	}
}

func TestNoSecretWhenPrinted(t *testing.T) {
	t.Parallel()
	cfg := Config{Login: "login", Password: leakPassword, BUCode: "001", CustomerID: leakCustomer, BaseURL: "https://example.test"}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("config", "dpd", cfg, "carrier", c)
	for _, s := range []string{fmt.Sprintf("%v", cfg), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg), fmt.Sprintf("%v", c), fmt.Sprintf("%#v", c), logged.String()} {
		if l := leaky(s); l != nil {
			t.Errorf("%q leaks %v", s, l)
		}
	}
}

func TestNewRefusesIncompleteConfig(t *testing.T) {
	t.Parallel()
	ok := Config{Login: "l", Password: "p", BUCode: "001", CustomerID: "DE1"}
	for name, mod := range map[string]func(*Config){
		"no login":          func(c *Config) { c.Login = " " },
		"no password":       func(c *Config) { c.Password = "" },
		"no BU":             func(c *Config) { c.BUCode = "" },
		"a BU of letters":   func(c *Config) { c.BUCode = "DEU" },
		"no customer id":    func(c *Config) { c.CustomerID = "" },
		"a long customer":   func(c *Config) { c.CustomerID = leakCustomer + "12345678" },
		"a base URL path":   func(c *Config) { c.BaseURL = "https://api.dpdgroup.com/shipping/v1" },
		"a base URL of ftp": func(c *Config) { c.BaseURL = "ftp://dpd" },
	} {
		cfg := ok
		mod(&cfg)
		_, err := New(cfg)
		if !errors.Is(err, ErrConfig) {
			t.Errorf("%s: %v, want ErrConfig", name, err)
			continue
		}
		if l := leaky(err.Error()); l != nil {
			t.Errorf("%s: %v leaks %v", name, err, l)
		}
	}
	c, err := New(ok)
	if err != nil || c.baseURL != ProductionURL || c.client.Timeout != carriers.DefaultTimeout || c.Name() != "DPD" {
		t.Errorf("defaults: %v, %v", c, err)
	}
}

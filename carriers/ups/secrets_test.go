package ups

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

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/verifier"
)

const (
	leakSecret  = "s3cr3t-client-secret-value"
	leakToken   = "tok-VERY-SECRET-ACCESS-TOKEN-42"
	leakAccount = "Z9Y8X7"
)

// echoServer is a hostile UPS: every answer repeats the token it was sent,
// the client secret and the account number.
func echoServer(t *testing.T, tokenStatus int) *httptest.Server {
	t.Helper()
	leak := func(r *http.Request) string {
		return fmt.Sprintf("auth=%q secret=%s account=%s", r.Header.Get("Authorization"), leakSecret, leakAccount)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == tokenPath {
			if tokenStatus != http.StatusOK {
				w.WriteHeader(tokenStatus)
				_ = json.NewEncoder(w).Encode(map[string]any{"response": map[string]any{"errors": []any{
					map[string]string{"code": leakSecret, "message": leak(r)}}}})
				return
			}
			_ = json.NewEncoder(w).Encode(map[string]string{"access_token": leakToken, "expires_in": "3600", "token_type": "Bearer"})
			return
		}
		w.WriteHeader(http.StatusBadRequest)
		_ = json.NewEncoder(w).Encode(map[string]any{"response": map[string]any{"errors": []any{
			map[string]string{"code": leakAccount, "message": leak(r)}}}})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func leaky(s string) []string {
	var found []string
	for _, secret := range []string{leakSecret, leakToken, leakAccount} {
		if strings.Contains(s, secret) {
			found = append(found, secret)
		}
	}
	return found
}

func TestNoSecretInErrors(t *testing.T) {
	t.Parallel()
	for _, tokenStatus := range []int{http.StatusOK, http.StatusUnauthorized, http.StatusInternalServerError} {
		srv := echoServer(t, tokenStatus)
		c, err := New(Config{ClientID: "client-id", ClientSecret: leakSecret, AccountNumber: leakAccount,
			BaseURL: srv.URL, HTTPClient: srv.Client(), Now: testNow})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		var errs []error
		_, err = c.Rates(ctx, domesticShipment())
		errs = append(errs, err)
		_, err = c.Buy(ctx, buyRequest(domesticShipment(), "Ground"))
		errs = append(errs, err)
		_, err = c.Void(ctx, carriers.VoidRequest{TrackingNumber: "1ZZ9Y8X70300000011"})
		errs = append(errs, err)
		_, err = c.Track(ctx, "1ZZ9Y8X70300000011")
		errs = append(errs, err)
		_, err = c.Verify(ctx, usAddress())
		errs = append(errs, err)
		for i, err := range errs {
			if err == nil {
				t.Errorf("token %d, call %d: no error from a server that refuses everything", tokenStatus, i)
				continue
			}
			var ce *carriers.Error
			if !errors.As(err, &ce) {
				t.Errorf("call %d: %v is not a carriers.Error", i, err)
				continue
			}
			for _, s := range []string{err.Error(), fmt.Sprintf("%+v", ce), ce.Code, ce.Message} {
				if l := leaky(s); l != nil {
					t.Errorf("token %d, call %d: %q leaks %v", tokenStatus, i, s, l)
				}
			}
		}
		if tokenStatus == http.StatusOK && !strings.Contains(errs[0].Error(), redacted) {
			t.Errorf("the echoed secrets were not redacted but dropped: %v", errs[0])
		}
	}
}

func TestNoSecretWhenPrinted(t *testing.T) {
	t.Parallel()
	cfg := Config{ClientID: "client-id", ClientSecret: leakSecret, AccountNumber: leakAccount, BaseURL: "https://example.test"}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("config", "ups", cfg, "carrier", c)
	for _, s := range []string{
		fmt.Sprintf("%v", cfg), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg), fmt.Sprint(cfg),
		fmt.Sprintf("%v", &cfg), fmt.Sprintf("%v", c), fmt.Sprintf("%+v", c), fmt.Sprintf("%#v", c),
		fmt.Sprintf("%v", struct{ C Config }{cfg}), logged.String(),
	} {
		if l := leaky(s); l != nil {
			t.Errorf("%q leaks %v", s, l)
		}
	}
	if !strings.Contains(fmt.Sprint(cfg), "client-id") {
		t.Errorf("%v: the client id should stay visible for debugging", cfg)
	}
}

func TestNewRefusesIncompleteConfig(t *testing.T) {
	t.Parallel()
	for name, cfg := range map[string]Config{
		"no client id":        {ClientSecret: "s", AccountNumber: "A1B2C3"},
		"no secret":           {ClientID: "i", AccountNumber: "A1B2C3"},
		"no account":          {ClientID: "i", ClientSecret: "s"},
		"short account":       {ClientID: "i", ClientSecret: "s", AccountNumber: "A1B2"},
		"base URL not a URL":  {ClientID: "i", ClientSecret: "s", AccountNumber: "A1B2C3", BaseURL: "onlinetools.ups.com"},
		"base URL not http":   {ClientID: "i", ClientSecret: "s", AccountNumber: "A1B2C3", BaseURL: "ftp://ups.com"},
		"whitespace creds":    {ClientID: " ", ClientSecret: " ", AccountNumber: "      "},
		"secret leak attempt": {ClientID: "i", ClientSecret: leakSecret, AccountNumber: "TOOLONGACCOUNT"},
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
	c, err := New(Config{ClientID: "i", ClientSecret: "s", AccountNumber: "a1b2c3"})
	if err != nil {
		t.Fatal(err)
	}
	if c.cfg.BaseURL != ProductionURL || c.cfg.HTTPClient == nil || c.cfg.HTTPClient.Timeout != carriers.DefaultTimeout || c.cfg.Now == nil || c.cfg.AccountNumber != "A1B2C3" {
		t.Errorf("defaults not applied: %+v", c.cfg)
	}
	if c.Name() != "UPS" {
		t.Errorf("Name() = %q, want UPS", c.Name())
	}
	var _ verifier.Verifier = c
}

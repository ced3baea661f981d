package fedex

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/fedex/fedexfake"
)

func TestNewRefusesIncompleteConfig(t *testing.T) {
	t.Parallel()
	full := Config{ClientID: "id", ClientSecret: "secret", AccountNumber: "123456789"}
	tests := []struct {
		name    string
		mutate  func(*Config)
		wantMsg string
	}{
		{"no client id", func(c *Config) { c.ClientID = "" }, "ClientID"},
		{"no secret", func(c *Config) { c.ClientSecret = " " }, "ClientSecret"},
		{"no account", func(c *Config) { c.AccountNumber = "" }, "AccountNumber"},
		{"short account", func(c *Config) { c.AccountNumber = "12345" }, "9-digit"},
		{"account with letters", func(c *Config) { c.AccountNumber = "12345678X" }, "9-digit"},
		{"bad base URL", func(c *Config) { c.BaseURL = "ftp://example.com" }, "BaseURL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := full
			tt.mutate(&cfg)
			c, err := New(cfg)
			if !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("New = %v, %v; want ErrInvalidConfig mentioning %q", c, err, tt.wantMsg)
			}
		})
	}
}

func TestNewDefaults(t *testing.T) {
	t.Parallel()
	c, err := New(Config{ClientID: "id", ClientSecret: "secret", AccountNumber: "123456789"})
	if err != nil {
		t.Fatal(err)
	}
	if c.baseURL != ProductionURL || c.client.Timeout != 20*time.Second || c.Name() != "FedEx" {
		t.Errorf("defaults: base %q, timeout %v, name %q", c.baseURL, c.client.Timeout, c.Name())
	}
	c, err = New(Config{ClientID: "id", ClientSecret: "secret", AccountNumber: "123456789", BaseURL: SandboxURL + "/"})
	if err != nil || c.baseURL != "https://apis-sandbox.fedex.com" {
		t.Errorf("sandbox base URL = %q, %v", c.baseURL, err)
	}
}

// recordingTransport remembers every bearer token the carrier sends.
type recordingTransport struct {
	mu     sync.Mutex
	tokens []string
}

func (rt *recordingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		rt.mu.Lock()
		rt.tokens = append(rt.tokens, tok)
		rt.mu.Unlock()
	}
	return http.DefaultTransport.RoundTrip(r)
}

func TestSecretsNeverPrinted(t *testing.T) {
	t.Parallel()
	fake := fedexfake.New(t)
	rt := &recordingTransport{}
	cfg := Config{
		ClientID: fedexfake.ClientID, ClientSecret: fedexfake.ClientSecret, AccountNumber: fedexfake.AccountNumber,
		BaseURL: fake.URL(), HTTPClient: &http.Client{Transport: rt},
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var texts []string
	texts = append(texts, fmt.Sprintf("%v", cfg), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg), fmt.Sprint(&cfg),
		fmt.Sprintf("%v", c), fmt.Sprintf("%+v", c), fmt.Sprintf("%#v", c))
	var logged bytes.Buffer
	slog.New(slog.NewTextHandler(&logged, nil)).Info("configured", slog.Any("fedex", cfg))
	texts = append(texts, logged.String())

	// Errors of every kind, after a token was issued.
	if _, err := c.Rates(ctx, domestic()); err != nil {
		t.Fatal(err)
	}
	errs := []error{}
	fake.FailNext(fedexfake.OpRate, 401, fedexfake.ErrorBody("NOT.AUTHORIZED.ERROR", "expired"))
	fake.FailNext(fedexfake.OpRate, 401, fedexfake.ErrorBody("NOT.AUTHORIZED.ERROR", "expired"))
	_, err = c.Rates(ctx, domestic())
	errs = append(errs, err)
	fake.FailNext(fedexfake.OpShip, 400, fedexfake.ErrorBody("ACCOUNTNUMBER.REGISTRATION.REQUIRED", "Account "+fedexfake.AccountNumber+" is not registered."))
	_, err = c.Buy(ctx, buyRequest("shp_secret", domestic(), "Ground"))
	errs = append(errs, err)
	_, err = c.Void(ctx, carriers.VoidRequest{TrackingNumber: "000000000000"})
	errs = append(errs, err)
	fake.FailNext(fedexfake.OpCancel, 200, `{"output":{"cancelledShipment":false,"message":"Not cancelled for `+fedexfake.AccountNumber+`"}}`)
	_, err = c.Void(ctx, carriers.VoidRequest{TrackingNumber: "000000000000"})
	if err == nil || !strings.Contains(err.Error(), "Not cancelled for "+carriers.Redacted) {
		t.Errorf("void refusal quoting the account = %v, want the number replaced", err)
	}
	errs = append(errs, err)
	bad, err := New(Config{ClientID: fedexfake.ClientID, ClientSecret: "not-" + fedexfake.ClientSecret, AccountNumber: fedexfake.AccountNumber, BaseURL: fake.URL()})
	if err != nil {
		t.Fatal(err)
	}
	_, err = bad.Track(ctx, "794600000001")
	errs = append(errs, err)
	fake.Close()
	_, err = c.Rates(ctx, domestic())
	errs = append(errs, err)
	_, err = New(Config{ClientID: "id", ClientSecret: fedexfake.ClientSecret, AccountNumber: "51008702"})
	errs = append(errs, err)
	for _, e := range errs {
		if e == nil {
			t.Fatal("an operation meant to fail succeeded")
		}
		texts = append(texts, e.Error(), fmt.Sprintf("%+v", e), fmt.Sprintf("%#v", e))
	}

	rt.mu.Lock()
	secrets := append([]string{fedexfake.ClientSecret, fedexfake.AccountNumber}, rt.tokens...)
	rt.mu.Unlock()
	if len(secrets) < 3 {
		t.Fatal("no access token was recorded")
	}
	for _, text := range texts {
		for _, s := range secrets {
			if strings.Contains(text, s) {
				t.Errorf("%q leaks the secret %q", text, s)
			}
		}
	}
}

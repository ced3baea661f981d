package usps

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/usps/uspsfake"
	"github.com/shipd-dev/shipd/carriers/verifier"
)

// recorder remembers the bearer and payment tokens the adapter sends.
type recorder struct {
	mu     sync.Mutex
	tokens map[string]bool
	next   http.RoundTripper
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	if tok, ok := strings.CutPrefix(req.Header.Get("Authorization"), "Bearer "); ok {
		r.tokens[tok] = true
	}
	if tok := req.Header.Get("X-Payment-Authorization-Token"); tok != "" {
		r.tokens[tok] = true
	}
	r.mu.Unlock()
	return r.next.RoundTrip(req)
}

// TestSecretsStayOutOfErrorsAndLogs: no error the adapter returns, and no
// formatting of its Config, shows the client secret, the account number or
// a token.
func TestSecretsStayOutOfErrorsAndLogs(t *testing.T) {
	t.Parallel()
	fake := newFake(t)
	rec := &recorder{tokens: map[string]bool{}, next: http.DefaultTransport}
	cfg := testConfig(fake)
	cfg.HTTPClient = &http.Client{Transport: rec}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	var errs []error
	collect := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	label, err := c.Buy(ctx, buyRequest("shp_secret", "Priority", domesticShipment()))
	collect(err)
	for _, status := range []int{400, 401, 403, 429, 500, 503} {
		fake.FailNext(uspsfake.OpRates, status, `{"error":{"code":"x","message":"no"}}`)
		if status == 401 {
			fake.FailNext(uspsfake.OpRates, status, `{"error":{"code":"x","message":"no"}}`)
		}
		_, err := c.Rates(ctx, domesticShipment())
		collect(err)
	}
	fake.ManifestLabel(label.TrackingNumber)
	_, err = c.Void(ctx, carriersVoid(label.TrackingNumber))
	collect(err)
	_, err = c.Void(ctx, carriersVoid("9205590234567899999999"))
	collect(err)
	fake.FailNext(uspsfake.OpAddress, 503, "")
	_, err = c.Verify(ctx, verifier.Address{Street1: "1 Main St", City: "X", State: "IL", Country: "US"})
	collect(err)
	fake.ExpireTokens()
	fake.FailNext(uspsfake.OpToken, 401, `{"error":"invalid_client"}`)
	_, err = c.Track(ctx, label.TrackingNumber)
	collect(err)

	bad := cfg
	bad.ClientSecret = "another-secret-never-printed"
	bc, err := New(bad)
	if err != nil {
		t.Fatal(err)
	}
	_, err = bc.Rates(ctx, domesticShipment())
	collect(err)
	fake.Close()
	_, err = c.Buy(ctx, buyRequest("shp_closed", "Priority", domesticShipment()))
	collect(err)

	if len(errs) < 10 {
		t.Fatalf("only %d errors collected; the scenario no longer fails where it should", len(errs))
	}
	if len(rec.tokens) < 2 {
		t.Fatalf("recorded %d tokens, want the access and payment tokens", len(rec.tokens))
	}
	secrets := []string{uspsfake.ClientSecret, "another-secret-never-printed", uspsfake.AccountNumber}
	for tok := range rec.tokens {
		secrets = append(secrets, tok)
	}
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	logger.Info("config", "usps", cfg)
	logger.Info("config", "usps", bad)
	texts := []string{
		fmt.Sprintf("%v", cfg), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg), cfg.String(), fmt.Sprint(bad), logs.String(),
	}
	for _, err := range errs {
		texts = append(texts, err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err))
	}
	for _, text := range texts {
		for _, s := range secrets {
			if strings.Contains(text, s) {
				t.Errorf("%q shows a secret (%.12s...)", text, s)
			}
		}
	}
	if !strings.Contains(fmt.Sprint(cfg), uspsfake.ClientID) {
		t.Errorf("the config print %q lost the client id; redaction went too far", fmt.Sprint(cfg))
	}
}

func carriersVoid(tn string) carriers.VoidRequest { return carriers.VoidRequest{TrackingNumber: tn} }

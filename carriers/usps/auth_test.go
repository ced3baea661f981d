package usps

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/oauth"
	"github.com/shipd-dev/shipd/carriers/usps/uspsfake"
)

func TestNewRefusesIncompleteConfig(t *testing.T) {
	t.Parallel()
	fake := newFake(t)
	for name, mutate := range map[string]func(*Config){
		"no client id":      func(c *Config) { c.ClientID = " " },
		"no secret":         func(c *Config) { c.ClientSecret = "" },
		"no CRID":           func(c *Config) { c.CRID = "" },
		"no MID":            func(c *Config) { c.MID = "" },
		"no account":        func(c *Config) { c.AccountNumber = "" },
		"permit account":    func(c *Config) { c.AccountType = "PERMIT" },
		"base URL not http": func(c *Config) { c.BaseURL = "ftp://example.com" },
	} {
		cfg := testConfig(fake)
		mutate(&cfg)
		if _, err := New(cfg); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: err = %v, want ErrConfig", name, err)
		}
	}
	cfg := testConfig(fake)
	cfg.BaseURL, cfg.HTTPClient, cfg.Now, cfg.AccountType = "", nil, nil, ""
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if c.base != ProductionURL || c.cfg.AccountType != "EPS" || c.client.Timeout != 20*time.Second || c.Name() != "USPS" {
		t.Errorf("defaults: base %q, account type %q, timeout %v, name %q", c.base, c.cfg.AccountType, c.client.Timeout, c.Name())
	}
}

// TestConcurrentCallsShareOneToken: 20 rate requests on a fresh carrier ask
// for one OAuth token between them.
func TestConcurrentCallsShareOneToken(t *testing.T) {
	t.Parallel()
	fake := newFake(t)
	var refreshes atomic.Int64
	cfg := testConfig(fake)
	cfg.OnTokenRefresh = func() { refreshes.Add(1) }
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			if _, err := c.Rates(context.Background(), domesticShipment()); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := fake.TokenRequests(); n != 1 {
		t.Errorf("token requests = %d, want 1", n)
	}
	if n := fake.Requests(uspsfake.OpRates); n != 20 {
		t.Errorf("rate requests = %d, want 20", n)
	}
	if refreshes.Load() != 1 {
		t.Errorf("OnTokenRefresh called %d times, want 1", refreshes.Load())
	}
}

// TestExpiredTokensRefreshOnceAndRetry: USPS revokes the tokens; the next
// call meets a 401, fetches one new token, retries once and succeeds. A
// purchase also renews its payment authorization.
func TestExpiredTokensRefreshOnceAndRetry(t *testing.T) {
	t.Parallel()
	fake := newFake(t)
	c := newCarrier(t, fake)
	ctx := context.Background()
	if _, err := c.Buy(ctx, buyRequest("shp_before", "Priority", domesticShipment())); err != nil {
		t.Fatal(err)
	}
	fake.ExpireTokens()

	if _, err := c.Rates(ctx, domesticShipment()); err != nil {
		t.Fatal(err)
	}
	if tokens, rates := fake.TokenRequests(), fake.Requests(uspsfake.OpRates); tokens != 2 || rates != 2 {
		t.Errorf("after expiry: %d token requests, %d rate requests; want 2 and 2 (the 401 and the retry)", tokens, rates)
	}

	fake.ExpireTokens()
	if _, err := c.Buy(ctx, buyRequest("shp_after", "Priority", domesticShipment())); err != nil {
		t.Fatal(err)
	}
	if tokens, payments, labels := fake.TokenRequests(), fake.Requests(uspsfake.OpPayment), fake.Requests(uspsfake.OpLabel); tokens != 3 || payments != 2 || labels != 3 {
		t.Errorf("purchase after expiry: %d tokens, %d payment authorizations, %d label requests; want 3, 2, 3", tokens, payments, labels)
	}
}

func TestStringExpiresIn(t *testing.T) {
	t.Parallel()
	fake := newFake(t, uspsfake.WithStringExpiresIn())
	c := newCarrier(t, fake)
	for range 3 {
		if _, err := c.Rates(context.Background(), domesticShipment()); err != nil {
			t.Fatal(err)
		}
	}
	if n := fake.TokenRequests(); n != 1 {
		t.Errorf("token requests = %d, want 1 (the token is cached)", n)
	}
}

func TestTokenIsRefreshedBeforeItExpires(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := testNow
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	fake := uspsfake.New(t, uspsfake.WithClock(clock), uspsfake.WithTokenTTL(10*time.Minute))
	cfg := testConfig(fake)
	cfg.Now = clock
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := c.Track(ctx, "9400111111111111111111"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	now = now.Add(9*time.Minute + 30*time.Second)
	mu.Unlock()
	if _, err := c.Track(ctx, "9400111111111111111111"); err != nil {
		t.Fatal(err)
	}
	// Less than a minute left: a new token before the call, no 401.
	if tokens, tracks := fake.TokenRequests(), fake.Requests(uspsfake.OpTrack); tokens != 2 || tracks != 2 {
		t.Errorf("%d token requests, %d track requests; want 2 and 2", tokens, tracks)
	}
}

func TestCredentialsRefused(t *testing.T) {
	t.Parallel()
	fake := newFake(t)
	cfg := testConfig(fake)
	cfg.ClientSecret = "wrong-secret-value"
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Rates(context.Background(), domesticShipment())
	ce := asCarrierError(t, err)
	if !errors.Is(err, carriers.ErrFailed) || ce.Message != "the carrier refused the credentials" || ce.Code != "invalid_client" || ce.Operation != "token" {
		t.Errorf("%#v, want ErrFailed \"the carrier refused the credentials\" (invalid_client)", ce)
	}
	if strings.Contains(err.Error(), "wrong-secret-value") {
		t.Errorf("the error shows the secret: %v", err)
	}

	// A token USPS keeps refusing: one refresh, one retry, then ErrFailed.
	good := newCarrier(t, fake)
	before := fake.TokenRequests()
	fake.FailNext(uspsfake.OpRates, http.StatusUnauthorized, `{"error":{"code":"401","message":"Unauthorized"}}`)
	fake.FailNext(uspsfake.OpRates, http.StatusUnauthorized, `{"error":{"code":"401","message":"Unauthorized"}}`)
	_, err = good.Rates(context.Background(), domesticShipment())
	ce = asCarrierError(t, err)
	if !errors.Is(err, carriers.ErrFailed) || ce.Message != "the carrier refused the credentials" || ce.HTTPStatus != 401 {
		t.Errorf("%#v, want ErrFailed after the retry", ce)
	}
	if n := fake.TokenRequests() - before; n != 2 {
		t.Errorf("%d token requests, want 2 (the first and one refresh)", n)
	}
}

func TestPaymentAccountRefused(t *testing.T) {
	t.Parallel()
	fake := newFake(t)
	cfg := testConfig(fake)
	cfg.AccountNumber = "999999"
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Buy(context.Background(), buyRequest("shp_pay", "Priority", domesticShipment()))
	ce := asCarrierError(t, err)
	if !errors.Is(err, carriers.ErrFailed) || ce.Operation != "payment" || !strings.Contains(ce.Message, "payment account") {
		t.Errorf("%#v, want ErrFailed from the payment authorization", ce)
	}
	if strings.Contains(err.Error(), "999999") {
		t.Errorf("the error shows the account number: %v", err)
	}
	if fake.Requests(uspsfake.OpLabel) != 0 {
		t.Error("a label was requested without a payment authorization")
	}
}

func TestTokenRequestIsDocumentedForm(t *testing.T) {
	t.Parallel()
	fake := newFake(t)
	c := newCarrier(t, fake)
	if _, err := c.Track(context.Background(), "9400111111111111111111"); err != nil {
		t.Fatal(err)
	}
	form, err := url.ParseQuery(string(fake.LastRequest(uspsfake.OpToken)))
	if err != nil {
		t.Fatal(err)
	}
	want := url.Values{"grant_type": {"client_credentials"}, "client_id": {uspsfake.ClientID}, "client_secret": {uspsfake.ClientSecret}}
	if form.Encode() != want.Encode() {
		t.Errorf("token request %v, want %v", form, want)
	}
}

func TestParseToken(t *testing.T) {
	t.Parallel()
	// USPS's documented token answers, one with expires_in as a string,
	// read by the carrier kit (carriers/oauth tests the rest).
	for _, name := range []string{"token.json", "token_string_expires.json"} {
		tok, err := oauth.ParseToken(readExample(t, name), testNow, 0)
		if err != nil || tok.AccessToken == "" || !tok.ExpiresAt.After(testNow) {
			t.Errorf("%s: %+v, %v", name, tok, err)
		}
	}
	if _, err := parsePaymentToken(readExample(t, "payment_authorization.json"), testNow); err != nil {
		t.Errorf("documented payment authorization: %v", err)
	}
	if _, err := parsePaymentToken([]byte(`{"roles":[]}`), testNow); !errors.Is(err, carriers.ErrFailed) {
		t.Errorf("payment answer without a token: err = %v, want ErrFailed", err)
	}
}

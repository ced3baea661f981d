package server_test

// Carrier accounts (issue 31): each account connects its own carrier
// contracts, through the API, and live mode quotes, buys, voids and tracks
// through them, against the carriers' fakes, which see which client asked.

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/app"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/connectors"
	"github.com/shipd-dev/shipd/carriers/fedex/fedexfake"
	"github.com/shipd-dev/shipd/carriers/ups/upsfake"
	"github.com/shipd-dev/shipd/carriers/usps/uspsfake"
	"github.com/shipd-dev/shipd/store"
)

// Credentials of UPS customers besides the fake's own, each with its shipper number.
const (
	acmeClientID, acmeSecret, acmeShipper = "acme-client-id-0001", "acme-secret-d6f1e2a9b8", "ACME01"
	zedClientID, zedSecret, zedShipper    = "zed-client-id-0002", "zed-secret-77c3b1f0aa", "ZED002"
)

// setupCarrierAccounts is setupLive where tenants can connect carrier
// accounts, whose clients reach the three fakes (production and test alike).
func setupCarrierAccounts(t *testing.T, opts ...setupOption) (*bundle, *liveFakes, string) {
	t.Helper()
	var f *liveFakes // set before any request: the factory is called per request
	b, fakes, live := setupLive(t, append([]setupOption{func(c *app.Config) {
		c.CarrierAccounts = func(cr carriers.Credentials) (carriers.Carrier, error) { return reaching(f)(cr) }
	}}, opts...)...)
	f = fakes
	return b, fakes, live
}

// reaching builds carrier accounts' clients that reach f's fakes, in
// production and test environments alike.
func reaching(f *liveFakes) carriers.Factory {
	return connectors.Catalog().Factory(carriers.FactoryOptions{URLs: map[carriers.ID]carriers.Endpoints{
		"UPS": {Production: f.ups.URL(), Test: f.ups.URL()}, "FedEx": {Production: f.fedex.URL(), Test: f.fedex.URL()},
		"USPS": {Production: f.usps.URL(), Test: f.usps.URL()},
	}})
}

// liveCaller is b's account in live mode, as the operator.
func liveCaller(b *bundle) accounts.Caller {
	return accounts.Caller{AccountID: b.account.ID, Mode: accounts.Live}
}

func upsAccountBody(clientID, secret, shipper string) map[string]any {
	return map[string]any{"carrier": "UPS", "description": "our UPS contract",
		"credentials": map[string]any{"clientId": clientID, "clientSecret": secret, "accountNumber": shipper}}
}

type carrierAccountDoc struct {
	ID            string `json:"id"`
	Carrier       string `json:"carrier"`
	ClientID      string `json:"clientId"`
	AccountNumber string `json:"accountNumber"`
	Environment   string `json:"environment"`
	Enabled       bool   `json:"enabled"`
}

func connectUPS(t *testing.T, b *bundle, token, clientID, secret, shipper string) carrierAccountDoc {
	t.Helper()
	r := b.doT(t, "POST", "/api/v1/carrier-accounts", token, upsAccountBody(clientID, secret, shipper))
	wantStatus(t, r, http.StatusCreated)
	var a carrierAccountDoc
	r.Decode(t, &a)
	return a
}

type accountRate struct {
	Carrier          string `json:"carrier"`
	Service          string `json:"service"`
	CarrierAccountID string `json:"carrierAccountId"`
}

func quoteAccountRates(t *testing.T, b *bundle, token string) []accountRate {
	t.Helper()
	r := b.doT(t, "POST", "/api/v1/labels/quote", token, liveBody())
	wantStatus(t, r, http.StatusOK)
	var q struct{ Rates []accountRate }
	r.Decode(t, &q)
	return q.Rates
}

func countCarrierAccounts(t *testing.T, b *bundle) int {
	t.Helper()
	var n int
	if err := b.sql(t).Get(&n, `SELECT count(*) FROM carrier_accounts`); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestCarrierAccountRefusedCredentialsStoreNothing(t *testing.T) {
	t.Parallel()
	b, f, live := setupCarrierAccounts(t)
	m := wantError(t, b.do("POST", "/api/v1/carrier-accounts", live, upsAccountBody(upsfake.ClientID, "not-the-secret", upsfake.AccountNumber)),
		http.StatusUnprocessableEntity, "carrier_credentials_invalid")
	if msg, _ := m["error"].(string); !strings.Contains(msg, "10401") {
		t.Errorf("error %q does not carry the carrier's answer (10401)", msg)
	}
	if n := countCarrierAccounts(t, b); n != 0 {
		t.Fatalf("%d carrier accounts stored after the carrier refused the credentials", n)
	}
	if got := f.ups.Callers(upsfake.OpToken); !slices.Contains(got, upsfake.ClientID) {
		t.Fatalf("the fake saw token requests from %v: the credentials were not checked with the carrier", got)
	}

	// The carrier cannot answer: 503, nothing stored.
	f.ups.FailNext(upsfake.OpToken, http.StatusServiceUnavailable, upsfake.ErrorBody("9999", "down"))
	wantError(t, b.do("POST", "/api/v1/carrier-accounts", live, upsAccountBody(upsfake.ClientID, upsfake.ClientSecret, upsfake.AccountNumber)),
		http.StatusServiceUnavailable, "carrier_unavailable")
	if n := countCarrierAccounts(t, b); n != 0 {
		t.Fatalf("%d carrier accounts stored while the carrier was down", n)
	}

	// Test mode always uses the sandbox.
	m = wantError(t, b.do("POST", "/api/v1/carrier-accounts", b.token, upsAccountBody(upsfake.ClientID, upsfake.ClientSecret, upsfake.AccountNumber)),
		http.StatusUnprocessableEntity, "invalid_field")
	if m["field"] != "mode" {
		t.Errorf("field %v, want mode", m["field"])
	}
}

func TestCarrierAccountSecretNeverShownLoggedOrStored(t *testing.T) {
	t.Parallel()
	logs := &syncBuffer{}
	b, f, live := setupCarrierAccounts(t, withLogs(logs))
	f.ups.AddClient(acmeClientID, acmeSecret, acmeShipper)
	body := upsAccountBody(acmeClientID, acmeSecret, acmeShipper)
	body["idempotencyKey"] = "connect-acme"
	created := b.doT(t, "POST", "/api/v1/carrier-accounts", live, body)
	wantStatus(t, created, http.StatusCreated)
	replay := b.doT(t, "POST", "/api/v1/carrier-accounts", live, body)
	wantStatus(t, replay, http.StatusCreated)
	if !bytes.Equal(created.Body, replay.Body) {
		t.Fatalf("the replay differs:\n%s\n%s", created.Body, replay.Body)
	}
	var a carrierAccountDoc
	created.Decode(t, &a)
	want := carrierAccountDoc{ID: a.ID, Carrier: "UPS", ClientID: "••••0001", AccountNumber: acmeShipper, Environment: "production", Enabled: true}
	if diff := cmp.Diff(want, a); diff != "" || !strings.HasPrefix(a.ID, "ca_") {
		t.Fatalf("created (-want +got):\n%s", diff)
	}
	list := b.doT(t, "GET", "/api/v1/carrier-accounts", live, nil)
	wantStatus(t, list, http.StatusOK)
	one := b.doT(t, "GET", "/api/v1/carrier-accounts/"+a.ID, live, nil)
	wantStatus(t, one, http.StatusOK)
	// A failed attempt with a wrong secret is logged without it too.
	wrong := "wrong-secret-5a5a5a5a"
	wantStatus(t, b.do("PATCH", "/api/v1/carrier-accounts/"+a.ID, live, map[string]any{
		"credentials": map[string]any{"clientId": acmeClientID, "clientSecret": wrong, "accountNumber": acmeShipper}}), http.StatusUnprocessableEntity)
	rates := quoteAccountRates(t, b, live)
	if len(rates) == 0 {
		t.Fatal("no rates through the carrier account")
	}
	for _, r := range []response{created, list, one} {
		if bytes.Contains(r.Body, []byte(acmeSecret)) || bytes.Contains(r.Body, []byte(acmeClientID)) {
			t.Fatalf("a response shows the secret or the whole client id: %s", r.Body)
		}
	}
	for _, secret := range []string{acmeSecret, wrong} {
		if strings.Contains(logs.String(), secret) {
			t.Fatalf("the logs hold the secret %q", secret)
		}
	}
	if store.IsPostgres(b.dsn) {
		return
	}
	for _, file := range []string{b.dsn, b.dsn + "-wal"} {
		data, err := os.ReadFile(file)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if bytes.Contains(data, []byte(acmeSecret)) || bytes.Contains(data, []byte(wrong)) {
			t.Fatalf("%s holds a client secret in clear", file)
		}
	}
}

// Two accounts with their own UPS accounts: each quotes and buys through its
// own credentials (the fake sees the client id of every call) and never
// sees the other's rates; the operator's UPS is not asked.
func TestCarrierAccountsKeepAccountsApart(t *testing.T) {
	t.Parallel()
	b, f, live := setupCarrierAccounts(t, unscanned)
	f.ups.AddClient(acmeClientID, acmeSecret, acmeShipper)
	f.ups.AddClient(zedClientID, zedSecret, zedShipper)
	other := b.newAccount("Zed", true)
	_, otherLive := b.newToken(other.ID, "live", allScopes...)
	acme := connectUPS(t, b, live, acmeClientID, acmeSecret, acmeShipper)
	zed := connectUPS(t, b, otherLive, zedClientID, zedSecret, zedShipper)

	for _, c := range []struct {
		token, accountID, clientID string
	}{{live, acme.ID, acmeClientID}, {otherLive, zed.ID, zedClientID}} {
		before := len(f.ups.Callers(upsfake.OpRate))
		rates := quoteAccountRates(t, b, c.token)
		if len(rates) == 0 {
			t.Fatal("no rates")
		}
		for _, r := range rates {
			if r.Carrier != "UPS" || r.CarrierAccountID != c.accountID {
				t.Fatalf("rate %+v: want only UPS rates of %s", r, c.accountID)
			}
		}
		if diff := cmp.Diff([]string{c.clientID}, f.ups.Callers(upsfake.OpRate)[before:]); diff != "" {
			t.Fatalf("rate calls by client (-want +got):\n%s", diff)
		}
	}
	// Each client fetched its own token, and the operator's client none.
	tokens := f.ups.Callers(upsfake.OpToken)
	for _, id := range []string{acmeClientID, zedClientID} {
		if !slices.Contains(tokens, id) {
			t.Errorf("no token fetched by %s: %v", id, tokens)
		}
	}
	if slices.Contains(tokens, upsfake.ClientID) || f.fedex.Requests("rate") > 0 {
		t.Errorf("the operator's carriers were asked (UPS tokens by %v)", tokens)
	}

	// A selection hint of the other account's id matches nothing.
	m := wantError(t, b.do("POST", "/api/v1/labels/create", live, liveBody(withField("carrierAccountId", zed.ID))),
		http.StatusUnprocessableEntity, "no_matching_service")
	if !strings.Contains(m["error"].(string), zed.ID) {
		t.Errorf("error %v", m["error"])
	}

	// A purchase through Acme's account, a void after that account is deleted.
	sh := createLabel(t, b, live, liveBody(withField("carrierAccountId", acme.ID), withField("service", "Ground"), withField("carrier", "UPS")))
	sh = waitForStatus(t, b, live, sh.ID, "purchased")
	if got := f.ups.Callers(upsfake.OpShip); !cmp.Equal(got, []string{acmeClientID}) {
		t.Fatalf("ship calls by %v, want Acme's", got)
	}
	var stored *string
	if err := b.sql(t).Get(&stored, `SELECT carrier_account_id FROM shipments WHERE id = ?`, sh.ID); err != nil || deref(stored) != acme.ID {
		t.Fatalf("the label's carrier account %v (%v), want %s", deref(stored), err, acme.ID)
	}
	wantStatus(t, b.do("DELETE", "/api/v1/carrier-accounts/"+acme.ID, live, nil), http.StatusNoContent)
	wantError(t, b.do("GET", "/api/v1/carrier-accounts/"+acme.ID, live, nil), http.StatusNotFound, "not_found")
	wantStatus(t, b.do("POST", "/api/v1/labels/"+sh.ID+"/refund", live, nil), http.StatusAccepted)
	waitForStatus(t, b, live, sh.ID, "voided")
	if got := f.ups.Callers(upsfake.OpVoid); !cmp.Equal(got, []string{acmeClientID}) {
		t.Fatalf("void calls by %v, want Acme's", got)
	}

	// Acme has no carrier account left: the operator's carriers again.
	for _, r := range quoteAccountRates(t, b, live) {
		if r.CarrierAccountID != "" {
			t.Fatalf("rate %+v of a deleted carrier account", r)
		}
	}
}

func TestNoCarrierAccountsWithoutPlatformCarriers(t *testing.T) {
	t.Parallel()
	b, _, live := setupCarrierAccounts(t, func(c *app.Config) { c.NoPlatformCarriers = true })
	wantError(t, b.do("POST", "/api/v1/labels/quote", live, liveBody()), http.StatusUnprocessableEntity, "no_carrier_accounts")
	wantError(t, b.do("POST", "/api/v1/trackers", live, map[string]any{"trackingNumber": "1Z999AA10123456784"}),
		http.StatusUnprocessableEntity, "no_carrier_accounts")
	// Test mode is the sandbox, whatever the operator offers live.
	wantStatus(t, b.do("POST", "/api/v1/labels/quote", b.token, liveBody()), http.StatusOK)
	a := connectUPS(t, b, live, upsfake.ClientID, upsfake.ClientSecret, upsfake.AccountNumber)
	if rates := quoteAccountRates(t, b, live); len(rates) == 0 || rates[0].CarrierAccountID != a.ID {
		t.Fatalf("rates %+v", rates)
	}
	// Disabled: none again.
	wantStatus(t, b.do("PATCH", "/api/v1/carrier-accounts/"+a.ID, live, map[string]any{"enabled": false}), http.StatusOK)
	wantError(t, b.do("POST", "/api/v1/labels/quote", live, liveBody()), http.StatusUnprocessableEntity, "no_carrier_accounts")

	entries, _, err := b.app.Accounts.AuditLog(context.Background(), liveCaller(b), 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, e := range entries {
		actions = append(actions, e.Action)
	}
	if diff := cmp.Diff([]string{"carrier_account.disabled", "carrier_account.created", "token.created"}, actions); diff != "" {
		t.Fatalf("audit log (-want +got):\n%s", diff)
	}
}

// countOfClient is how many of calls were made by id.
func countOfClient(calls []string, id string) int {
	n := 0
	for _, c := range calls {
		if c == id {
			n++
		}
	}
	return n
}

// Every carrier account has its own token cache: a 401 or a 429 that UPS
// answers one account's call leaves the other's token and calls alone, and
// new credentials get a new client.
func TestCarrierAccountTokensApart(t *testing.T) {
	t.Parallel()
	b, f, live := setupCarrierAccounts(t)
	f.ups.AddClient(acmeClientID, acmeSecret, acmeShipper)
	f.ups.AddClient(zedClientID, zedSecret, zedShipper)
	other := b.newAccount("Zed", true)
	_, otherLive := b.newToken(other.ID, "live", allScopes...)
	acme := connectUPS(t, b, live, acmeClientID, acmeSecret, acmeShipper)
	connectUPS(t, b, otherLive, zedClientID, zedSecret, zedShipper)
	quoteAccountRates(t, b, live)
	quoteAccountRates(t, b, otherLive)
	zedTokens := countOfClient(f.ups.Callers(upsfake.OpToken), zedClientID)

	// Acme's next call is refused 401: its client fetches a new token and
	// retries; Zed's token is not touched.
	acmeTokens := countOfClient(f.ups.Callers(upsfake.OpToken), acmeClientID)
	f.ups.FailNext(upsfake.OpRate, http.StatusUnauthorized, upsfake.ErrorBody("250002", "Invalid Authentication Information."))
	quoteAccountRates(t, b, live)
	if got := countOfClient(f.ups.Callers(upsfake.OpToken), acmeClientID); got != acmeTokens+1 {
		t.Errorf("Acme fetched %d tokens after its 401, want %d", got, acmeTokens+1)
	}
	// Acme is rate limited: its quote fails, Zed's still answers.
	f.ups.FailNext(upsfake.OpRate, http.StatusTooManyRequests, upsfake.ErrorBody("9999", "slow down"))
	wantError(t, b.do("POST", "/api/v1/labels/quote", live, liveBody()), http.StatusServiceUnavailable, "carrier_unavailable")
	before := len(f.ups.Callers(upsfake.OpRate))
	quoteAccountRates(t, b, otherLive)
	if diff := cmp.Diff([]string{zedClientID}, f.ups.Callers(upsfake.OpRate)[before:]); diff != "" {
		t.Errorf("Zed's quote after Acme's 429 (-want +got):\n%s", diff)
	}
	if got := countOfClient(f.ups.Callers(upsfake.OpToken), zedClientID); got != zedTokens {
		t.Errorf("Zed fetched %d tokens, want %d: another account's 401 or 429 reached its cache", got, zedTokens)
	}

	// New credentials: checked, then the next quote goes out with them.
	const newID, newSecret = "acme-rotated-id-9999", "acme-rotated-secret-0b0b"
	f.ups.AddClient(newID, newSecret, acmeShipper)
	wantStatus(t, b.do("PATCH", "/api/v1/carrier-accounts/"+acme.ID, live, map[string]any{
		"credentials": map[string]any{"clientId": newID, "clientSecret": newSecret, "accountNumber": acmeShipper}}), http.StatusOK)
	before = len(f.ups.Callers(upsfake.OpRate))
	quoteAccountRates(t, b, live)
	if diff := cmp.Diff([]string{newID}, f.ups.Callers(upsfake.OpRate)[before:]); diff != "" {
		t.Errorf("the quote after new credentials (-want +got):\n%s", diff)
	}
}

// FedEx and USPS accounts connect with the fields each needs (USPS also its
// CRID and MID), and quote through their carriers' APIs.
func TestCarrierAccountsOfEveryCarrier(t *testing.T) {
	t.Parallel()
	b, _, live := setupCarrierAccounts(t)
	usps := map[string]any{"carrier": "USPS", "credentials": map[string]any{
		"clientId": uspsfake.ClientID, "clientSecret": uspsfake.ClientSecret, "accountNumber": uspsfake.AccountNumber}}
	m := wantError(t, b.do("POST", "/api/v1/carrier-accounts", live, usps), http.StatusUnprocessableEntity, "missing_field")
	if m["field"] != "credentials.crid" {
		t.Errorf("field %v, want credentials.crid", m["field"])
	}
	usps["credentials"].(map[string]any)["crid"] = uspsfake.CRID
	usps["credentials"].(map[string]any)["mid"] = uspsfake.MID
	r := b.doT(t, "POST", "/api/v1/carrier-accounts", live, usps)
	wantStatus(t, r, http.StatusCreated)
	var u carrierAccountDoc
	r.Decode(t, &u)
	r = b.doT(t, "POST", "/api/v1/carrier-accounts", live, map[string]any{"carrier": "FedEx", "environment": "test", "credentials": map[string]any{
		"clientId": fedexfake.ClientID, "clientSecret": fedexfake.ClientSecret, "accountNumber": fedexfake.AccountNumber}})
	wantStatus(t, r, http.StatusCreated)
	var fx carrierAccountDoc
	r.Decode(t, &fx)
	if fx.Environment != "test" || u.Environment != "production" {
		t.Errorf("environments %q and %q", fx.Environment, u.Environment)
	}
	got := map[string]string{}
	for _, rate := range quoteAccountRates(t, b, live) {
		got[rate.Carrier] = rate.CarrierAccountID
	}
	if diff := cmp.Diff(map[string]string{"USPS": u.ID, "FedEx": fx.ID}, got); diff != "" {
		t.Fatalf("carriers quoted and their carrier accounts (-want +got):\n%s", diff)
	}
}

// A label is tracked through the carrier account that bought it, also after
// that account is deleted.
func TestCarrierAccountTracksItsLabelsAfterDelete(t *testing.T) {
	t.Parallel()
	b, f, live := setupCarrierAccounts(t)
	f.ups.AddClient(acmeClientID, acmeSecret, acmeShipper)
	acme := connectUPS(t, b, live, acmeClientID, acmeSecret, acmeShipper)
	sh := createLabel(t, b, live, liveBody(withField("carrier", "UPS"), withField("service", "Ground")))
	sh = waitForStatus(t, b, live, sh.ID, "purchased")
	wantStatus(t, b.do("DELETE", "/api/v1/carrier-accounts/"+acme.ID, live, nil), http.StatusNoContent)
	waitForTracking(t, b, live, sh.ID, "delivered")
	calls := f.ups.Callers(upsfake.OpTrack)
	if len(calls) == 0 || countOfClient(calls, acmeClientID) != len(calls) {
		t.Fatalf("tracking calls by %v, want Acme's only", calls)
	}
}

// A carrier account's calls are counted like the operator's carriers': its
// quote is a UPS rates call in the metrics.
func TestCarrierAccountCallsAreMeasured(t *testing.T) {
	t.Parallel()
	b, _, live := setupCarrierAccounts(t)
	connectUPS(t, b, live, upsfake.ClientID, upsfake.ClientSecret, upsfake.AccountNumber)
	for _, r := range quoteAccountRates(t, b, live) {
		if r.CarrierAccountID == "" {
			t.Fatalf("rate %s %s not quoted through the carrier account", r.Carrier, r.Service)
		}
	}
	waitForMetrics(t, b, map[string]float64{
		`shipd_carrier_calls_total{carrier="UPS",operation="rates"}`:   1,
		`shipd_carrier_calls_total{carrier="FedEx",operation="rates"}`: 0,
	})
}

// A live standalone tracker follows its number through the account's own
// carrier account of that carrier, even after the account is deleted; an
// account without one uses the operator's carrier.
func TestCarrierAccountTracksStandaloneTrackers(t *testing.T) {
	t.Parallel()
	b, f, live := setupCarrierAccounts(t)
	f.ups.AddClient(acmeClientID, acmeSecret, acmeShipper)
	acme := connectUPS(t, b, live, acmeClientID, acmeSecret, acmeShipper)
	wantStatus(t, b.do("POST", "/api/v1/trackers", live, map[string]any{"trackingNumber": "1Z999AA10123456784"}), http.StatusCreated)
	wantStatus(t, b.do("DELETE", "/api/v1/carrier-accounts/"+acme.ID, live, nil), http.StatusNoContent)
	deadline := time.Now().Add(10 * time.Second)
	for len(f.ups.Callers(upsfake.OpTrack)) < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("the tracker was polled %d times in 10 s", len(f.ups.Callers(upsfake.OpTrack)))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if calls := f.ups.Callers(upsfake.OpTrack); countOfClient(calls, acmeClientID) != len(calls) {
		t.Fatalf("tracking calls by %v, want Acme's only", calls)
	}

	other := b.newAccount("Zed", true)
	_, otherLive := b.newToken(other.ID, "live", allScopes...)
	before := countOfClient(f.ups.Callers(upsfake.OpTrack), upsfake.ClientID)
	wantStatus(t, b.do("POST", "/api/v1/trackers", otherLive, map[string]any{"trackingNumber": "1Z999AA10123456791"}), http.StatusCreated)
	for countOfClient(f.ups.Callers(upsfake.OpTrack), upsfake.ClientID) == before {
		if time.Now().After(deadline.Add(10 * time.Second)) {
			t.Fatal("the account without a carrier account was never tracked through the operator's UPS")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

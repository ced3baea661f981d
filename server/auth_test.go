package server_test

// Authentication and authorisation through the API: every 401 and 403 code,
// immediate revocation, expiry, tokens in URLs, scopes, modes and accounts.

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/sandbox"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/shipping/addresses"
	"github.com/shipd-dev/shipd/store"
	"github.com/shipd-dev/shipd/webhooks"
)

func TestAuthCodes(t *testing.T) {
	t.Parallel()
	b := setup(t)
	revokedID, revoked := b.newToken(b.account.ID, "test", allScopes...)
	if err := b.app.Accounts.RevokeToken(context.Background(), revokedID); err != nil {
		t.Fatal(err)
	}
	unknownTest := "svc_test_" + strings.Repeat("A", accounts.TokenSecretLength)
	unknownLive := "svc_live_" + strings.Repeat("b", accounts.TokenSecretLength)

	// Each case runs against a read and a write operation: authentication
	// comes before scope checks, validation and the handler.
	ops := []struct {
		method, path string
		body         any
		okStatus     int
	}{
		{"GET", "/api/v1/addresses", nil, http.StatusOK},
		{"POST", "/api/v1/addresses", validAddress(), http.StatusCreated},
		{"GET", "/api/v1/webhooks/whk_000000000000000000000000", nil, http.StatusNotFound},
	}
	cases := []struct {
		name    string
		headers []string // Authorization; nil: none
		status  int
		code    string // "" for success
	}{
		{name: "missing header", status: 401, code: "missing_authorization"},
		{name: "empty header", headers: []string{"Authorization", ""}, status: 401, code: "missing_authorization"},
		{name: "bearer without token", headers: []string{"Authorization", "Bearer"}, status: 401, code: "invalid_token"},
		{name: "bearer with garbage", headers: []string{"Authorization", "Bearer garbage"}, status: 401, code: "invalid_token"},
		{name: "well-formed unknown test token", headers: []string{"Authorization", "Bearer " + unknownTest}, status: 401, code: "invalid_token"},
		{name: "well-formed unknown live token", headers: []string{"Authorization", "Bearer " + unknownLive}, status: 401, code: "invalid_token"},
		{name: "truncated valid token", headers: []string{"Authorization", "Bearer " + b.token[:len(b.token)-1]}, status: 401, code: "invalid_token"},
		{name: "basic credentials", headers: []string{"Authorization", "Basic dXNlcjpwYXNzd29yZA=="}, status: 401, code: "invalid_token"},
		{name: "valid secret under another scheme", headers: []string{"Authorization", "Token " + b.token}, status: 401, code: "invalid_token"},
		{name: "valid secret without scheme", headers: []string{"Authorization", b.token}, status: 401, code: "invalid_token"},
		{name: "revoked token", headers: []string{"Authorization", "Bearer " + revoked}, status: 401, code: "token_revoked"},
		{name: "valid token", headers: []string{"Authorization", "Bearer " + b.token}},
		{name: "scheme is case-insensitive", headers: []string{"Authorization", "bearer " + b.token}},
	}
	for _, tc := range cases {
		for _, op := range ops {
			t.Run(tc.name+"/"+op.method+" "+op.path, func(t *testing.T) {
				t.Parallel()
				body := op.body
				if op.method == "POST" {
					// distinct bodies: nothing here relies on them, but no two writes are equal
					body = addressBody(func(m map[string]any) { m["name"] = tc.name })
				}
				r := b.call(t, op.method, op.path, body, tc.headers...)
				if tc.code == "" {
					wantStatus(t, r, op.okStatus)
					return
				}
				wantError(t, r, tc.status, tc.code)
			})
		}
	}
}

func TestAuthRevokedTokenIsRejectedAtOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	id, tok := b.newToken(b.account.ID, "test", allScopes...)
	wantStatus(t, b.doT(t, "GET", "/api/v1/addresses", tok, nil), http.StatusOK)
	if err := b.app.Accounts.RevokeToken(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	wantError(t, b.doT(t, "GET", "/api/v1/addresses", tok, nil), 401, "token_revoked")
	wantError(t, b.doT(t, "POST", "/api/v1/addresses", tok, validAddress()), 401, "token_revoked")
	// other tokens of the account are unaffected
	wantStatus(t, b.doT(t, "GET", "/api/v1/addresses", b.token, nil), http.StatusOK)
	list := b.doT(t, "GET", "/api/v1/addresses", b.token, nil)
	var l addressList
	list.Decode(t, &l)
	if len(l.Data) != 0 {
		t.Fatalf("a revoked token stored an address: %s", list.Body)
	}
}

// Tokens are cached in memory, yet a revocation made by another process (the
// CLI on the same SQLite file, another instance on PostgreSQL) takes effect
// for the next request: on SQLite at once, on PostgreSQL when its notice
// arrives, just after the commit.
func TestAuthRevokedByAnotherProcess(t *testing.T) {
	t.Parallel()
	b := setup(t)
	id, tok := b.newToken(b.account.ID, "test", allScopes...)
	for range 3 { // cached now
		wantStatus(t, b.doT(t, "GET", "/api/v1/addresses", tok, nil), http.StatusOK)
	}
	other, err := store.Open(context.Background(), b.dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := accounts.New(other, accounts.Config{}).RevokeToken(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if !store.IsPostgres(b.dsn) {
		wantError(t, b.doT(t, "GET", "/api/v1/addresses", tok, nil), 401, "token_revoked")
	} else {
		waitUntil(t, "the revocation notice", func() bool {
			return b.doT(t, "GET", "/api/v1/addresses", tok, nil).Status == http.StatusUnauthorized
		})
	}
	wantError(t, b.doT(t, "POST", "/api/v1/addresses", tok, validAddress()), 401, "token_revoked")
	wantStatus(t, b.doT(t, "GET", "/api/v1/addresses", b.token, nil), http.StatusOK)
}

// A token revoked (or expiring) while its write request is in flight commits
// nothing: the write transaction re-reads the token.
// A token revoked or expired while its request is in flight commits
// nothing: the create below is held inside the carrier's rate call, after
// authentication and before its write, while the token is invalidated.
func TestAuthTokenInvalidatedMidRequest(t *testing.T) {
	t.Parallel()
	ways := []struct {
		name       string
		code       string
		invalidate func(b *bundle, victimID string)
	}{
		{"revoked", "token_revoked", func(b *bundle, victimID string) { b.revokeToken(victimID) }},
		{"expired", "token_expired", func(b *bundle, _ string) { b.clock.Advance(2 * time.Hour) }},
	}
	for _, way := range ways {
		t.Run(way.name, func(t *testing.T) {
			t.Parallel()
			gate := &ratesGate{held: make(chan struct{}, 8), release: make(chan struct{})}
			b := setup(t, withoutRateLimits(), withCarriers(gate.wrap(sandbox.New(sandbox.Config{})), nil))
			expires := b.clock.Now().Add(time.Hour)
			victimID, victim := b.newTokenExpiring(b.account.ID, "test", &expires, allScopes...)

			done := make(chan response, 1)
			go func() {
				r, err := b.send("POST", "/api/v1/labels/create", victim, labelBody())
				if err != nil {
					t.Error(err)
				}
				done <- r
			}()
			<-gate.held // authenticated, asking the carriers
			way.invalidate(b, victimID)
			close(gate.release)
			wantError(t, <-done, http.StatusUnauthorized, way.code)

			var l struct{ Data []any }
			b.doT(t, "GET", "/api/v1/labels", b.token, nil).Decode(t, &l)
			if len(l.Data) != 0 {
				t.Fatalf("the rejected create stored %d shipments", len(l.Data))
			}
			wantError(t, b.doT(t, "GET", "/api/v1/labels", victim, nil), http.StatusUnauthorized, way.code)
		})
	}
}

// ratesGate holds the first carrier's rate calls until release is closed.
type ratesGate struct {
	held    chan struct{}
	release chan struct{}
}

type gatedRates struct {
	carriers.Carrier
	g *ratesGate
}

func (c gatedRates) Rates(ctx context.Context, s carriers.Shipment) ([]carriers.Rate, error) {
	c.g.held <- struct{}{}
	<-c.g.release
	return c.Carrier.Rates(ctx, s)
}

func (g *ratesGate) wrap(cs []carriers.Carrier) []carriers.Carrier {
	cs[0] = gatedRates{Carrier: cs[0], g: g}
	return cs
}

// Every write made for a caller re-checks the caller's token in its own
// transaction: a caller authenticated before its token was revoked writes
// nothing, whichever service it reaches.
func TestAuthEveryWriteRechecksTheToken(t *testing.T) {
	t.Parallel()
	b := setup(t, withoutRateLimits())
	ctx := context.Background()
	sub := createWebhook(t, b, b.token, "https://example.com/kept")
	shipment := createLabel(t, b, b.token, labelBody())
	waitForStatus(t, b, b.token, shipment.ID, "purchased")

	victimID, victim := b.newToken(b.account.ID, "test", allScopes...)
	caller, err := b.app.Accounts.Authenticate(ctx, victim, "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	b.revokeToken(victimID)

	writes := map[string]func() error{
		"save address": func() error {
			_, _, err := b.app.Addresses.SaveAddress(ctx, caller, addresses.NewAddress{Address: shipping.Address{Street1: "1 Main St", City: "Austin", State: ptr("TX"), Zip: "78701", Country: "US"}})
			return err
		},
		"create label": func() error {
			_, _, err := b.app.Shipping.Create(ctx, caller, shipping.NewLabel{Input: shipping.Input{
				From:   shipping.Address{Name: ptr("Shop"), Street1: "1 Market St", City: "San Francisco", State: ptr("CA"), Zip: "94105", Country: "US"},
				To:     shipping.Address{Name: ptr("Ada Lovelace"), Street1: "350 Fifth Avenue", City: "New York", State: ptr("NY"), Zip: "10118", Country: "US"},
				Parcel: shipping.Parcel{WeightOz: new(float64(16))}}})
			return err
		},
		"refund label": func() error {
			_, _, err := b.app.Shipping.Refund(ctx, caller, shipment.ID, shipping.RefundRequest{})
			return err
		},
		"create webhook": func() error {
			_, _, err := b.app.Webhooks.Create(ctx, caller, webhooks.NewSubscription{URL: "https://example.com/new", Events: []string{"*"}})
			return err
		},
		"update webhook": func() error {
			_, err := b.app.Webhooks.Update(ctx, caller, sub["id"].(string), webhooks.Patch{Enabled: ptr(false)})
			return err
		},
		"delete webhook": func() error { return b.app.Webhooks.Delete(ctx, caller, sub["id"].(string)) },
		"send test": func() error {
			_, err := b.app.Webhooks.SendTest(ctx, caller, sub["id"].(string))
			return err
		},
	}
	for name, write := range writes {
		if err := write(); !errors.Is(err, accounts.ErrTokenRevoked) {
			t.Errorf("%s with a revoked token: err = %v, want ErrTokenRevoked", name, err)
		}
	}
	// Nothing changed.
	got := b.doT(t, "GET", "/api/v1/webhooks/"+sub["id"].(string), b.token, nil).JSON(t)
	if got["enabled"] != true {
		t.Errorf("the subscription changed: %v", got)
	}
	if sh := getLabel(t, b, b.token, shipment.ID); sh.Status != "purchased" {
		t.Errorf("the shipment moved to %s", sh.Status)
	}
	var l struct{ Data []any }
	b.doT(t, "GET", "/api/v1/addresses", b.token, nil).Decode(t, &l)
	if len(l.Data) != 0 {
		t.Errorf("an address was saved")
	}
	b.doT(t, "GET", "/api/v1/webhooks", b.token, nil).Decode(t, &l)
	if len(l.Data) != 1 {
		t.Errorf("%d subscriptions, want the 1 kept", len(l.Data))
	}
}

func TestAuthExpiredToken(t *testing.T) {
	t.Parallel()
	b := setup(t)
	expires := b.clock.Now().Add(time.Hour)
	_, tok := b.newTokenExpiring(b.account.ID, "test", &expires, allScopes...)
	wantStatus(t, b.doT(t, "GET", "/api/v1/addresses", tok, nil), http.StatusOK)
	b.clock.Advance(59 * time.Minute)
	wantStatus(t, b.doT(t, "GET", "/api/v1/addresses", tok, nil), http.StatusOK)
	b.clock.Advance(61 * time.Minute)
	wantError(t, b.doT(t, "GET", "/api/v1/addresses", tok, nil), http.StatusUnauthorized, "token_expired")
	wantError(t, b.doT(t, "POST", "/api/v1/addresses", tok, validAddress()), http.StatusUnauthorized, "token_expired")
	// a token without expiry still works
	wantStatus(t, b.doT(t, "GET", "/api/v1/addresses", b.token, nil), http.StatusOK)
}

func TestAuthTokenInQuery(t *testing.T) {
	t.Parallel()
	b := setup(t)
	someToken := "svc_test_" + strings.Repeat("Z", accounts.TokenSecretLength)
	cases := []struct {
		name   string
		method string
		path   string
		auth   bool // send a valid Authorization header too
	}{
		{"access_token by name, no header", "GET", "/api/v1/addresses?access_token=abc", false},
		{"access_token by name, valid header", "GET", "/api/v1/addresses?access_token=abc", true},
		{"token by name", "GET", "/api/v1/addresses?token=abc", false},
		{"api_key by name", "GET", "/api/v1/webhooks?api_key=abc", true},
		{"name is case-insensitive", "GET", "/api/v1/addresses?Access_Token=abc", false},
		{"empty value by name", "GET", "/api/v1/addresses?token=", false},
		{"test token as value of another parameter", "GET", "/api/v1/addresses?cursor=" + someToken, false},
		{"live token as value, with header", "GET", "/api/v1/addresses?q=svc_live_" + strings.Repeat("x", 64), true},
		{"percent-encoded token value", "GET", "/api/v1/addresses?x=" + url.QueryEscape("Bearer "+someToken), false},
		{"token by name on a write", "POST", "/api/v1/addresses?access_token=" + b.token, true},
		{"real token as value", "GET", "/api/v1/webhooks?limit=5&x=" + b.token, true},
	}
	t.Run("rejected", func(t *testing.T) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				var body any
				if tc.method == "POST" {
					body = validAddress()
				}
				token := ""
				if tc.auth {
					token = b.token
				}
				r := b.doT(t, tc.method, tc.path, token, body)
				wantError(t, r, http.StatusBadRequest, "token_in_query")
			})
		}
		t.Run("ordinary parameters pass", func(t *testing.T) {
			t.Parallel()
			wantStatus(t, b.doT(t, "GET", "/api/v1/addresses?limit=5", b.token, nil), http.StatusOK)
		})
	})
	// the rejected write stored nothing
	r := b.doT(t, "GET", "/api/v1/addresses", b.token, nil)
	var l addressList
	r.Decode(t, &l)
	if len(l.Data) != 0 {
		t.Fatalf("a request with a token in the URL was served: %s", r.Body)
	}
}

// A token that is itself the query string (?svc_test_…: a parameter whose name
// is the token and whose value is empty) is a credential in the URL as much as
// ?x=svc_test_… is, and leaks the same way into logs and proxies.
func TestAuthTokenAsQueryParameterName(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, q := range []string{"?" + b.token, "?limit=5&" + b.token} {
		r := b.doT(t, "GET", "/api/v1/addresses"+q, "", nil)
		wantError(t, r, http.StatusBadRequest, "token_in_query")
	}
}

func TestAuthScopes(t *testing.T) {
	t.Parallel()
	b := setup(t)
	missing := "/api/v1/webhooks/whk_000000000000000000000000"
	cases := []struct {
		name   string
		scopes []string
		method string
		path   string
		body   any
		status int
		scope  string // requiredScope on 403
	}{
		{"read cannot write addresses", []string{"read:addresses"}, "POST", "/api/v1/addresses", validAddress(), 403, "write:addresses"},
		{"read reads addresses", []string{"read:addresses"}, "GET", "/api/v1/addresses", nil, 200, ""},
		{"write implies read on addresses", []string{"write:addresses"}, "GET", "/api/v1/addresses", nil, 200, ""},
		{"write writes addresses", []string{"write:addresses"}, "POST", "/api/v1/addresses", validAddress(), 201, ""},
		{"other resource's scope cannot read addresses", []string{"read:webhooks", "write:webhooks", "write:shipments"}, "GET", "/api/v1/addresses", nil, 403, "read:addresses"},
		{"read cannot create webhooks", []string{"read:webhooks"}, "POST", "/api/v1/webhooks", map[string]any{"url": "https://example.com/h", "events": []string{"*"}}, 403, "write:webhooks"},
		{"read cannot update webhooks", []string{"read:webhooks"}, "PATCH", missing, map[string]any{"enabled": false}, 403, "write:webhooks"},
		{"read cannot delete webhooks", []string{"read:webhooks"}, "DELETE", missing, nil, 403, "write:webhooks"},
		{"write implies read on webhooks (list)", []string{"write:webhooks"}, "GET", "/api/v1/webhooks", nil, 200, ""},
		{"write implies read on webhooks (one)", []string{"write:webhooks"}, "GET", missing, nil, 404, ""},
		{"addresses scope cannot read webhooks", []string{"read:addresses", "write:addresses"}, "GET", "/api/v1/webhooks", nil, 403, "read:webhooks"},
		{"read cannot quote", []string{"read:shipments"}, "POST", "/api/v1/labels/quote", quoteBody(nil), 403, "write:shipments"},
		{"scope check precedes validation", []string{"read:addresses"}, "POST", "/api/v1/addresses", map[string]any{}, 403, "write:addresses"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, tok := b.as(t).newToken(b.account.ID, "test", tc.scopes...)
			r := b.doT(t, tc.method, tc.path, tok, tc.body)
			if tc.status != 403 {
				wantStatus(t, r, tc.status)
				return
			}
			m := wantError(t, r, 403, "insufficient_scope")
			if m["requiredScope"] != tc.scope {
				t.Fatalf("requiredScope = %v, want %s; body %s", m["requiredScope"], tc.scope, r.Body)
			}
		})
	}
}

func TestAuthWrongMode(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, live := b.newToken(b.account.ID, "live", "read:webhooks", "write:webhooks")
	hook := createWebhook(t, b, live, "https://example.com/live-hook", "shipment.purchased")
	if hook["mode"] != "live" {
		t.Fatalf("mode = %v, want live", hook["mode"])
	}
	id := hook["id"].(string)
	path := "/api/v1/webhooks/" + id

	wantError(t, b.doT(t, "GET", path, b.token, nil), http.StatusForbidden, "wrong_mode")
	wantError(t, b.doT(t, "PATCH", path, b.token, map[string]any{"enabled": false}), http.StatusForbidden, "wrong_mode")
	wantError(t, b.doT(t, "DELETE", path, b.token, nil), http.StatusForbidden, "wrong_mode")

	// the test token's list does not show it, and the live subscription is untouched
	r := b.doT(t, "GET", "/api/v1/webhooks", b.token, nil)
	wantStatus(t, r, 200)
	var l webhookList
	r.Decode(t, &l)
	if len(l.Data) != 0 {
		t.Fatalf("test list shows live subscriptions: %s", r.Body)
	}
	r = b.doT(t, "GET", path, live, nil)
	wantStatus(t, r, 200)
	if got := r.JSON(t); got["enabled"] != true {
		t.Fatalf("wrong-mode PATCH changed the subscription: %s", r.Body)
	}

	// and the other way round: a live token on a test subscription
	testHook := createWebhook(t, b, b.token, "http://example.com/test-hook")
	wantError(t, b.doT(t, "GET", "/api/v1/webhooks/"+testHook["id"].(string), live, nil), http.StatusForbidden, "wrong_mode")
}

func TestAuthOtherAccountIsNotFound(t *testing.T) {
	t.Parallel()
	b := setup(t)
	other := b.newAccount("Other", true)
	_, otherTok := b.newToken(other.ID, "test", allScopes...)
	theirs := createWebhook(t, b, otherTok, "https://example.com/theirs")
	theirsPath := "/api/v1/webhooks/" + theirs["id"].(string)

	// one of our own, deleted: also indistinguishable
	mine := createWebhook(t, b, b.token, "https://example.com/mine")
	minePath := "/api/v1/webhooks/" + mine["id"].(string)
	wantStatus(t, b.doT(t, "DELETE", minePath, b.token, nil), http.StatusNoContent)

	random := "/api/v1/webhooks/whk_0123456789abcdef01234567"
	for _, m := range []struct {
		method string
		body   any
	}{{"GET", nil}, {"PATCH", map[string]any{"description": "mine now"}}, {"DELETE", nil}} {
		t.Run(m.method, func(t *testing.T) {
			foreign := b.doT(t, m.method, theirsPath, b.token, m.body)
			wantError(t, foreign, http.StatusNotFound, "not_found")
			unknown := b.doT(t, m.method, random, b.token, m.body)
			wantError(t, unknown, http.StatusNotFound, "not_found")
			deleted := b.doT(t, m.method, minePath, b.token, m.body)
			wantError(t, deleted, http.StatusNotFound, "not_found")
			if diff := cmp.Diff(withoutRequestID(t, unknown), withoutRequestID(t, foreign)); diff != "" {
				t.Errorf("another account's id is distinguishable from a random id (-random +foreign):\n%s", diff)
			}
			if diff := cmp.Diff(withoutRequestID(t, unknown), withoutRequestID(t, deleted)); diff != "" {
				t.Errorf("a deleted id is distinguishable from a random id (-random +deleted):\n%s", diff)
			}
		})
	}
	// their subscription survived our PATCH and DELETE
	r := b.doT(t, "GET", theirsPath, otherTok, nil)
	wantStatus(t, r, 200)
	delete(theirs, "signingSecret")
	if diff := cmp.Diff(theirs, r.JSON(t)); diff != "" {
		t.Fatalf("another account changed the subscription (-created +now):\n%s", diff)
	}
}

// An Authorization header that is not "Bearer <token>" is answered with
// what is wrong with it, never with a piece of what it held.
func TestAuthHeaderMistakesAreNamed(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, tc := range []struct{ header, says string }{
		{b.token, "a token without the word Bearer before it"},
		{"Bearer", "the token after Bearer is missing"},
		{"Basic dXNlcjpwYXNzd29yZA==", "must be Bearer <token>, not Basic <…>"},
		{"Token " + b.token, "must be Bearer <token>, not Token <…>"},
		{"dXNlcjpwYXNzd29yZA==", "it holds a single word"},
		{"svc_test_ab cd", "a token without the word Bearer before it"},
	} {
		r := b.call(t, "GET", "/api/v1/addresses", nil, "Authorization", tc.header)
		m := wantError(t, r, http.StatusUnauthorized, "invalid_token")
		msg, _ := m["error"].(string)
		if !strings.Contains(msg, tc.says) {
			t.Errorf("Authorization %.12q…: error %q, want it to say %q", tc.header, msg, tc.says)
		}
		if strings.Contains(msg, "svc_") || strings.Contains(msg, "dXNlcjpw") {
			t.Errorf("error %q repeats what the header held", msg)
		}
	}
}

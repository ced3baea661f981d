package server

// Tests of the API's spine through real HTTP: authentication, authorisation,
// validation, error bodies, request ids, and the operations that are built
// (address book and webhook subscriptions).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/labstack/echo/v4"

	"github.com/shipd-dev/shipd/seal"
	"github.com/shipd-dev/shipd/store"
)

// ---------------------------------------------------------------------------
// helpers (prefixed "spine" so they cannot clash with the shared bundle)

// spineCall sends a request. headers are name/value pairs set exactly as
// given (an "Authorization" with value "" sends an empty header). A body that
// is not a string or []byte is marshalled; a body gets Content-Type
// application/json unless headers name a Content-Type ("" omits it).
// Unlike b.do it reports failures on t, so it is safe in subtests sharing a bundle.
func spineCall(t *testing.T, b *bundle, method, path string, body any, headers ...string) response {
	t.Helper()
	var rd io.Reader
	switch v := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(v)
	case []byte:
		rd = bytes.NewReader(v)
	case io.Reader:
		rd = v
	default:
		raw, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, b.http.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if len(headers)%2 != 0 {
		t.Fatalf("headers must be name/value pairs: %q", headers)
	}
	for i := 0; i < len(headers); i += 2 {
		name := http.CanonicalHeaderKey(headers[i])
		if name == "Content-Type" && headers[i+1] == "" {
			req.Header.Del(name)
			continue
		}
		req.Header[name] = []string{headers[i+1]}
	}
	res, err := b.http.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{Status: res.StatusCode, Header: res.Header, Body: raw}
}

// spineDo is spineCall with a bearer token ("" for no Authorization header).
func spineDo(t *testing.T, b *bundle, method, path, token string, body any) response {
	t.Helper()
	if token == "" {
		return spineCall(t, b, method, path, body)
	}
	return spineCall(t, b, method, path, body, "Authorization", "Bearer "+token)
}

func spineToken(t *testing.T, b *bundle, accountID, mode string, scopes ...string) (id, secret string) {
	t.Helper()
	tok, secret, err := b.store.CreateToken(context.Background(), accountID, mode, scopes, nil, b.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	return tok.ID, secret
}

func spineAccount(t *testing.T, b *bundle, name string) store.Account {
	t.Helper()
	a, err := b.store.CreateAccount(context.Background(), name, true, b.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func spineWantStatus(t *testing.T, r response, status int) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status = %d, want %d; body %s", r.Status, status, r.Body)
	}
}

// withoutRequestID is an error body without the one field that differs per request.
func spineWithoutRequestID(t *testing.T, r response) map[string]any {
	t.Helper()
	m := r.JSON(t)
	delete(m, "requestId")
	return m
}

func spineAddress(mod func(m map[string]any)) map[string]any {
	a := validAddress()
	if mod != nil {
		mod(a)
	}
	return a
}

func spineQuote(mod func(m map[string]any)) map[string]any {
	to := map[string]any{"name": "Grace Hopper", "street1": "1600 Pennsylvania Ave NW", "city": "Washington", "state": "DC", "zip": "20500", "country": "US"}
	q := map[string]any{"fromAddress": validAddress(), "toAddress": to, "parcel": map[string]any{"weightOz": 16}}
	if mod != nil {
		mod(q)
	}
	return q
}

func spineSub(m map[string]any, key string) map[string]any { return m[key].(map[string]any) }

type spineAddressList struct {
	Data []struct {
		ID   string `json:"id"`
		Mode string `json:"mode"`
		City string `json:"city"`
	} `json:"data"`
	NextCursor *string `json:"nextCursor"`
}

type spineWebhookList struct {
	Data []struct {
		ID   string `json:"id"`
		Mode string `json:"mode"`
		URL  string `json:"url"`
	} `json:"data"`
	NextCursor *string `json:"nextCursor"`
}

func spineCreateWebhook(t *testing.T, b *bundle, token, hookURL string, events ...string) map[string]any {
	t.Helper()
	if len(events) == 0 {
		events = []string{"shipment.purchased"}
	}
	r := spineDo(t, b, "POST", "/api/v1/webhooks", token, map[string]any{"url": hookURL, "events": events})
	spineWantStatus(t, r, http.StatusCreated)
	return r.JSON(t)
}

func spineCreateAddress(t *testing.T, b *bundle, token string, city string) map[string]any {
	t.Helper()
	r := spineDo(t, b, "POST", "/api/v1/addresses", token, spineAddress(func(m map[string]any) { m["city"] = city }))
	spineWantStatus(t, r, http.StatusCreated)
	return r.JSON(t)
}

// spineHook is a beforeWrite hook a test can arm after setup.
type spineHook struct {
	mu sync.Mutex
	fn func(ctx context.Context)
	n  int
}

func (h *spineHook) arm(fn func(ctx context.Context)) {
	h.mu.Lock()
	h.fn = fn
	h.mu.Unlock()
}

func (h *spineHook) calls() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.n
}

func (h *spineHook) run(ctx context.Context) {
	h.mu.Lock()
	fn := h.fn
	h.n++
	h.mu.Unlock()
	if fn != nil {
		fn(ctx)
	}
}

func withSpineHook(h *spineHook) setupOption {
	return func(c *Config) { c.beforeWrite = h.run }
}

// spineBuffer is a bytes.Buffer safe for concurrent use.
type spineBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *spineBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *spineBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

var spineRequestIDPattern = regexp.MustCompile(`^req_[0-9a-f]{16}$`)

// ---------------------------------------------------------------------------
// authentication

func TestSpineAuthCodes(t *testing.T) {
	t.Parallel()
	b := setup(t)
	revokedID, revoked := spineToken(t, b, b.account.ID, "test", allScopes...)
	if err := b.store.RevokeToken(context.Background(), revokedID, b.clock.Now()); err != nil {
		t.Fatal(err)
	}
	unknownTest := "svc_test_" + strings.Repeat("A", store.TokenSecretLength)
	unknownLive := "svc_live_" + strings.Repeat("b", store.TokenSecretLength)

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
					body = spineAddress(func(m map[string]any) { m["name"] = tc.name })
				}
				r := spineCall(t, b, op.method, op.path, body, tc.headers...)
				if tc.code == "" {
					spineWantStatus(t, r, op.okStatus)
					return
				}
				wantError(t, r, tc.status, tc.code)
			})
		}
	}
}

func TestSpineAuthRevokedTokenIsRejectedAtOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	id, tok := spineToken(t, b, b.account.ID, "test", allScopes...)
	spineWantStatus(t, spineDo(t, b, "GET", "/api/v1/addresses", tok, nil), http.StatusOK)
	if err := b.store.RevokeToken(context.Background(), id, b.clock.Now()); err != nil {
		t.Fatal(err)
	}
	wantError(t, spineDo(t, b, "GET", "/api/v1/addresses", tok, nil), 401, "token_revoked")
	wantError(t, spineDo(t, b, "POST", "/api/v1/addresses", tok, validAddress()), 401, "token_revoked")
	// other tokens of the account are unaffected
	spineWantStatus(t, spineDo(t, b, "GET", "/api/v1/addresses", b.token, nil), http.StatusOK)
	list := spineDo(t, b, "GET", "/api/v1/addresses", b.token, nil)
	var l spineAddressList
	list.Decode(t, &l)
	if len(l.Data) != 0 {
		t.Fatalf("a revoked token stored an address: %s", list.Body)
	}
}

// A token revoked (or expiring) while its write request is in flight commits
// nothing: the write transaction re-reads the token.
func TestSpineAuthTokenInvalidatedMidRequest(t *testing.T) {
	t.Parallel()
	type check func(t *testing.T, b *bundle, victim string, state map[string]any)
	addressesEmpty := func(t *testing.T, b *bundle, _ string, _ map[string]any) {
		r := spineDo(t, b, "GET", "/api/v1/addresses", b.token, nil)
		spineWantStatus(t, r, 200)
		var l spineAddressList
		r.Decode(t, &l)
		if len(l.Data) != 0 {
			t.Fatalf("the rejected write was stored: %s", r.Body)
		}
	}
	webhooksEmpty := func(t *testing.T, b *bundle, _ string, _ map[string]any) {
		r := spineDo(t, b, "GET", "/api/v1/webhooks", b.token, nil)
		spineWantStatus(t, r, 200)
		var l spineWebhookList
		r.Decode(t, &l)
		if len(l.Data) != 0 {
			t.Fatalf("the rejected write was stored: %s", r.Body)
		}
	}
	webhookUnchanged := func(t *testing.T, b *bundle, _ string, state map[string]any) {
		r := spineDo(t, b, "GET", "/api/v1/webhooks/"+state["id"].(string), b.token, nil)
		spineWantStatus(t, r, 200)
		got := r.JSON(t)
		delete(state, "signingSecret")
		if diff := cmp.Diff(state, got); diff != "" {
			t.Fatalf("the rejected write changed the subscription (-before +after):\n%s", diff)
		}
	}
	ops := []struct {
		name   string
		method string
		path   func(state map[string]any) string
		body   any
		after  check
	}{
		{"create address", "POST", func(map[string]any) string { return "/api/v1/addresses" }, validAddress(), addressesEmpty},
		{"create webhook", "POST", func(map[string]any) string { return "/api/v1/webhooks" },
			map[string]any{"url": "https://example.com/new", "events": []string{"*"}}, webhooksEmpty},
		{"update webhook", "PATCH", func(s map[string]any) string { return "/api/v1/webhooks/" + s["id"].(string) },
			map[string]any{"description": "changed", "enabled": false}, webhookUnchanged},
		{"delete webhook", "DELETE", func(s map[string]any) string { return "/api/v1/webhooks/" + s["id"].(string) }, nil, webhookUnchanged},
	}
	ways := []struct {
		name string
		code string
		// invalidate makes the victim token unusable; it runs inside the request.
		invalidate func(t *testing.T, b *bundle, victimID string)
	}{
		{"revoked", "token_revoked", func(t *testing.T, b *bundle, victimID string) {
			if err := b.store.RevokeToken(context.Background(), victimID, b.clock.Now()); err != nil {
				t.Errorf("revoke in hook: %v", err)
			}
		}},
		{"expired", "token_expired", func(t *testing.T, b *bundle, _ string) { b.clock.Advance(2 * time.Hour) }},
	}
	for _, way := range ways {
		for _, op := range ops {
			t.Run(way.name+"/"+op.name, func(t *testing.T) {
				t.Parallel()
				hook := &spineHook{}
				b := setup(t, withSpineHook(hook))
				expires := b.clock.Now().Add(time.Hour)
				victim, victimSecret, err := b.store.CreateToken(context.Background(), b.account.ID, "test", allScopes, &expires, b.clock.Now())
				if err != nil {
					t.Fatal(err)
				}
				// b.token does not expire: it reads the state afterwards.
				state := map[string]any{}
				if op.method != "POST" {
					r := spineDo(t, b, "POST", "/api/v1/webhooks", victimSecret,
						map[string]any{"url": "https://example.com/old", "events": []string{"shipment.purchased"}, "description": "before"})
					spineWantStatus(t, r, http.StatusCreated)
					state = r.JSON(t)
				}
				hook.arm(func(ctx context.Context) { way.invalidate(t, b, victim.ID) })
				before := hook.calls()
				r := spineDo(t, b, op.method, op.path(state), victimSecret, op.body)
				hook.arm(nil)
				if hook.calls() == before {
					t.Fatalf("the request never reached a write transaction; status %d %s", r.Status, r.Body)
				}
				wantError(t, r, http.StatusUnauthorized, way.code)
				op.after(t, b, victimSecret, state)
				// and the token stays rejected
				wantError(t, spineDo(t, b, "GET", "/api/v1/webhooks", victimSecret, nil), http.StatusUnauthorized, way.code)
			})
		}
	}
}

func TestSpineAuthExpiredToken(t *testing.T) {
	t.Parallel()
	b := setup(t)
	expires := b.clock.Now().Add(time.Hour)
	_, tok, err := b.store.CreateToken(context.Background(), b.account.ID, "test", allScopes, &expires, b.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	spineWantStatus(t, spineDo(t, b, "GET", "/api/v1/addresses", tok, nil), http.StatusOK)
	b.clock.Advance(59 * time.Minute)
	spineWantStatus(t, spineDo(t, b, "GET", "/api/v1/addresses", tok, nil), http.StatusOK)
	b.clock.Advance(61 * time.Minute)
	wantError(t, spineDo(t, b, "GET", "/api/v1/addresses", tok, nil), http.StatusUnauthorized, "token_expired")
	wantError(t, spineDo(t, b, "POST", "/api/v1/addresses", tok, validAddress()), http.StatusUnauthorized, "token_expired")
	// a token without expiry still works
	spineWantStatus(t, spineDo(t, b, "GET", "/api/v1/addresses", b.token, nil), http.StatusOK)
}

func TestSpineAuthTokenInQuery(t *testing.T) {
	t.Parallel()
	b := setup(t)
	someToken := "svc_test_" + strings.Repeat("Z", store.TokenSecretLength)
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
				r := spineDo(t, b, tc.method, tc.path, token, body)
				wantError(t, r, http.StatusBadRequest, "token_in_query")
			})
		}
		t.Run("ordinary parameters pass", func(t *testing.T) {
			t.Parallel()
			spineWantStatus(t, spineDo(t, b, "GET", "/api/v1/addresses?limit=5", b.token, nil), http.StatusOK)
		})
	})
	// the rejected write stored nothing
	r := spineDo(t, b, "GET", "/api/v1/addresses", b.token, nil)
	var l spineAddressList
	r.Decode(t, &l)
	if len(l.Data) != 0 {
		t.Fatalf("a request with a token in the URL was served: %s", r.Body)
	}
}

// A token that is itself the query string (?svc_test_…: a parameter whose name
// is the token and whose value is empty) is a credential in the URL as much as
// ?x=svc_test_… is, and leaks the same way into logs and proxies.
func TestSpineAuthTokenAsQueryParameterName(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, q := range []string{"?" + b.token, "?limit=5&" + b.token} {
		r := spineDo(t, b, "GET", "/api/v1/addresses"+q, "", nil)
		wantError(t, r, http.StatusBadRequest, "token_in_query")
	}
}

func TestSpineAuthScopes(t *testing.T) {
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
		{"no scope at all", nil, "GET", "/api/v1/addresses", nil, 403, "read:addresses"},
		{"read cannot create webhooks", []string{"read:webhooks"}, "POST", "/api/v1/webhooks", map[string]any{"url": "https://example.com/h", "events": []string{"*"}}, 403, "write:webhooks"},
		{"read cannot update webhooks", []string{"read:webhooks"}, "PATCH", missing, map[string]any{"enabled": false}, 403, "write:webhooks"},
		{"read cannot delete webhooks", []string{"read:webhooks"}, "DELETE", missing, nil, 403, "write:webhooks"},
		{"write implies read on webhooks (list)", []string{"write:webhooks"}, "GET", "/api/v1/webhooks", nil, 200, ""},
		{"write implies read on webhooks (one)", []string{"write:webhooks"}, "GET", missing, nil, 404, ""},
		{"addresses scope cannot read webhooks", []string{"read:addresses", "write:addresses"}, "GET", "/api/v1/webhooks", nil, 403, "read:webhooks"},
		{"read cannot quote", []string{"read:shipments"}, "POST", "/api/v1/labels/quote", spineQuote(nil), 403, "write:shipments"},
		{"scope check precedes validation", []string{"read:addresses"}, "POST", "/api/v1/addresses", map[string]any{}, 403, "write:addresses"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, tok := spineToken(t, b, b.account.ID, "test", tc.scopes...)
			r := spineDo(t, b, tc.method, tc.path, tok, tc.body)
			if tc.status != 403 {
				spineWantStatus(t, r, tc.status)
				return
			}
			m := wantError(t, r, 403, "insufficient_scope")
			if m["requiredScope"] != tc.scope {
				t.Fatalf("requiredScope = %v, want %s; body %s", m["requiredScope"], tc.scope, r.Body)
			}
		})
	}
}

func TestSpineAuthWrongMode(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, live := spineToken(t, b, b.account.ID, "live", "read:webhooks", "write:webhooks")
	hook := spineCreateWebhook(t, b, live, "https://example.com/live-hook", "shipment.purchased")
	if hook["mode"] != "live" {
		t.Fatalf("mode = %v, want live", hook["mode"])
	}
	id := hook["id"].(string)
	path := "/api/v1/webhooks/" + id

	wantError(t, spineDo(t, b, "GET", path, b.token, nil), http.StatusForbidden, "wrong_mode")
	wantError(t, spineDo(t, b, "PATCH", path, b.token, map[string]any{"enabled": false}), http.StatusForbidden, "wrong_mode")
	wantError(t, spineDo(t, b, "DELETE", path, b.token, nil), http.StatusForbidden, "wrong_mode")

	// the test token's list does not show it, and the live subscription is untouched
	r := spineDo(t, b, "GET", "/api/v1/webhooks", b.token, nil)
	spineWantStatus(t, r, 200)
	var l spineWebhookList
	r.Decode(t, &l)
	if len(l.Data) != 0 {
		t.Fatalf("test list shows live subscriptions: %s", r.Body)
	}
	r = spineDo(t, b, "GET", path, live, nil)
	spineWantStatus(t, r, 200)
	if got := r.JSON(t); got["enabled"] != true {
		t.Fatalf("wrong-mode PATCH changed the subscription: %s", r.Body)
	}

	// and the other way round: a live token on a test subscription
	testHook := spineCreateWebhook(t, b, b.token, "http://example.com/test-hook")
	wantError(t, spineDo(t, b, "GET", "/api/v1/webhooks/"+testHook["id"].(string), live, nil), http.StatusForbidden, "wrong_mode")
}

func TestSpineAuthOtherAccountIsNotFound(t *testing.T) {
	t.Parallel()
	b := setup(t)
	other := spineAccount(t, b, "Other")
	_, otherTok := spineToken(t, b, other.ID, "test", allScopes...)
	theirs := spineCreateWebhook(t, b, otherTok, "https://example.com/theirs")
	theirsPath := "/api/v1/webhooks/" + theirs["id"].(string)

	// one of our own, deleted: also indistinguishable
	mine := spineCreateWebhook(t, b, b.token, "https://example.com/mine")
	minePath := "/api/v1/webhooks/" + mine["id"].(string)
	spineWantStatus(t, spineDo(t, b, "DELETE", minePath, b.token, nil), http.StatusNoContent)

	random := "/api/v1/webhooks/whk_0123456789abcdef01234567"
	for _, m := range []struct {
		method string
		body   any
	}{{"GET", nil}, {"PATCH", map[string]any{"description": "mine now"}}, {"DELETE", nil}} {
		t.Run(m.method, func(t *testing.T) {
			foreign := spineDo(t, b, m.method, theirsPath, b.token, m.body)
			wantError(t, foreign, http.StatusNotFound, "not_found")
			unknown := spineDo(t, b, m.method, random, b.token, m.body)
			wantError(t, unknown, http.StatusNotFound, "not_found")
			deleted := spineDo(t, b, m.method, minePath, b.token, m.body)
			wantError(t, deleted, http.StatusNotFound, "not_found")
			if diff := cmp.Diff(spineWithoutRequestID(t, unknown), spineWithoutRequestID(t, foreign)); diff != "" {
				t.Errorf("another account's id is distinguishable from a random id (-random +foreign):\n%s", diff)
			}
			if diff := cmp.Diff(spineWithoutRequestID(t, unknown), spineWithoutRequestID(t, deleted)); diff != "" {
				t.Errorf("a deleted id is distinguishable from a random id (-random +deleted):\n%s", diff)
			}
		})
	}
	// their subscription survived our PATCH and DELETE
	r := spineDo(t, b, "GET", theirsPath, otherTok, nil)
	spineWantStatus(t, r, 200)
	delete(theirs, "signingSecret")
	if diff := cmp.Diff(theirs, r.JSON(t)); diff != "" {
		t.Fatalf("another account changed the subscription (-created +now):\n%s", diff)
	}
}

// ---------------------------------------------------------------------------
// validation

func TestSpineValidation(t *testing.T) {
	t.Parallel()
	b := setup(t)
	long := strings.Repeat("c", 201)
	cases := []struct {
		name        string
		method      string
		path        string
		body        any
		headers     []string
		status      int
		code        string
		field       string   // for missing_field / invalid_field
		errContains string   // substring of the error message
		issues      []string // paths, for invalid_request
	}{
		// 400 invalid_json
		{name: "malformed JSON", method: "POST", path: "/api/v1/addresses", body: `{"street1": "1 Main St", "city": `, status: 400, code: "invalid_json"},
		{name: "trailing garbage", method: "POST", path: "/api/v1/addresses", body: `{"street1":"x"} {}`, status: 400, code: "invalid_json"},
		{name: "empty body", method: "POST", path: "/api/v1/addresses", body: "", status: 400, code: "invalid_json"},
		{name: "wrong content type", method: "POST", path: "/api/v1/addresses", body: validAddress(), headers: []string{"Content-Type", "text/plain"}, status: 400, code: "invalid_json"},
		{name: "form content type", method: "POST", path: "/api/v1/webhooks", body: "url=https%3A%2F%2Fexample.com&events=*", headers: []string{"Content-Type", "application/x-www-form-urlencoded"}, status: 400, code: "invalid_json"},
		{name: "no content type", method: "POST", path: "/api/v1/addresses", body: validAddress(), headers: []string{"Content-Type", ""}, status: 400, code: "invalid_json"},
		{name: "malformed JSON on PATCH", method: "PATCH", path: "/api/v1/webhooks/whk_000000000000000000000000", body: `{"enabled": tru}`, status: 400, code: "invalid_json"},
		{name: "charset parameter is fine", method: "POST", path: "/api/v1/addresses", body: validAddress(), headers: []string{"Content-Type", "application/json; charset=utf-8"}, status: 201},

		// 422 missing_field
		{name: "missing city", method: "POST", path: "/api/v1/addresses", body: spineAddress(func(m map[string]any) { delete(m, "city") }),
			status: 422, code: "missing_field", field: "city"},
		{name: "missing nested toAddress.city", method: "POST", path: "/api/v1/labels/quote",
			body:   spineQuote(func(q map[string]any) { delete(spineSub(q, "toAddress"), "city") }),
			status: 422, code: "missing_field", field: "toAddress.city"},
		{name: "missing parcel", method: "POST", path: "/api/v1/labels/quote",
			body: spineQuote(func(q map[string]any) { delete(q, "parcel") }), status: 422, code: "missing_field", field: "parcel"},
		{name: "missing events", method: "POST", path: "/api/v1/webhooks", body: map[string]any{"url": "https://example.com/h"},
			status: 422, code: "missing_field", field: "events"},

		// 422 invalid_field
		{name: "three-letter country", method: "POST", path: "/api/v1/addresses", body: spineAddress(func(m map[string]any) { m["country"] = "USA" }),
			status: 422, code: "invalid_field", field: "country"},
		{name: "three-letter nested country", method: "POST", path: "/api/v1/labels/quote",
			body:   spineQuote(func(q map[string]any) { spineSub(q, "fromAddress")["country"] = "USA" }),
			status: 422, code: "invalid_field", field: "fromAddress.country"},
		{name: "zero weight", method: "POST", path: "/api/v1/labels/quote",
			body:   spineQuote(func(q map[string]any) { spineSub(q, "parcel")["weightOz"] = 0 }),
			status: 422, code: "invalid_field", field: "parcel.weightOz", errContains: "number must be greater than 0"},
		{name: "negative weight", method: "POST", path: "/api/v1/labels/quote",
			body:   spineQuote(func(q map[string]any) { spineSub(q, "parcel")["weightOz"] = -1 }),
			status: 422, code: "invalid_field", field: "parcel.weightOz", errContains: "number must be greater than 0"},
		{name: "wrong type", method: "POST", path: "/api/v1/addresses", body: spineAddress(func(m map[string]any) { m["city"] = 5 }),
			status: 422, code: "invalid_field", field: "city"},
		{name: "empty city", method: "POST", path: "/api/v1/addresses", body: spineAddress(func(m map[string]any) { m["city"] = "" }),
			status: 422, code: "invalid_field", field: "city"},
		{name: "US address without state", method: "POST", path: "/api/v1/addresses", body: spineAddress(func(m map[string]any) { delete(m, "state") }),
			status: 422, code: "invalid_field", field: "state"},
		{name: "US address with blank state", method: "POST", path: "/api/v1/addresses", body: spineAddress(func(m map[string]any) { m["state"] = "  " }),
			status: 422, code: "invalid_field", field: "state"},
		{name: "lower-case us without state", method: "POST", path: "/api/v1/addresses", body: spineAddress(func(m map[string]any) { delete(m, "state"); m["country"] = "us" }),
			status: 422, code: "invalid_field", field: "state"},
		{name: "nested US address without state", method: "POST", path: "/api/v1/labels/quote",
			body:   spineQuote(func(q map[string]any) { delete(spineSub(q, "toAddress"), "state") }),
			status: 422, code: "invalid_field", field: "toAddress.state"},
		{name: "two nested US addresses without state", method: "POST", path: "/api/v1/labels/quote",
			body: spineQuote(func(q map[string]any) {
				delete(spineSub(q, "toAddress"), "state")
				delete(spineSub(q, "fromAddress"), "state")
			}),
			status: 422, code: "invalid_request", issues: []string{"fromAddress.state", "toAddress.state"}},
		{name: "non-US address without state is fine", method: "POST", path: "/api/v1/addresses",
			body:   map[string]any{"street1": "10 Downing St", "city": "London", "zip": "SW1A 2AA", "country": "GB"},
			status: 201},
		{name: "empty events", method: "POST", path: "/api/v1/webhooks", body: map[string]any{"url": "https://example.com/h", "events": []string{}},
			status: 422, code: "invalid_field", field: "events"},
		{name: "limit 0", method: "GET", path: "/api/v1/addresses?limit=0", status: 422, code: "invalid_field", field: "limit"},
		{name: "limit 101", method: "GET", path: "/api/v1/addresses?limit=101", status: 422, code: "invalid_field", field: "limit"},
		{name: "limit not a number", method: "GET", path: "/api/v1/addresses?limit=ten", status: 422, code: "invalid_field", field: "limit"},
		{name: "limit 101 on webhooks", method: "GET", path: "/api/v1/webhooks?limit=101", status: 422, code: "invalid_field", field: "limit"},
		{name: "limit 1 and 100 are fine", method: "GET", path: "/api/v1/addresses?limit=100", status: 200},
		{name: "bad cursor", method: "GET", path: "/api/v1/addresses?cursor=not-a-cursor", status: 422, code: "invalid_field", field: "cursor"},
		{name: "cursor of the wrong version", method: "GET", path: "/api/v1/addresses?cursor=djk6MTA", status: 422, code: "invalid_field", field: "cursor"},
		{name: "bad cursor on webhooks", method: "GET", path: "/api/v1/webhooks?cursor=%21%21", status: 422, code: "invalid_field", field: "cursor"},
		{name: "overlong cursor", method: "GET", path: "/api/v1/webhooks?cursor=" + long, status: 422, code: "invalid_field", field: "cursor"},

		// 422 invalid_request with every issue
		{name: "several problems", method: "POST", path: "/api/v1/addresses",
			body:   spineAddress(func(m map[string]any) { delete(m, "city"); m["country"] = "USA"; m["zip"] = "" }),
			status: 422, code: "invalid_request", issues: []string{"city", "country", "zip"}},
		{name: "several nested problems", method: "POST", path: "/api/v1/labels/quote",
			body: spineQuote(func(q map[string]any) {
				delete(spineSub(q, "toAddress"), "city")
				spineSub(q, "fromAddress")["country"] = "USA"
				spineSub(q, "parcel")["weightOz"] = -1
			}),
			status: 422, code: "invalid_request", issues: []string{"fromAddress.country", "parcel.weightOz", "toAddress.city"}},
		{name: "limit and cursor", method: "GET", path: "/api/v1/webhooks?limit=0&cursor=" + long,
			status: 422, code: "invalid_request", issues: []string{"cursor", "limit"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			headers := append([]string{"Authorization", "Bearer " + b.token}, tc.headers...)
			r := spineCall(t, b, tc.method, tc.path, tc.body, headers...)
			if tc.code == "" {
				spineWantStatus(t, r, tc.status)
				return
			}
			m := wantError(t, r, tc.status, tc.code)
			if tc.field != "" && m["field"] != tc.field {
				t.Errorf("field = %v, want %s; body %s", m["field"], tc.field, r.Body)
			}
			if tc.errContains != "" && !strings.Contains(m["error"].(string), tc.errContains) {
				t.Errorf("error %q does not contain %q", m["error"], tc.errContains)
			}
			if tc.issues != nil {
				var body struct {
					Issues []struct {
						Path    string `json:"path"`
						Message string `json:"message"`
					} `json:"issues"`
				}
				r.Decode(t, &body)
				var paths []string
				seen := map[string]bool{}
				for _, is := range body.Issues {
					if seen[is.Path+"\x00"+is.Message] {
						t.Errorf("issue %s: %q is listed twice", is.Path, is.Message)
					}
					seen[is.Path+"\x00"+is.Message] = true
					if !slices.Contains(paths, is.Path) {
						paths = append(paths, is.Path)
					}
					if is.Message == "" {
						t.Errorf("issue %s has no message", is.Path)
					}
				}
				sort.Strings(paths)
				if diff := cmp.Diff(tc.issues, paths); diff != "" {
					t.Errorf("issue paths (-want +got):\n%s\nbody %s", diff, r.Body)
				}
			}
		})
	}
}

// Requests that fail validation never reach the handler: nothing is stored.
func TestSpineValidationNothingStoredOnFailure(t *testing.T) {
	t.Parallel()
	b := setup(t)
	bad := []any{
		`{"street1":`,
		spineAddress(func(m map[string]any) { delete(m, "city") }),
		spineAddress(func(m map[string]any) { delete(m, "state") }),
	}
	for _, body := range bad {
		r := spineDo(t, b, "POST", "/api/v1/addresses", b.token, body)
		if r.Status < 400 {
			t.Fatalf("status %d for an invalid body", r.Status)
		}
	}
	r := spineDo(t, b, "GET", "/api/v1/addresses", b.token, nil)
	var l spineAddressList
	r.Decode(t, &l)
	if len(l.Data) != 0 {
		t.Fatalf("rejected addresses were stored: %s", r.Body)
	}
}

// ---------------------------------------------------------------------------
// error bodies outside the handlers

func TestSpineErrorBodies(t *testing.T) {
	t.Parallel()
	b := setup(t)
	sized := func(n int) []byte { // a JSON object of exactly n bytes
		head, tail := []byte(`{"street1":"`), []byte(`","city":"x","zip":"1","country":"GB"}`)
		return append(append(head, bytes.Repeat([]byte("a"), n-len(head)-len(tail))...), tail...)
	}
	big := sized(2 << 20)
	cases := []struct {
		name   string
		method string
		path   string
		token  string
		body   any
		status int
		code   string
	}{
		{"unknown route under the API", "GET", "/api/v1/nope", "", nil, 404, "not_found"},
		{"unknown route with a token", "GET", "/api/v1/nope", b.token, nil, 404, "not_found"},
		{"unknown route outside the API", "GET", "/nope", "", nil, 404, "not_found"},
		{"wrong method", "PUT", "/api/v1/addresses", b.token, validAddress(), 405, "method_not_allowed"},
		{"wrong method on an item", "POST", "/api/v1/webhooks/whk_000000000000000000000000", b.token, map[string]any{}, 405, "method_not_allowed"},
		{"oversized body", "POST", "/api/v1/addresses", b.token, big, 413, "payload_too_large"},
		{"oversized body without a length", "POST", "/api/v1/addresses", b.token, io.MultiReader(bytes.NewReader(big)), 413, "payload_too_large"},
		{"one byte over 1 MiB", "POST", "/api/v1/addresses", b.token, sized(1<<20 + 1), 413, "payload_too_large"},
		{"one byte over 1 MiB without a length", "POST", "/api/v1/addresses", b.token, io.MultiReader(bytes.NewReader(sized(1<<20 + 1))), 413, "payload_too_large"},
		{"exactly 1 MiB is read (and then validated)", "POST", "/api/v1/addresses", b.token, sized(1 << 20), 422, "invalid_field"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := spineDo(t, b, tc.method, tc.path, tc.token, tc.body)
			wantError(t, r, tc.status, tc.code)
			if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type = %q, want JSON", ct)
			}
		})
	}
}

// spineOwnServer builds a bundle like setup does, but logging to logs and
// letting the test add routes (through extra) before the server is served.
func spineOwnServer(t *testing.T, logs io.Writer, extra func(e *echo.Echo)) *bundle {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "shipd.db"))
	if err != nil {
		t.Fatal(err)
	}
	cipher, err := seal.NewCipher(bytes.Repeat([]byte{9}, 32))
	if err != nil {
		t.Fatal(err)
	}
	clock := &testClock{now: time.Now().UTC()}
	e, srv, err := Setup(Config{Store: st, WebhookCipher: cipher, Now: clock.Now, UsageFlushInterval: time.Hour,
		Logger: slog.New(slog.NewTextHandler(logs, nil)), Labels: store.FileBlobs{Dir: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	if extra != nil {
		extra(e)
	}
	if err := srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(e)
	t.Cleanup(func() {
		hs.Close()
		stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Stop(stopCtx)
		_ = st.Close()
	})
	b := &bundle{t: t, store: st, server: srv, http: hs, clock: clock}
	b.account = spineAccount(t, b, "Acme")
	b.tokenID, b.token = spineToken(t, b, b.account.ID, "test", allScopes...)
	return b
}

func TestSpinePanicIsInternalError(t *testing.T) {
	t.Parallel()
	logs := &spineBuffer{}
	b := spineOwnServer(t, logs, func(e *echo.Echo) {
		e.GET("/panic-test", func(echo.Context) error { panic("boom") })
		e.GET("/error-test", func(echo.Context) error { return errors.New("database password is hunter2") })
	})

	for _, tc := range []struct{ path, secret string }{{"/panic-test", "boom"}, {"/error-test", "hunter2"}} {
		r := spineDo(t, b, "GET", tc.path, "", nil)
		m := wantError(t, r, http.StatusInternalServerError, "internal_error")
		if bytes.Contains(r.Body, []byte(tc.secret)) {
			t.Errorf("%s: the body leaks the cause: %s", tc.path, r.Body)
		}
		if !strings.Contains(logs.String(), tc.secret) {
			t.Errorf("%s: the cause was not logged:\n%s", tc.path, logs.String())
		}
		if !strings.Contains(logs.String(), m["requestId"].(string)) {
			t.Errorf("%s: the log does not name request %v", tc.path, m["requestId"])
		}
	}
	// the server survives
	spineWantStatus(t, spineDo(t, b, "GET", "/healthz", "", nil), http.StatusOK)
}

// The access log names a token by its prefix only; secrets (tokens, also when
// misplaced in the URL, and webhook signing secrets) never reach the log.
func TestSpineLogsHoldNoSecrets(t *testing.T) {
	t.Parallel()
	logs := &spineBuffer{}
	b := spineOwnServer(t, logs, nil)
	unknown := "svc_test_" + strings.Repeat("Q", store.TokenSecretLength)
	spineWantStatus(t, spineDo(t, b, "GET", "/api/v1/addresses", b.token, nil), 200)
	spineWantStatus(t, spineDo(t, b, "POST", "/api/v1/addresses", b.token, validAddress()), 201)
	hook := spineCreateWebhook(t, b, b.token, "https://example.com/logged")
	wantError(t, spineDo(t, b, "GET", "/api/v1/addresses", unknown, nil), 401, "invalid_token")
	wantError(t, spineDo(t, b, "GET", "/api/v1/addresses?access_token="+b.token, "", nil), 400, "token_in_query")
	wantError(t, spineDo(t, b, "GET", "/api/v1/webhooks/"+b.token, b.token, nil), 404, "not_found")
	wantError(t, spineDo(t, b, "GET", "/api/v1/"+b.token, "", nil), 404, "not_found")

	out := logs.String()
	prefix := b.token[:len("svc_test_")+6]
	if !strings.Contains(out, prefix) {
		t.Fatalf("the access log does not name the token prefix %s:\n%s", prefix, out)
	}
	for name, secret := range map[string]string{
		"token":          b.token[len(prefix):],
		"unknown token":  unknown[len(prefix):],
		"signing secret": strings.TrimPrefix(hook["signingSecret"].(string), "whsec_"),
	} {
		if strings.Contains(out, secret) {
			t.Errorf("the log holds the %s:\n%s", name, out)
		}
	}
}

// /readyz fails, with a JSON error body, when the database does not answer.
func TestSpineReadyzWithoutDatabase(t *testing.T) {
	t.Parallel()
	b := spineOwnServer(t, io.Discard, nil)
	spineWantStatus(t, spineDo(t, b, "GET", "/readyz", "", nil), 200)
	if err := b.store.R.Close(); err != nil {
		t.Fatal(err)
	}
	r := spineDo(t, b, "GET", "/readyz", "", nil)
	if r.Status < 500 {
		t.Fatalf("readyz with the database closed: %d %s", r.Status, r.Body)
	}
	wantError(t, r, r.Status, "database_unavailable")
	// liveness does not depend on the database
	spineWantStatus(t, spineDo(t, b, "GET", "/healthz", "", nil), 200)
}

// ---------------------------------------------------------------------------
// request ids and probes

func TestSpineRequestIDAndProbes(t *testing.T) {
	t.Parallel()
	b := setup(t)
	hook := spineCreateWebhook(t, b, b.token, "https://example.com/rid")
	cases := []struct {
		name   string
		method string
		path   string
		token  string
		body   any
		status int
		want   map[string]any // exact JSON body, when given
	}{
		{"healthz without auth", "GET", "/healthz", "", nil, 200, map[string]any{"status": "ok"}},
		{"readyz without auth", "GET", "/readyz", "", nil, 200, map[string]any{"status": "ready"}},
		{"contract as YAML without auth", "GET", "/api/v1/openapi.yaml", "", nil, 200, nil},
		{"contract as JSON without auth", "GET", "/api/v1/openapi.json", "", nil, 200, nil},
		{"list", "GET", "/api/v1/addresses", b.token, nil, 200, nil},
		{"create", "POST", "/api/v1/addresses", b.token, validAddress(), 201, nil},
		{"delete", "DELETE", "/api/v1/webhooks/" + hook["id"].(string), b.token, nil, 204, nil},
	}
	seen := map[string]bool{}
	for _, tc := range cases {
		r := spineDo(t, b, tc.method, tc.path, tc.token, tc.body)
		if r.Status != tc.status {
			t.Errorf("%s: status %d, want %d; %s", tc.name, r.Status, tc.status, r.Body)
			continue
		}
		id := r.Header.Get("X-Request-Id")
		if !spineRequestIDPattern.MatchString(id) {
			t.Errorf("%s: X-Request-Id = %q", tc.name, id)
		}
		if seen[id] {
			t.Errorf("%s: X-Request-Id %q repeated", tc.name, id)
		}
		seen[id] = true
		if tc.want != nil {
			if diff := cmp.Diff(tc.want, r.JSON(t)); diff != "" {
				t.Errorf("%s: body (-want +got):\n%s", tc.name, diff)
			}
		}
	}
	// the YAML contract is served byte for byte, the JSON one parses
	r := spineDo(t, b, "GET", "/api/v1/openapi.json", "", nil)
	if m := r.JSON(t); m["openapi"] != "3.0.3" {
		t.Errorf("openapi.json: openapi = %v", m["openapi"])
	}
}

// ---------------------------------------------------------------------------
// webhook subscriptions

func TestSpineWebhookCreate(t *testing.T) {
	t.Parallel()
	b := setup(t)
	r := spineDo(t, b, "POST", "/api/v1/webhooks", b.token, map[string]any{
		"url": "https://example.com/hooks/a", "events": []string{"shipment.purchased", "tracker.updated"}, "description": "Order system",
	})
	spineWantStatus(t, r, http.StatusCreated)
	got := r.JSON(t)
	secret, _ := got["signingSecret"].(string)
	if !strings.HasPrefix(secret, "whsec_") || len(secret) < len("whsec_")+32 {
		t.Fatalf("signingSecret = %q", secret)
	}
	id, _ := got["id"].(string)
	if !strings.HasPrefix(id, "whk_") {
		t.Fatalf("id = %q", id)
	}
	createdAt, err := time.Parse(time.RFC3339Nano, got["createdAt"].(string))
	if err != nil || createdAt.Sub(b.clock.Now()).Abs() > time.Second {
		t.Fatalf("createdAt = %v (%v), want about %v", got["createdAt"], err, b.clock.Now())
	}
	want := map[string]any{
		"id": id, "mode": "test", "url": "https://example.com/hooks/a", "events": []any{"shipment.purchased", "tracker.updated"},
		"description": "Order system", "enabled": true, "createdAt": got["createdAt"], "signingSecret": secret,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("created (-want +got):\n%s", diff)
	}

	// never returned again: not by GET, list, nor PATCH
	delete(want, "signingSecret")
	for _, rr := range []response{
		spineDo(t, b, "GET", "/api/v1/webhooks/"+id, b.token, nil),
		spineDo(t, b, "GET", "/api/v1/webhooks", b.token, nil),
		spineDo(t, b, "PATCH", "/api/v1/webhooks/"+id, b.token, map[string]any{"enabled": true}),
	} {
		spineWantStatus(t, rr, 200)
		if bytes.Contains(rr.Body, []byte("signingSecret")) || bytes.Contains(rr.Body, []byte(secret)) || bytes.Contains(rr.Body, []byte("whsec_")) {
			t.Fatalf("a later response carries the signing secret: %s", rr.Body)
		}
	}
	one := spineDo(t, b, "GET", "/api/v1/webhooks/"+id, b.token, nil)
	if diff := cmp.Diff(want, one.JSON(t)); diff != "" {
		t.Fatalf("GET (-want +got):\n%s", diff)
	}

	// stored encrypted, under the server's key
	var ciphertext string
	if err := b.store.R.Get(&ciphertext, `SELECT secret_ciphertext FROM webhook_subscriptions WHERE id = ?`, id); err != nil {
		t.Fatal(err)
	}
	rest := strings.TrimPrefix(secret, "whsec_")
	if ciphertext == "" || strings.Contains(ciphertext, secret) || strings.Contains(ciphertext, rest) || strings.Contains(ciphertext, rest[:16]) {
		t.Fatalf("the signing secret is stored in the clear: %q", ciphertext)
	}
	cipher, err := seal.NewCipher(bytes.Repeat([]byte{7}, 32)) // the bundle's key
	if err != nil {
		t.Fatal(err)
	}
	plain, err := cipher.Decrypt(ciphertext)
	if err != nil || plain != secret {
		t.Fatalf("stored secret decrypts to %q (%v), want the one returned", plain, err)
	}
	// no other column holds it either
	row := map[string]any{}
	rows, err := b.store.R.Queryx(`SELECT * FROM webhook_subscriptions WHERE id = ?`, id)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		if err := rows.MapScan(row); err != nil {
			t.Fatal(err)
		}
	}
	rows.Close()
	for col, v := range row {
		if strings.Contains(fmt.Sprintf("%s", v), rest[:16]) {
			t.Fatalf("column %s holds the secret in the clear", col)
		}
	}

	// two subscriptions get different secrets
	other := spineCreateWebhook(t, b, b.token, "https://example.com/hooks/b")
	if other["signingSecret"] == secret {
		t.Fatal("two subscriptions share a signing secret")
	}
	// enabled may be set at creation
	r = spineDo(t, b, "POST", "/api/v1/webhooks", b.token, map[string]any{"url": "https://example.com/hooks/c", "events": []string{"*"}, "enabled": false})
	spineWantStatus(t, r, http.StatusCreated)
	if m := r.JSON(t); m["enabled"] != false || m["description"] != nil {
		t.Fatalf("enabled:false / no description: %s", r.Body)
	}
	if !bytes.Contains(r.Body, []byte(`"description":null`)) {
		t.Fatalf("description must be present and null: %s", r.Body)
	}
}

func TestSpineWebhookRules(t *testing.T) {
	t.Parallel()

	t.Run("unknown event type", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		r := spineDo(t, b, "POST", "/api/v1/webhooks", b.token, map[string]any{"url": "https://example.com/h", "events": []string{"shipment.purchased", "shipment.teleported"}})
		m := wantError(t, r, 422, "invalid_event_type")
		known, _ := m["knownEvents"].([]any)
		for _, ev := range []string{"*", "shipment.purchased", "shipment.failed", "shipment.voided", "tracker.updated"} {
			if !slices.Contains(known, any(ev)) {
				t.Errorf("knownEvents %v lacks %s", known, ev)
			}
		}
		if slices.Contains(known, any("shipment.teleported")) {
			t.Errorf("knownEvents lists the unknown type")
		}
		// and on PATCH
		h := spineCreateWebhook(t, b, b.token, "https://example.com/h")
		r = spineDo(t, b, "PATCH", "/api/v1/webhooks/"+h["id"].(string), b.token, map[string]any{"events": []string{"nope"}})
		m = wantError(t, r, 422, "invalid_event_type")
		if _, ok := m["knownEvents"].([]any); !ok {
			t.Errorf("PATCH: no knownEvents: %s", r.Body)
		}
		got := spineDo(t, b, "GET", "/api/v1/webhooks/"+h["id"].(string), b.token, nil).JSON(t)
		if diff := cmp.Diff([]any{"shipment.purchased"}, got["events"]); diff != "" {
			t.Errorf("a rejected PATCH changed events:\n%s", diff)
		}
	})

	t.Run("duplicate endpoint", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		first := spineCreateWebhook(t, b, b.token, "https://example.com/dup")
		r := spineDo(t, b, "POST", "/api/v1/webhooks", b.token, map[string]any{"url": "https://example.com/dup", "events": []string{"*"}})
		wantError(t, r, http.StatusConflict, "duplicate_endpoint")
		// other accounts and the other mode are separate
		other := spineAccount(t, b, "Other")
		_, otherTok := spineToken(t, b, other.ID, "test", "write:webhooks")
		spineCreateWebhook(t, b, otherTok, "https://example.com/dup")
		_, live := spineToken(t, b, b.account.ID, "live", "write:webhooks")
		spineCreateWebhook(t, b, live, "https://example.com/dup")
		// once deleted, the URL can be subscribed again
		spineWantStatus(t, spineDo(t, b, "DELETE", "/api/v1/webhooks/"+first["id"].(string), b.token, nil), http.StatusNoContent)
		again := spineCreateWebhook(t, b, b.token, "https://example.com/dup")
		if again["id"] == first["id"] {
			t.Fatal("re-subscribing reused the deleted id")
		}
	})

	t.Run("subscription limit", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		var ids []string
		for i := range 25 {
			ids = append(ids, spineCreateWebhook(t, b, b.token, fmt.Sprintf("https://example.com/h%d", i))["id"].(string))
		}
		r := spineDo(t, b, "POST", "/api/v1/webhooks", b.token, map[string]any{"url": "https://example.com/h25", "events": []string{"*"}})
		wantError(t, r, 422, "subscription_limit")
		// the live mode has its own 25
		_, live := spineToken(t, b, b.account.ID, "live", "write:webhooks")
		spineCreateWebhook(t, b, live, "https://example.com/live")
		// deleted ones do not count
		spineWantStatus(t, spineDo(t, b, "DELETE", "/api/v1/webhooks/"+ids[3], b.token, nil), http.StatusNoContent)
		spineCreateWebhook(t, b, b.token, "https://example.com/h25")
		wantError(t, spineDo(t, b, "POST", "/api/v1/webhooks", b.token, map[string]any{"url": "https://example.com/h26", "events": []string{"*"}}), 422, "subscription_limit")
	})

	t.Run("limits hold under concurrency", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		for i := range 20 {
			spineCreateWebhook(t, b, b.token, fmt.Sprintf("https://example.com/pre%d", i))
		}
		statuses := make([]int, 12)
		var wg sync.WaitGroup
		for i := range statuses {
			wg.Go(func() {
				// two requests per URL: each URL may be subscribed once, and only 5 fit
				r := spineDo(t, b, "POST", "/api/v1/webhooks", b.token, map[string]any{"url": fmt.Sprintf("https://example.com/race%d", i/2), "events": []string{"*"}})
				statuses[i] = r.Status
			})
		}
		wg.Wait()
		count := map[int]int{}
		for _, st := range statuses {
			count[st]++
		}
		if count[201] != 5 || count[201]+count[409]+count[422] != len(statuses) {
			t.Fatalf("statuses %v", count)
		}
		var n, urls int
		if err := b.store.R.Get(&n, `SELECT count(*) FROM webhook_subscriptions WHERE revoked_at IS NULL`); err != nil || n != 25 {
			t.Fatalf("%d active subscriptions (%v), want 25", n, err)
		}
		if err := b.store.R.Get(&urls, `SELECT count(DISTINCT url) FROM webhook_subscriptions WHERE revoked_at IS NULL`); err != nil || urls != 25 {
			t.Fatalf("%d distinct URLs among 25 subscriptions (%v)", urls, err)
		}
	})

	t.Run("live mode needs a public https URL", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		_, live := spineToken(t, b, b.account.ID, "live", "write:webhooks")
		for _, u := range []string{"http://example.com/h", "https://localhost/h", "https://127.0.0.1/h", "https://10.0.0.1/h", "ftp://example.com/h", "example.com/h"} {
			r := spineDo(t, b, "POST", "/api/v1/webhooks", live, map[string]any{"url": u, "events": []string{"*"}})
			m := wantError(t, r, 422, "invalid_field")
			if m["field"] != "url" {
				t.Errorf("%s: field = %v, want url", u, m["field"])
			}
		}
		spineCreateWebhook(t, b, live, "https://example.com/h")
		// test mode accepts http
		spineCreateWebhook(t, b, b.token, "http://example.com/h")
	})

	t.Run("url and secret are immutable", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		h := spineCreateWebhook(t, b, b.token, "https://example.com/immutable")
		path := "/api/v1/webhooks/" + h["id"].(string)
		for field, value := range map[string]any{"url": "https://example.com/other", "signingSecret": "whsec_mine"} {
			r := spineDo(t, b, "PATCH", path, b.token, map[string]any{field: value, "description": "sneaky"})
			m := wantError(t, r, 422, "invalid_field")
			if m["field"] != field {
				t.Errorf("PATCH %s: field = %v", field, m["field"])
			}
		}
		got := spineDo(t, b, "GET", path, b.token, nil).JSON(t)
		delete(h, "signingSecret")
		if diff := cmp.Diff(h, got); diff != "" {
			t.Fatalf("a rejected PATCH changed the subscription:\n%s", diff)
		}
	})

	t.Run("patch", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		r := spineDo(t, b, "POST", "/api/v1/webhooks", b.token, map[string]any{"url": "https://example.com/p", "events": []string{"*"}, "description": "first"})
		spineWantStatus(t, r, 201)
		h := r.JSON(t)
		path := "/api/v1/webhooks/" + h["id"].(string)
		delete(h, "signingSecret")

		steps := []struct {
			body   any
			change map[string]any // fields expected to change
		}{
			{map[string]any{"events": []string{"shipment.delivered", "shipment.exception"}}, map[string]any{"events": []any{"shipment.delivered", "shipment.exception"}}},
			{map[string]any{"enabled": false}, map[string]any{"enabled": false}},
			{map[string]any{"description": "second"}, map[string]any{"description": "second"}},
			{map[string]any{}, map[string]any{}},
			{`{"description": null}`, map[string]any{"description": nil}},
			{map[string]any{"enabled": true, "events": []string{"*"}}, map[string]any{"enabled": true, "events": []any{"*"}}},
		}
		want := h
		for i, st := range steps {
			for k, v := range st.change {
				want[k] = v
			}
			r := spineDo(t, b, "PATCH", path, b.token, st.body)
			spineWantStatus(t, r, 200)
			if diff := cmp.Diff(want, r.JSON(t)); diff != "" {
				t.Fatalf("step %d: PATCH response (-want +got):\n%s", i, diff)
			}
			if diff := cmp.Diff(want, spineDo(t, b, "GET", path, b.token, nil).JSON(t)); diff != "" {
				t.Fatalf("step %d: GET after PATCH (-want +got):\n%s", i, diff)
			}
			if _, cleared := st.change["description"]; cleared && st.change["description"] == nil {
				if !bytes.Contains(r.Body, []byte(`"description":null`)) {
					t.Fatalf("step %d: description must be null, not absent: %s", i, r.Body)
				}
			}
		}
		wantError(t, spineDo(t, b, "PATCH", path, b.token, map[string]any{"events": []string{}}), 422, "invalid_field")
		wantError(t, spineDo(t, b, "PATCH", path, b.token, map[string]any{"enabled": "yes"}), 422, "invalid_field")
	})

	t.Run("delete", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		h := spineCreateWebhook(t, b, b.token, "https://example.com/d")
		keep := spineCreateWebhook(t, b, b.token, "https://example.com/keep")
		path := "/api/v1/webhooks/" + h["id"].(string)
		r := spineDo(t, b, "DELETE", path, b.token, nil)
		spineWantStatus(t, r, http.StatusNoContent)
		if len(r.Body) != 0 {
			t.Fatalf("204 with a body: %s", r.Body)
		}
		wantError(t, spineDo(t, b, "GET", path, b.token, nil), 404, "not_found")
		wantError(t, spineDo(t, b, "PATCH", path, b.token, map[string]any{"enabled": false}), 404, "not_found")
		wantError(t, spineDo(t, b, "DELETE", path, b.token, nil), 404, "not_found")
		list := spineDo(t, b, "GET", "/api/v1/webhooks", b.token, nil)
		var l spineWebhookList
		list.Decode(t, &l)
		if len(l.Data) != 1 || l.Data[0].ID != keep["id"] {
			t.Fatalf("list after delete: %s", list.Body)
		}
		// the row is kept, marked revoked
		var revoked *time.Time
		if err := b.store.R.Get(&revoked, `SELECT revoked_at FROM webhook_subscriptions WHERE id = ?`, h["id"]); err != nil || revoked == nil {
			t.Fatalf("deleted subscription: revoked_at %v, err %v", revoked, err)
		}
	})

	t.Run("list pages newest first", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		var created []string
		for i := range 5 {
			created = append(created, spineCreateWebhook(t, b, b.token, fmt.Sprintf("https://example.com/l%d", i))["id"].(string))
		}
		slices.Reverse(created)
		got, sizes := spinePages(t, b, "/api/v1/webhooks", 2, func(r response) []string {
			var l spineWebhookList
			r.Decode(t, &l)
			ids := []string{}
			for _, d := range l.Data {
				ids = append(ids, d.ID)
			}
			return ids
		})
		if diff := cmp.Diff(created, got); diff != "" {
			t.Fatalf("ids across pages (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]int{2, 2, 1}, sizes); diff != "" {
			t.Fatalf("page sizes (-want +got):\n%s", diff)
		}
	})
}

// spinePages walks a list with the given limit and returns every id in order
// and the page sizes; it checks nextCursor is null exactly on the last page.
func spinePages(t *testing.T, b *bundle, path string, limit int, ids func(response) []string) ([]string, []int) {
	t.Helper()
	var all []string
	var sizes []int
	cursor := ""
	for page := 0; ; page++ {
		if page > 20 {
			t.Fatal("pagination does not end")
		}
		q := url.Values{"limit": {fmt.Sprint(limit)}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		r := spineDo(t, b, "GET", path+"?"+q.Encode(), b.token, nil)
		spineWantStatus(t, r, 200)
		m := r.JSON(t)
		next, present := m["nextCursor"]
		if !present {
			t.Fatalf("nextCursor absent (must be null on the last page): %s", r.Body)
		}
		got := ids(r)
		all = append(all, got...)
		sizes = append(sizes, len(got))
		if next == nil {
			break
		}
		if len(got) != limit {
			t.Fatalf("a non-last page has %d items, want %d", len(got), limit)
		}
		cursor = next.(string)
	}
	seen := map[string]bool{}
	for _, id := range all {
		if seen[id] {
			t.Fatalf("id %s on two pages", id)
		}
		seen[id] = true
	}
	return all, sizes
}

// ---------------------------------------------------------------------------
// address book

func TestSpineAddressBook(t *testing.T) {
	t.Parallel()

	t.Run("create and read back", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		in := map[string]any{
			"name": "Ada Lovelace", "company": "Analytical Engines", "street1": "350 Fifth Avenue", "street2": "Suite 3300",
			"city": "New York", "state": "NY", "zip": "10118", "country": "US", "phone": "+1 212 555 0100",
			"email": "ada@example.com", "residential": false,
		}
		r := spineDo(t, b, "POST", "/api/v1/addresses", b.token, in)
		spineWantStatus(t, r, 201)
		got := r.JSON(t)
		if id, _ := got["id"].(string); !strings.HasPrefix(id, "adr_") {
			t.Fatalf("id = %v", got["id"])
		}
		want := map[string]any{"id": got["id"], "mode": "test", "createdAt": got["createdAt"]}
		for k, v := range in {
			want[k] = v
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("created (-want +got):\n%s", diff)
		}
		list := spineDo(t, b, "GET", "/api/v1/addresses", b.token, nil)
		spineWantStatus(t, list, 200)
		var l struct {
			Data       []map[string]any `json:"data"`
			NextCursor *string          `json:"nextCursor"`
		}
		list.Decode(t, &l)
		if len(l.Data) != 1 || l.NextCursor != nil {
			t.Fatalf("list: %s", list.Body)
		}
		if diff := cmp.Diff(got, l.Data[0]); diff != "" {
			t.Fatalf("listed differs from created (-created +listed):\n%s", diff)
		}
	})

	t.Run("pages", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		var created []string
		for i := range 5 {
			created = append(created, spineCreateAddress(t, b, b.token, fmt.Sprintf("City %d", i))["id"].(string))
		}
		slices.Reverse(created)
		addressIDs := func(r response) []string {
			var l spineAddressList
			r.Decode(t, &l)
			ids := []string{}
			for _, d := range l.Data {
				ids = append(ids, d.ID)
			}
			return ids
		}
		for _, tc := range []struct {
			limit int
			sizes []int
		}{{2, []int{2, 2, 1}}, {5, []int{5}}, {1, []int{1, 1, 1, 1, 1}}, {100, []int{5}}} {
			got, sizes := spinePages(t, b, "/api/v1/addresses", tc.limit, addressIDs)
			if diff := cmp.Diff(created, got); diff != "" {
				t.Fatalf("limit %d: ids (-want +got):\n%s", tc.limit, diff)
			}
			if diff := cmp.Diff(tc.sizes, sizes); diff != "" {
				t.Fatalf("limit %d: page sizes (-want +got):\n%s", tc.limit, diff)
			}
		}

		// a cursor is a position: an address created meanwhile does not shift later pages
		first := spineDo(t, b, "GET", "/api/v1/addresses?limit=2", b.token, nil)
		var p1 spineAddressList
		first.Decode(t, &p1)
		spineCreateAddress(t, b, b.token, "Newcomer")
		second := spineDo(t, b, "GET", "/api/v1/addresses?limit=2&cursor="+url.QueryEscape(*p1.NextCursor), b.token, nil)
		if diff := cmp.Diff(created[2:4], addressIDs(second)); diff != "" {
			t.Fatalf("second page after an insert (-want +got):\n%s", diff)
		}
	})

	t.Run("default page size is 25", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		for i := range 26 {
			spineCreateAddress(t, b, b.token, fmt.Sprintf("C%d", i))
		}
		r := spineDo(t, b, "GET", "/api/v1/addresses", b.token, nil)
		var l spineAddressList
		r.Decode(t, &l)
		if len(l.Data) != 25 || l.NextCursor == nil {
			t.Fatalf("first default page: %d items, nextCursor %v", len(l.Data), l.NextCursor)
		}
		if l.Data[0].City != "C25" {
			t.Fatalf("not newest first: %s", l.Data[0].City)
		}
	})

	t.Run("accounts are isolated", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		spineCreateAddress(t, b, b.token, "Mine")
		other := spineAccount(t, b, "Other")
		_, otherTok := spineToken(t, b, other.ID, "test", "read:addresses", "write:addresses")
		r := spineDo(t, b, "GET", "/api/v1/addresses", otherTok, nil)
		spineWantStatus(t, r, 200)
		var l spineAddressList
		r.Decode(t, &l)
		if len(l.Data) != 0 {
			t.Fatalf("another account sees my addresses: %s", r.Body)
		}
		spineCreateAddress(t, b, otherTok, "Theirs")
		r = spineDo(t, b, "GET", "/api/v1/addresses", b.token, nil)
		r.Decode(t, &l)
		if len(l.Data) != 1 || l.Data[0].City != "Mine" {
			t.Fatalf("my list: %s", r.Body)
		}
		// a cursor does not cross accounts either
		r = spineDo(t, b, "GET", "/api/v1/addresses?limit=1", otherTok, nil)
		r.Decode(t, &l)
		if len(l.Data) != 1 || l.Data[0].City != "Theirs" {
			t.Fatalf("their list: %s", r.Body)
		}
	})

	t.Run("modes are isolated", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		spineCreateAddress(t, b, b.token, "Test city")
		_, live := spineToken(t, b, b.account.ID, "live", "read:addresses", "write:addresses")
		r := spineDo(t, b, "GET", "/api/v1/addresses", live, nil)
		spineWantStatus(t, r, 200)
		var l spineAddressList
		r.Decode(t, &l)
		if len(l.Data) != 0 {
			t.Fatalf("live sees test addresses: %s", r.Body)
		}
		created := spineCreateAddress(t, b, live, "Live city")
		if created["mode"] != "live" {
			t.Fatalf("mode = %v", created["mode"])
		}
		r = spineDo(t, b, "GET", "/api/v1/addresses", live, nil)
		r.Decode(t, &l)
		if len(l.Data) != 1 || l.Data[0].City != "Live city" || l.Data[0].Mode != "live" {
			t.Fatalf("live list: %s", r.Body)
		}
		r = spineDo(t, b, "GET", "/api/v1/addresses", b.token, nil)
		r.Decode(t, &l)
		if len(l.Data) != 1 || l.Data[0].City != "Test city" || l.Data[0].Mode != "test" {
			t.Fatalf("test list: %s", r.Body)
		}
	})
}

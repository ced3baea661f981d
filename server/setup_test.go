package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/seal"
	"github.com/shipd-dev/shipd/store"
)

var allScopes = []string{"read:shipments", "write:shipments", "read:addresses", "write:addresses", "read:webhooks", "write:webhooks"}

// testClock is a controllable clock.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// bundle is one server on a fresh database, reached over real HTTP.
type bundle struct {
	t       *testing.T
	store   *store.Store
	server  *Server
	http    *httptest.Server
	clock   *testClock
	account store.Account
	token   string // test mode, every scope
	tokenID string
}

type setupOption func(*Config)

func setup(t *testing.T, opts ...setupOption) *bundle {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "shipd.db"))
	if err != nil {
		t.Fatal(err)
	}
	cipher, err := seal.NewCipher(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	clock := &testClock{now: time.Now().UTC()}
	cfg := Config{Store: st, WebhookCipher: cipher, Now: clock.Now, UsageFlushInterval: time.Hour,
		Labels: store.FileBlobs{Dir: t.TempDir()}, PurchaseRetryBase: 20 * time.Millisecond, JobPollInterval: 10 * time.Millisecond}
	for _, o := range opts {
		o(&cfg)
	}
	e, srv, err := Setup(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(e)
	b := &bundle{t: t, store: st, server: srv, http: hs, clock: clock}
	t.Cleanup(func() {
		hs.Close()
		stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Stop(stopCtx)
		_ = st.Close()
	})
	b.account = b.newAccount("Acme", true)
	b.tokenID, b.token = b.newToken(b.account.ID, "test", allScopes...)
	return b
}

func (b *bundle) newAccount(name string, paymentMethod bool) store.Account {
	b.t.Helper()
	a, err := b.store.CreateAccount(context.Background(), name, paymentMethod, b.clock.Now())
	if err != nil {
		b.t.Fatal(err)
	}
	return a
}

func (b *bundle) newToken(accountID, mode string, scopes ...string) (id, secret string) {
	b.t.Helper()
	tok, secret, err := b.store.CreateToken(context.Background(), accountID, mode, scopes, nil, b.clock.Now())
	if err != nil {
		b.t.Fatal(err)
	}
	return tok.ID, secret
}

// response is a finished HTTP exchange.
type response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into a generic map (fails the test when it is not an object).
func (r response) JSON(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("body is not a JSON object: %v\n%s", err, r.Body)
	}
	return m
}

// Decode decodes the body into v.
func (r response) Decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decode %T: %v\n%s", v, err, r.Body)
	}
}

// send sends a request with the given token ("" for none) and header
// name/value pairs; body is marshalled unless it is a string or []byte, which
// are sent as they are. It fails no test, so any goroutine may call it.
func (b *bundle) send(method, path, token string, body any, header ...string) (response, error) {
	var rd io.Reader
	switch v := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(v)
	case []byte:
		rd = bytes.NewReader(v)
	default:
		raw, err := json.Marshal(v)
		if err != nil {
			return response{}, err
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, b.http.URL+path, rd)
	if err != nil {
		return response{}, err
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := b.http.Client().Do(req)
	if err != nil {
		return response{}, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return response{}, err
	}
	return response{Status: res.StatusCode, Header: res.Header, Body: raw}, nil
}

// doT is send that fails t on a transport error.
func (b *bundle) doT(t *testing.T, method, path, token string, body any) response {
	t.Helper()
	r, err := b.send(method, path, token, body)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// do is doT for the test that made the bundle.
func (b *bundle) do(method, path, token string, body any) response {
	b.t.Helper()
	return b.doT(b.t, method, path, token, body)
}

// wantError checks an error response: status, code, and the request id in body and header.
func wantError(t *testing.T, r response, status int, code string) map[string]any {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status = %d, want %d; body %s", r.Status, status, r.Body)
	}
	m := r.JSON(t)
	if m["code"] != code {
		t.Fatalf("code = %v, want %s; body %s", m["code"], code, r.Body)
	}
	if s, _ := m["error"].(string); s == "" {
		t.Fatalf("error message missing: %s", r.Body)
	}
	if id := r.Header.Get("X-Request-Id"); id == "" || m["requestId"] != id {
		t.Fatalf("requestId %v does not match X-Request-Id %q", m["requestId"], id)
	}
	return m
}

func validAddress() map[string]any {
	return map[string]any{"name": "Ada Lovelace", "street1": "350 Fifth Avenue", "city": "New York", "state": "NY", "zip": "10118", "country": "US"}
}

package server_test

// The shared test bundle and helpers of the HTTP tests: one shipd, assembled
// by app.New as cmd/shipd assembles it, on a fresh database, reached over
// real HTTP. Every helper of the HTTP tests lives in this file.

import (
	"regexp"

	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/jmoiron/sqlx"
	_ "github.com/mattn/go-sqlite3"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/app"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/sandbox"
	"github.com/shipd-dev/shipd/carriers/verifier"
	"github.com/shipd-dev/shipd/internal/fakeclock"
	"github.com/shipd-dev/shipd/seal"
	"github.com/shipd-dev/shipd/server"
	"github.com/shipd-dev/shipd/store"
	"github.com/shipd-dev/shipd/store/storetest"
)

var allScopes = accounts.Scopes()

// syncBuffer is a bytes.Buffer safe for concurrent use (a log sink).
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// bundle is one shipd on a fresh database, reached over real HTTP.
type bundle struct {
	t     testing.TB
	app   *app.App
	store *store.Store // for the tests that look at what is stored
	lock  *store.ServerLock
	http  *httptest.Server
	clock *fakeclock.Clock
	dsn   string // the database: a SQLite file or a PostgreSQL URL
	docs  string // the label documents' directory

	account accounts.Account
	token   string // test mode, every scope
	tokenID string
}

type setupOption func(*app.Config)

// testConfig is the configuration every bundle starts from: the sandbox
// carriers and verifier, quick job polling and purchase retries, no
// periodic flush of token use, and the given clock.
func testConfig(t testing.TB, st *store.Store, clock *fakeclock.Clock, docs string) app.Config {
	cipher, err := seal.NewCipher(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	return app.Config{
		Store: st, Cipher: cipher, Now: clock.Now, UsageFlushInterval: time.Hour,
		Documents:         openDocs(t, docs),
		Carriers:          carriers.NewRegistry(sandbox.New(sandbox.Config{}), nil),
		TestVerifier:      verifier.NewSandbox(),
		PurchaseRetryBase: 20 * time.Millisecond, JobPollInterval: 10 * time.Millisecond,
	}
}

func setup(t testing.TB, opts ...setupOption) *bundle {
	t.Helper()
	clock := fakeclock.New(time.Now().UTC())
	b := start(t, storetest.NewDatabase(t), t.TempDir(), clock, opts...)
	b.account = b.newAccount("Acme", true)
	b.tokenID, b.token = b.newToken(b.account.ID, "test", allScopes...)
	return b
}

// start serves shipd on the database dsn (storetest.NewDatabase; a second
// start on the same dsn is a restart) with label documents in docs; the
// bundle has no account yet. stop ends it early.
func start(t testing.TB, dsn, docs string, clock *fakeclock.Clock, opts ...setupOption) *bundle {
	t.Helper()
	return startInstance(t, dsn, docs, clock, true, opts...)
}

// startInstance is start; serving says whether it serves its SQLite file
// as serve does (the ServerLock, with rows cached) or is one of several
// instances on it, which only the tests of several instances do.
func startInstance(t testing.TB, dsn, docs string, clock *fakeclock.Clock, serving bool, opts ...setupOption) *bundle {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	var lock *store.ServerLock
	if serving && !storetest.Postgres() {
		// As serve does: one server per SQLite file, which caches the rows it alone writes.
		if lock, err = store.LockForServing(dsn); err != nil {
			t.Fatal(err)
		}
		st.CacheDetails(lock)
	}
	// The URL must be known before app.New: labelUrl is built from it.
	hs := httptest.NewUnstartedServer(nil)
	cfg := testConfig(t, st, clock, docs)
	cfg.PublicURL = "http://" + hs.Listener.Addr().String()
	for _, o := range opts {
		o(&cfg)
	}
	a, err := app.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Start(ctx); err != nil {
		t.Fatal(err)
	}
	hs.Config.Handler = a.Handler()
	hs.Start()
	b := &bundle{t: t, app: a, store: st, lock: lock, http: hs, clock: clock, dsn: dsn, docs: docs}
	t.Cleanup(func() { b.stop(10 * time.Second) })
	return b
}

// sql opens the database beside the server, for the tests that check what
// is stored (secrets at rest, rows kept for audit).
func (b *bundle) sql(t testing.TB) rawDB {
	t.Helper()
	driver, dsn := "sqlite3", "file:"+b.dsn+"?mode=ro&_busy_timeout=10000"
	if storetest.Postgres() {
		driver, dsn = "pgx", b.dsn
	}
	db, err := sqlx.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return rawDB{db}
}

// rawDB takes queries written with ? whatever the database.
type rawDB struct{ db *sqlx.DB }

func (r rawDB) Get(dest any, query string, args ...any) error {
	return r.db.Get(dest, r.db.Rebind(query), args...)
}

func (r rawDB) SelectContext(ctx context.Context, dest any, query string, args ...any) error {
	return r.db.SelectContext(ctx, dest, r.db.Rebind(query), args...)
}

func (r rawDB) Queryx(query string, args ...any) (*sqlx.Rows, error) {
	return r.db.Queryx(r.db.Rebind(query), args...)
}

var requestIDPattern = regexp.MustCompile(`^req_[0-9a-f]{16}$`)

// stop shuts the server down (in-flight jobs get grace to finish); a second stop does nothing.
func (b *bundle) stop(grace time.Duration) error {
	if b.http == nil {
		return nil
	}
	b.http.Close()
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	err := b.app.Stop(ctx)
	if cerr := b.store.Close(); err == nil {
		err = cerr
	}
	if b.lock != nil {
		b.lock.Release()
	}
	b.http = nil
	return err
}

// openDocs opens label documents in dir, closed when the test ends.
func openDocs(t testing.TB, dir string) *store.Blobs {
	t.Helper()
	docs, err := store.OpenBlobs(context.Background(), (&url.URL{Scheme: "file", Path: dir}).String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { docs.Close() })
	return docs
}

func withCarriers(test, live []carriers.Carrier) setupOption {
	return func(c *app.Config) { c.Carriers = carriers.NewRegistry(test, live) }
}

func withSandbox(scan time.Duration) setupOption {
	return withCarriers(sandbox.New(sandbox.Config{ScanInterval: scan}), nil)
}

func withRateLimits(limits map[server.Group]server.RateLimit) setupOption {
	return func(c *app.Config) { c.RateLimits.Limits = limits }
}

func withoutRateLimits() setupOption {
	return func(c *app.Config) { c.RateLimits.Disabled = true }
}

func withLogs(w io.Writer) setupOption {
	return func(c *app.Config) { c.Logger = slog.New(slog.NewTextHandler(w, nil)) }
}

// as is the bundle reporting to t: helpers called from a subtest must fail the subtest.
func (b *bundle) as(t testing.TB) *bundle {
	c := *b
	c.t = t
	return &c
}

func (b *bundle) newAccount(name string, paymentMethod bool) accounts.Account {
	b.t.Helper()
	a, err := b.app.Accounts.CreateAccount(context.Background(), name, paymentMethod)
	if err != nil {
		b.t.Fatal(err)
	}
	return a
}

// billIn bills the bundle's account in currency (before its first label):
// a European shop's account, whose carriers price in its currency.
func (b *bundle) billIn(currency string) {
	b.t.Helper()
	if err := b.app.Accounts.SetCurrency(context.Background(), b.account.ID, currency); err != nil {
		b.t.Fatal(err)
	}
	b.account.Currency = currency
}

func (b *bundle) newToken(accountID, mode string, scopes ...string) (id, secret string) {
	b.t.Helper()
	return b.newTokenExpiring(accountID, mode, nil, scopes...)
}

func (b *bundle) newTokenExpiring(accountID, mode string, expires *time.Time, scopes ...string) (id, secret string) {
	b.t.Helper()
	tok, secret, err := b.app.Accounts.CreateToken(context.Background(), accounts.NewToken{
		AccountID: accountID, Mode: accounts.Mode(mode), Scopes: scopes, ExpiresAt: expires})
	if err != nil {
		b.t.Fatal(err)
	}
	return tok.ID, secret
}

func (b *bundle) revokeToken(id string) {
	b.t.Helper()
	if err := b.app.Accounts.RevokeToken(context.Background(), id); err != nil {
		b.t.Fatal(err)
	}
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

// send sends a request. headers are name/value pairs set exactly as given
// (an "Authorization" with value "" sends an empty header). A body that is not
// a string, []byte or io.Reader is marshalled; a body gets Content-Type
// application/json unless headers name a Content-Type ("" omits it). It
// fails no test, so any goroutine may call it.
func (b *bundle) send(method, path, token string, body any, headers ...string) (response, error) {
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
	for i := 0; i+1 < len(headers); i += 2 {
		name := http.CanonicalHeaderKey(headers[i])
		if name == "Content-Type" && headers[i+1] == "" {
			req.Header.Del(name)
			continue
		}
		if name == "Host" { // Go sends req.Host, not a Host header
			req.Host = headers[i+1]
			continue
		}
		req.Header[name] = []string{headers[i+1]}
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

// call is send without a token that fails t on a transport error; headers as for send.
func (b *bundle) call(t testing.TB, method, path string, body any, headers ...string) response {
	t.Helper()
	if len(headers)%2 != 0 {
		t.Fatalf("headers must be name/value pairs: %q", headers)
	}
	r, err := b.send(method, path, "", body, headers...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// doT sends with a bearer token ("" for none) and fails t on a transport error.
func (b *bundle) doT(t testing.TB, method, path, token string, body any) response {
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

// wantStatus checks a response's status.
func wantStatus(t *testing.T, r response, status int) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status = %d, want %d; body %s", r.Status, status, r.Body)
	}
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

// waitUntil polls cond until it holds or 10 s pass.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitDeadline)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func ptr[T any](v T) *T { return &v }

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func validAddress() map[string]any {
	return map[string]any{"name": "Ada Lovelace", "street1": "350 Fifth Avenue", "city": "New York", "state": "NY", "zip": "10118", "country": "US"}
}

// withoutRequestID is an error body without the one field that differs per request.
func withoutRequestID(t *testing.T, r response) map[string]any {
	t.Helper()
	m := r.JSON(t)
	delete(m, "requestId")
	return m
}

func addressBody(mod func(m map[string]any)) map[string]any {
	a := validAddress()
	if mod != nil {
		mod(a)
	}
	return a
}

func quoteBody(mod func(m map[string]any)) map[string]any {
	from := validAddress()
	from["phone"] = "212 555 0100"
	to := map[string]any{"name": "Grace Hopper", "phone": "202 555 0111", "street1": "1600 Pennsylvania Ave NW", "city": "Washington", "state": "DC", "zip": "20500", "country": "US"}
	q := map[string]any{"fromAddress": from, "toAddress": to, "parcel": map[string]any{"weightOz": 16}}
	if mod != nil {
		mod(q)
	}
	return q
}

func object(m map[string]any, key string) map[string]any { return m[key].(map[string]any) }

type addressList struct {
	Data []struct {
		ID   string `json:"id"`
		Mode string `json:"mode"`
		City string `json:"city"`
	} `json:"data"`
	NextCursor *string `json:"nextCursor"`
}

type webhookList struct {
	Data []struct {
		ID   string `json:"id"`
		Mode string `json:"mode"`
		URL  string `json:"url"`
	} `json:"data"`
	NextCursor *string `json:"nextCursor"`
}

func createWebhook(t *testing.T, b *bundle, token, hookURL string, events ...string) map[string]any {
	t.Helper()
	if len(events) == 0 {
		events = []string{"shipment.purchased"}
	}
	r := b.doT(t, "POST", "/api/v1/webhooks", token, map[string]any{"url": hookURL, "events": events})
	wantStatus(t, r, http.StatusCreated)
	return r.JSON(t)
}

func createAddress(t *testing.T, b *bundle, token string, city string) map[string]any {
	t.Helper()
	r := b.doT(t, "POST", "/api/v1/addresses", token, addressBody(func(m map[string]any) { m["city"] = city }))
	wantStatus(t, r, http.StatusCreated)
	return r.JSON(t)
}

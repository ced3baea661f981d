package ui_test

// The test bundle of the UI tests: one shipd assembled by app.New (as
// cmd/shipd assembles it) on a fresh database, reached over real HTTP, and
// "browsers": HTTP clients with a cookie jar that do not follow redirects.

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/app"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/connectors"
	"github.com/shipd-dev/shipd/carriers/sandbox"
	"github.com/shipd-dev/shipd/carriers/verifier"
	"github.com/shipd-dev/shipd/internal/fakeclock"
	"github.com/shipd-dev/shipd/seal"
	"github.com/shipd-dev/shipd/store"
	"github.com/shipd-dev/shipd/store/storetest"
)

const password = "correct horse battery staple"

// bundle is one shipd with one account, its user and a test token.
type bundle struct {
	t     *testing.T
	app   *app.App
	store *store.Store
	http  *httptest.Server
	clock *fakeclock.Clock

	account accounts.Account
	email   string
	token   string // test mode, every scope
}

type option func(*app.Config)

func setup(t *testing.T, opts ...option) *bundle {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, storetest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	docs, err := store.OpenBlobs(ctx, (&url.URL{Scheme: "file", Path: t.TempDir()}).String())
	if err != nil {
		t.Fatal(err)
	}
	cipher, err := seal.NewCipher(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	clock := fakeclock.New(time.Now().UTC())
	hs := httptest.NewUnstartedServer(nil)
	cfg := app.Config{
		Store: st, Cipher: cipher, Now: clock.Now, UsageFlushInterval: time.Hour, Documents: docs,
		Carriers:     carriers.NewRegistry(sandbox.New(sandbox.Config{ScanInterval: 50 * time.Millisecond}), nil),
		TestVerifier: verifier.NewSandbox(), PurchaseRetryBase: 20 * time.Millisecond, JobPollInterval: 10 * time.Millisecond,
		PublicURL:    "http://" + hs.Listener.Addr().String(),
		PasswordCost: bcrypt.MinCost,
	}
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
	t.Cleanup(func() {
		hs.Close()
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = a.Stop(sctx)
		_ = docs.Close()
		_ = st.Close()
	})
	b := &bundle{t: t, app: a, store: st, http: hs, clock: clock}
	b.account, b.email, b.token = b.newAccount("Acme", "ada@example.com")
	return b
}

// newAccount makes an account with a user (password) and a test token with every scope.
func (b *bundle) newAccount(name, email string) (accounts.Account, string, string) {
	b.t.Helper()
	return b.newAccountIn(name, email, "")
}

// newAccountIn is newAccount billed in currency ("": the default).
func (b *bundle) newAccountIn(name, email, currency string) (accounts.Account, string, string) {
	b.t.Helper()
	ctx := context.Background()
	a, err := b.app.Accounts.CreateAccountWith(ctx, accounts.NewAccount{Name: name, HasPaymentMethod: true, Currency: currency})
	if err != nil {
		b.t.Fatal(err)
	}
	if _, err := b.app.Accounts.CreateUser(ctx, a.ID, email, password); err != nil {
		b.t.Fatal(err)
	}
	_, secret, err := b.app.Accounts.CreateToken(ctx, accounts.NewToken{AccountID: a.ID, Mode: accounts.Test, Scopes: accounts.Scopes()})
	if err != nil {
		b.t.Fatal(err)
	}
	return a, email, secret
}

// liveToken makes a live token with every scope for account.
func (b *bundle) liveToken(account string) string {
	b.t.Helper()
	_, secret, err := b.app.Accounts.CreateToken(context.Background(), accounts.NewToken{AccountID: account, Mode: accounts.Live, Scopes: accounts.Scopes()})
	if err != nil {
		b.t.Fatal(err)
	}
	return secret
}

// browser is a user agent with cookies that shows each redirect instead of following it.
type browser struct {
	t      *testing.T
	b      *bundle
	client *http.Client
	// header is sent with every request (Origin, Sec-Fetch-Site).
	header http.Header
}

func (b *bundle) browser() *browser {
	jar, err := cookiejar.New(nil)
	if err != nil {
		b.t.Fatal(err)
	}
	return &browser{t: b.t, b: b, header: http.Header{}, client: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// page is an answer of the UI.
type page struct {
	status int
	header http.Header
	body   string
}

// location is the redirect's target path (and query).
func (p page) location() string {
	u, err := url.Parse(p.header.Get("Location"))
	if err != nil {
		return p.header.Get("Location")
	}
	return u.RequestURI()
}

func (br *browser) do(method, path string, form url.Values) page {
	br.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, br.b.http.URL+path, body)
	if err != nil {
		br.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range br.header {
		req.Header[k] = v
	}
	res, err := br.client.Do(req)
	if err != nil {
		br.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		br.t.Fatal(err)
	}
	return page{status: res.StatusCode, header: res.Header, body: string(raw)}
}

func (br *browser) get(path string) page { br.t.Helper(); return br.do(http.MethodGet, path, nil) }

func (br *browser) post(path string, form url.Values) page {
	br.t.Helper()
	if form == nil {
		form = url.Values{}
	}
	return br.do(http.MethodPost, path, form)
}

// signIn signs in and fails the test unless it worked.
func (br *browser) signIn(email string) {
	br.t.Helper()
	p := br.post("/settings/login", url.Values{"email": {email}, "password": {password}, "next": {"/settings/tokens"}})
	if p.status != http.StatusSeeOther || p.location() != "/settings/tokens" {
		br.t.Fatalf("sign in as %s: %d → %q\n%s", email, p.status, p.location(), p.body)
	}
}

// sessionCookie is the session cookie the browser holds, nil when none.
func (br *browser) sessionCookie() *http.Cookie {
	u, _ := url.Parse(br.b.http.URL)
	for _, c := range br.client.Jar.Cookies(u) {
		if c.Name == "shipd_session" {
			return c
		}
	}
	return nil
}

// must fails the test unless the page has status and contains every text.
func must(t *testing.T, what string, p page, status int, texts ...string) {
	t.Helper()
	if p.status != status {
		t.Fatalf("%s: status %d, want %d (location %q)\n%s", what, p.status, status, p.header.Get("Location"), p.body)
	}
	for _, text := range texts {
		if !strings.Contains(p.body, text) {
			t.Fatalf("%s: the page lacks %q\n%s", what, text, p.body)
		}
	}
}

// api calls the REST API with a token.
func (b *bundle) api(method, path, token string, body any) (int, map[string]any) {
	b.t.Helper()
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			b.t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, b.http.URL+"/api/v1"+path, rd)
	if err != nil {
		b.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(res.Body).Decode(&out)
	return res.StatusCode, out
}

// buyLabel buys a label through the API and waits until it is purchased.
func (b *bundle) buyLabel(token string) string {
	b.t.Helper()
	status, body := b.api("POST", "/labels/create", token, map[string]any{
		"fromAddress": map[string]any{"name": "Shop", "phone": "415 555 0100", "street1": "1 Market St", "city": "San Francisco", "state": "CA", "zip": "94105", "country": "US"},
		"toAddress":   map[string]any{"name": "Ada Lovelace", "phone": "212 555 0199", "street1": "350 Fifth Avenue", "city": "New York", "state": "NY", "zip": "10118", "country": "US"},
		"parcel":      map[string]any{"weightOz": 32},
	})
	if status != http.StatusAccepted {
		b.t.Fatalf("POST /labels/create: %d %v", status, body)
	}
	id := body["id"].(string)
	eventually(b.t, func() bool {
		_, sh := b.api("GET", "/labels/"+id, token, nil)
		return sh["status"] == "purchased"
	})
	return id
}

// eventually waits up to 10 s for cond.
func eventually(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second) // ends as soon as cond holds
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 30 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

var idPattern = func(prefix string) *regexp.Regexp { return regexp.MustCompile(prefix + `_[0-9a-f]{24}`) }

// withCarrierAccounts lets tenants connect carrier accounts whose clients
// reach the given base URLs (the carriers' fakes).
func withCarrierAccounts(urls map[carriers.ID]carriers.Endpoints) option {
	return func(c *app.Config) {
		c.CarrierAccounts = connectors.Catalog().Factory(carriers.FactoryOptions{URLs: urls})
	}
}

// connectCarrierAccount connects a carrier account with token (live) and
// returns its id.
func (b *bundle) connectCarrierAccount(t *testing.T, token string, body map[string]any) string {
	t.Helper()
	status, ca := b.api("POST", "/carrier-accounts", token, body)
	if status != http.StatusCreated {
		t.Fatalf("POST /carrier-accounts: %d %v", status, ca)
	}
	return ca["id"].(string)
}

// waitBatchCompleted waits until the batch is completed.
func (b *bundle) waitBatchCompleted(t *testing.T, id string) {
	t.Helper()
	eventually(t, func() bool {
		_, got := b.api("GET", "/batches/"+id, b.token, nil)
		return got["status"] == "completed"
	})
}

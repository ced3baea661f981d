package main

// The command-line contract, end to end through run: the admin commands print
// JSON on stdout, mistakes go to stderr with a non-zero exit, and serve runs
// the API until its context ends.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/store"
)

// syncBuffer is a bytes.Buffer safe for concurrent use (serve writes from its goroutine).
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

// cli runs one command to completion.
func cli(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut syncBuffer
	code = run(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// cliOK runs a command that must succeed and decodes its JSON output.
func cliOK(t *testing.T, v any, args ...string) string {
	t.Helper()
	code, stdout, stderr := cli(t, args...)
	if code != 0 {
		t.Fatalf("shipd %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, stdout, stderr)
	}
	if v != nil {
		if err := json.Unmarshal([]byte(stdout), v); err != nil {
			t.Fatalf("shipd %s: output is not JSON: %v\n%s", strings.Join(args, " "), err, stdout)
		}
	}
	return stdout
}

func openTestAccounts(t *testing.T, db string) *accounts.Service {
	t.Helper()
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return accounts.New(st, accounts.Config{})
}

type createdAccount struct {
	ID            string `json:"id"`
	Name          string `json:"name"`
	PaymentMethod bool   `json:"paymentMethod"`
}

type createdToken struct {
	ID        string     `json:"id"`
	Name      string     `json:"name"`
	Token     string     `json:"token"`
	Mode      string     `json:"mode"`
	Scopes    []string   `json:"scopes"`
	Prefix    string     `json:"prefix"`
	ExpiresAt *time.Time `json:"expiresAt"`
}

type listedToken struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	Prefix     string     `json:"prefix"`
	Mode       string     `json:"mode"`
	Scopes     []string   `json:"scopes"`
	CreatedAt  time.Time  `json:"createdAt"`
	ExpiresAt  *time.Time `json:"expiresAt"`
	RevokedAt  *time.Time `json:"revokedAt"`
	LastUsedAt *time.Time `json:"lastUsedAt"`
	LastIP     *string    `json:"lastIp"`
}

func listTokens(t *testing.T, db, account string) (map[string]listedToken, string) {
	t.Helper()
	var out struct {
		Data []listedToken `json:"data"`
	}
	raw := cliOK(t, &out, "tokens", "list", "--db", db, "--account", account)
	m := map[string]listedToken{}
	for _, tk := range out.Data {
		m[tk.ID] = tk
	}
	return m, raw
}

var testTokenPattern = regexp.MustCompile(`^svc_test_[A-Za-z0-9]{64}$`)

func TestCLIAccounts(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "shipd.db")

	var a createdAccount
	cliOK(t, &a, "accounts", "create", "--db", db, "--name", "Acme Corp")
	if !strings.HasPrefix(a.ID, "acct_") {
		t.Fatalf("id = %q", a.ID)
	}
	if diff := cmp.Diff(createdAccount{ID: a.ID, Name: "Acme Corp", PaymentMethod: true}, a); diff != "" {
		t.Fatalf("accounts create (-want +got):\n%s", diff)
	}

	var noPM createdAccount
	cliOK(t, &noPM, "accounts", "create", "--db", db, "--name", "Cardless", "--payment-method=false")
	if noPM.PaymentMethod || noPM.ID == a.ID {
		t.Fatalf("accounts create --payment-method=false: %+v", noPM)
	}

	var upd map[string]any
	cliOK(t, &upd, "accounts", "update", "--db", db, "--account", noPM.ID, "--payment-method=true")
	if diff := cmp.Diff(map[string]any{"id": noPM.ID, "paymentMethod": true}, upd); diff != "" {
		t.Fatalf("accounts update (-want +got):\n%s", diff)
	}
	cliOK(t, &upd, "accounts", "update", "--db", db, "--account", a.ID, "--payment-method=false")

	// the database agrees
	acc := openTestAccounts(t, db)
	for id, want := range map[string]bool{a.ID: false, noPM.ID: true} {
		got, err := acc.Account(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if got.HasPaymentMethod != want {
			t.Errorf("account %s: has payment method %v, want %v", id, got.HasPaymentMethod, want)
		}
	}
	if n, err := acc.CountAccounts(context.Background()); err != nil || n != 2 {
		t.Errorf("%d accounts (%v), want 2", n, err)
	}
}

func TestCLITokens(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "shipd.db")
	var a createdAccount
	cliOK(t, &a, "accounts", "create", "--db", db, "--name", "Acme")

	before := time.Now()
	var tok createdToken
	cliOK(t, &tok, "tokens", "create", "--db", db, "--account", a.ID, "--mode", "test",
		"--scopes", "read:shipments,write:webhooks", "--expires-in", "720h", "--name", "checkout")
	if !strings.HasPrefix(tok.ID, "tok_") || tok.Name != "checkout" {
		t.Fatalf("id = %q", tok.ID)
	}
	if !testTokenPattern.MatchString(tok.Token) {
		t.Fatalf("token = %q, want svc_test_ and 64 characters", tok.Token)
	}
	if tok.Mode != "test" || tok.Prefix != tok.Token[:len(tok.Prefix)] || !strings.HasPrefix(tok.Prefix, "svc_test_") {
		t.Fatalf("mode %q prefix %q for token %q", tok.Mode, tok.Prefix, tok.Token)
	}
	if diff := cmp.Diff([]string{"read:shipments", "write:webhooks"}, tok.Scopes); diff != "" {
		t.Fatalf("scopes (-want +got):\n%s", diff)
	}
	if tok.ExpiresAt == nil || tok.ExpiresAt.Before(before.Add(720*time.Hour-time.Minute)) || tok.ExpiresAt.After(time.Now().Add(720*time.Hour+time.Minute)) {
		t.Fatalf("expiresAt = %v, want about 720h from now", tok.ExpiresAt)
	}

	// a live token without expiry
	var live createdToken
	cliOK(t, &live, "tokens", "create", "--db", db, "--account", a.ID, "--mode", "live", "--scopes", "read:addresses")
	if !regexp.MustCompile(`^svc_live_[A-Za-z0-9]{64}$`).MatchString(live.Token) || live.ExpiresAt != nil {
		t.Fatalf("live token: %+v", live)
	}

	// the secret authenticates
	acc := openTestAccounts(t, db)
	found, err := acc.Authenticate(context.Background(), tok.Token, "127.0.0.1")
	if err != nil || found.TokenID != tok.ID || found.AccountID != a.ID {
		t.Fatalf("Authenticate: %+v, %v", found, err)
	}

	listed, raw := listTokens(t, db, a.ID)
	for _, secret := range []string{tok.Token, live.Token} {
		tail := secret[len("svc_test_"):]
		if strings.Contains(raw, secret) || strings.Contains(raw, tail[6:]) {
			t.Fatalf("tokens list shows a secret:\n%s", raw)
		}
	}
	got := listed[tok.ID]
	if diff := cmp.Diff(listedToken{ID: tok.ID, Name: "checkout", Prefix: tok.Prefix, Mode: "test", Scopes: []string{"read:shipments", "write:webhooks"}}, got,
		cmp.FilterPath(func(p cmp.Path) bool {
			f := p.Last().String()
			return f == ".CreatedAt" || f == ".ExpiresAt"
		}, cmp.Ignore())); diff != "" {
		t.Fatalf("tokens list entry (-want +got):\n%s", diff)
	}
	if got.ExpiresAt == nil || !got.ExpiresAt.Equal(*tok.ExpiresAt) {
		t.Errorf("listed expiresAt %v, created %v", got.ExpiresAt, tok.ExpiresAt)
	}
	if got.CreatedAt.Before(before.Add(-time.Second)) || got.CreatedAt.After(time.Now().Add(time.Second)) {
		t.Errorf("createdAt = %v", got.CreatedAt)
	}
	if l := listed[live.ID]; l.Mode != "live" || l.Prefix != live.Prefix || len(listed) != 2 {
		t.Errorf("live token listed as %+v; %d tokens listed", l, len(listed))
	}

	var rev map[string]any
	cliOK(t, &rev, "tokens", "revoke", "--db", db, "--id", tok.ID)
	if diff := cmp.Diff(map[string]any{"id": tok.ID, "revoked": true}, rev); diff != "" {
		t.Fatalf("tokens revoke (-want +got):\n%s", diff)
	}
	listed, _ = listTokens(t, db, a.ID)
	if listed[tok.ID].RevokedAt == nil || listed[live.ID].RevokedAt != nil {
		t.Fatalf("after revoke: %+v / %+v", listed[tok.ID], listed[live.ID])
	}
	if _, err := acc.Authenticate(context.Background(), tok.Token, "127.0.0.1"); !errors.Is(err, accounts.ErrTokenRevoked) {
		t.Fatalf("a revoked token authenticates: %v", err)
	}
}

func TestCLIErrors(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "shipd.db")
	var a createdAccount
	cliOK(t, &a, "accounts", "create", "--db", db, "--name", "Acme")
	tc := func(args ...string) []string { return args }
	badSheet := filepath.Join(t.TempDir(), "ups.csv")
	if err := os.WriteFile(badSheet, []byte("service,destination,maxWeightG,price,currency\nGround,US,1000,3.21,USD\nGround,US,5000,4.321,USD\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"no command", nil, 2, "Usage"},
		{"unknown command", tc("frobnicate"), 2, `unknown command "frobnicate"`},
		{"accounts without subcommand", tc("accounts"), 2, "subcommand"},
		{"unknown accounts subcommand", tc("accounts", "delete", "--db", db), 2, `unknown subcommand "delete"`},
		{"accounts create without name", tc("accounts", "create", "--db", db), 2, "--name is required"},
		{"accounts create blank name", tc("accounts", "create", "--db", db, "--name", "  "), 2, "--name is required"},
		{"unknown flag", tc("accounts", "create", "--db", db, "--name", "x", "--colour", "red"), 2, "flag provided but not defined"},
		{"stray argument", tc("accounts", "create", "--db", db, "--name", "x", "extra"), 2, `unexpected argument "extra"`},
		{"accounts update without payment method", tc("accounts", "update", "--db", db, "--account", a.ID), 2, "--payment-method"},
		{"accounts update bad payment method", tc("accounts", "update", "--db", db, "--account", a.ID, "--payment-method=maybe"), 2, "--payment-method"},
		{"accounts update unknown account", tc("accounts", "update", "--db", db, "--account", "acct_nope", "--payment-method=true"), 1, "does not exist"},
		{"tokens without subcommand", tc("tokens"), 2, "subcommand"},
		{"unknown tokens subcommand", tc("tokens", "rotate", "--db", db), 2, `unknown subcommand "rotate"`},
		{"tokens create without account", tc("tokens", "create", "--db", db, "--mode", "test", "--scopes", "read:shipments"), 2, "--account is required"},
		{"tokens create bad mode", tc("tokens", "create", "--db", db, "--account", a.ID, "--mode", "prod", "--scopes", "read:shipments"), 2, "--mode must be test or live"},
		{"tokens create without mode", tc("tokens", "create", "--db", db, "--account", a.ID, "--scopes", "read:shipments"), 2, "--mode must be test or live"},
		{"tokens create unknown scope", tc("tokens", "create", "--db", db, "--account", a.ID, "--mode", "test", "--scopes", "read:shipments,admin:all"), 2, `unknown scope "admin:all"`},
		{"tokens create without scopes", tc("tokens", "create", "--db", db, "--account", a.ID, "--mode", "test"), 2, "--scopes is required"},
		{"tokens create negative lifetime", tc("tokens", "create", "--db", db, "--account", a.ID, "--mode", "test", "--scopes", "read:shipments", "--expires-in", "-1h"), 2, "--expires-in must be positive"},
		{"tokens create zero lifetime", tc("tokens", "create", "--db", db, "--account", a.ID, "--mode", "test", "--scopes", "read:shipments", "--expires-in", "0s"), 2, "--expires-in must be positive"},
		{"tokens create bad lifetime", tc("tokens", "create", "--db", db, "--account", a.ID, "--mode", "test", "--scopes", "read:shipments", "--expires-in", "30days"), 2, "invalid value"},
		{"tokens create unknown account", tc("tokens", "create", "--db", db, "--account", "acct_nope", "--mode", "test", "--scopes", "read:shipments"), 1, "does not exist"},
		{"tokens revoke without id", tc("tokens", "revoke", "--db", db), 2, "--id is required"},
		{"tokens revoke unknown id", tc("tokens", "revoke", "--db", db, "--id", "tok_nope"), 1, "does not exist"},
		{"tokens list without account", tc("tokens", "list", "--db", db), 2, "--account is required"},
		{"serve unknown flag", tc("serve", "--db", db, "--port", "80"), 2, "flag provided but not defined"},
		{"serve public URL without scheme", tc("serve", "--db", db, "--public-url", "ship.example.com"), 2, `--public-url (SHIPD_PUBLIC_URL) "ship.example.com" is not an http:// or https:// base URL`},
		{"serve public URL uninterpolated", tc("serve", "--db", db, "--public-url", "${SHIPD_PUBLIC_URL:-}"), 2, `is not an http:// or https:// base URL`},
		{"serve rate sheet of no carrier", tc("serve", "--db", db, "--rate-sheet", "Pony=/x.csv"), 2, `"Pony" is not a live carrier`},
		{"serve rate sheet without file", tc("serve", "--db", db, "--rate-sheet", "UPS"), 2, `want CARRIER=FILE`},
		{"serve bad rate sheet", tc("serve", "--db", db, "--ups-client-id", "id", "--ups-client-secret", "s", "--ups-account-number", "A1B2C3", "--ups-rate-sheet", badSheet), 2, `UPS's rate sheet ` + badSheet + `: rate sheet line 3, column 4 (price): must be a decimal`},
		{"serve bad trusted proxy", tc("serve", "--db", db, "--trusted-proxy", "10.0.0.0/8,nonsense"), 2, `trusted proxy "nonsense"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := cli(t, c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d\nstderr: %s", code, c.code, stderr)
			}
			if !strings.Contains(stderr, c.stderr) {
				t.Errorf("stderr does not mention %q:\n%s", c.stderr, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout is not empty on error:\n%s", stdout)
			}
		})
	}
	// none of the failed commands changed anything
	listed, _ := listTokens(t, db, a.ID)
	if len(listed) != 0 {
		t.Errorf("failed commands created tokens: %+v", listed)
	}
}

func TestCLIHelp(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args    []string
		mention string // in stdout+stderr
		withDB  bool   // pass --db before --help: the file must not be created
	}{
		{[]string{"--help"}, "shipd serve", false},
		{[]string{"-h"}, "shipd serve", false},
		{[]string{"help"}, "shipd serve", false},
		{[]string{"serve"}, "-addr", true},
		{[]string{"accounts", "create"}, "-name", true},
		{[]string{"accounts", "update"}, "-payment-method", true},
		{[]string{"tokens", "create"}, "-scopes", true},
		{[]string{"tokens", "revoke"}, "-id", true},
		{[]string{"tokens", "list"}, "-account", true},
		// "Run shipd COMMAND [SUBCOMMAND] --help": the subcommand is optional
		{[]string{"accounts"}, "accounts create", false},
		{[]string{"tokens"}, "tokens   create", false},
	}
	for _, c := range cases {
		args := c.args
		if len(args) > 1 || args[0] == "serve" || args[0] == "accounts" || args[0] == "tokens" {
			args = append([]string{}, args...)
			if c.withDB {
				args = append(args, "--db", filepath.Join(t.TempDir(), "help.db"))
			}
			args = append(args, "--help")
		}
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := cli(t, args...)
			if code != 0 {
				t.Fatalf("exit %d, want 0\nstderr: %s", code, stderr)
			}
			if !strings.Contains(stdout+stderr, c.mention) {
				t.Fatalf("help does not mention %q:\nstdout: %s\nstderr: %s", c.mention, stdout, stderr)
			}
			if c.withDB {
				if _, err := os.Stat(args[len(args)-2]); !os.IsNotExist(err) {
					t.Fatalf("--help created the database (%v)", err)
				}
			}
		})
	}
}

// ---------------------------------------------------------------------------
// serve

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

// serveProc is one `shipd serve` running in a goroutine.
type serveProc struct {
	base           string
	stdout, stderr *syncBuffer
	cancel         context.CancelFunc
	done           chan int
}

func startServe(t *testing.T, db string, flags ...string) *serveProc {
	t.Helper()
	addr := freeAddr(t)
	base := "http://" + addr
	for i, f := range flags {
		// An --addr among flags wins; a wildcard one is reached on loopback.
		if f == "--addr" && i+1 < len(flags) {
			_, port, _ := net.SplitHostPort(flags[i+1])
			base = "http://127.0.0.1:" + port
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &serveProc{base: base, stdout: &syncBuffer{}, stderr: &syncBuffer{}, cancel: cancel, done: make(chan int, 1)}
	go func() {
		s.done <- run(ctx, append([]string{"serve", "--addr", addr, "--db", db}, flags...), s.stdout, s.stderr)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-s.done:
		case <-time.After(30 * time.Second):
			t.Error("serve did not stop")
		}
	})
	deadline := time.Now().Add(20 * time.Second)
	for {
		select {
		case code := <-s.done:
			s.done <- code
			t.Fatalf("serve exited early with %d\nstderr: %s", code, s.stderr.String())
		default:
		}
		res, err := http.Get(s.base + "/healthz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return s
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve not ready: %v\nstderr: %s", err, s.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// demoToken is the token of the demo account that serve's first start printed.
func (s *serveProc) demoToken(t *testing.T) string {
	t.Helper()
	var demo struct{ Token string }
	if err := json.Unmarshal([]byte(s.stdout.String()), &demo); err != nil {
		t.Fatalf("demo token: %v\n%s", err, s.stdout.String())
	}
	return demo.Token
}

// labelBody is a domestic label create's body.
func labelBody() map[string]any {
	return map[string]any{
		"fromAddress": map[string]any{"name": "Shop", "phone": "415 555 0100", "street1": "1 Market St", "city": "San Francisco", "state": "CA", "zip": "94105", "country": "US"},
		"toAddress":   map[string]any{"name": "Ada Lovelace", "phone": "212 555 0199", "street1": "350 Fifth Avenue", "city": "New York", "state": "NY", "zip": "10118", "country": "US"},
		"parcel":      map[string]any{"weightOz": 32},
	}
}

// stop cancels serve's context and returns its exit code.
func (s *serveProc) stop(t *testing.T) int {
	t.Helper()
	s.cancel()
	select {
	case code := <-s.done:
		s.done <- code // for the cleanup
		return code
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not shut down")
		return -1
	}
}

func (s *serveProc) call(t *testing.T, method, path, token string, body any) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, s.base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	client := &http.Client{Timeout: 10 * time.Second}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("%s %s: body is not JSON: %s", method, path, raw)
		}
	}
	return res.StatusCode, m
}

func TestCLIServe(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "shipd.db")
	started := time.Now()

	s := startServe(t, db)

	// the first start prints a demo account and token, once
	var demo struct {
		AccountID string `json:"accountId"`
		TokenID   string `json:"tokenId"`
		Token     string `json:"token"`
	}
	if err := json.Unmarshal([]byte(s.stdout.String()), &demo); err != nil {
		t.Fatalf("first start did not print the demo token as JSON: %v\n%s", err, s.stdout.String())
	}
	if !testTokenPattern.MatchString(demo.Token) || !strings.HasPrefix(demo.AccountID, "acct_") || !strings.HasPrefix(demo.TokenID, "tok_") {
		t.Fatalf("demo: %+v", demo)
	}
	if status, _ := s.call(t, "GET", "/readyz", "", nil); status != 200 {
		t.Fatalf("readyz: %d", status)
	}
	if status, body := s.call(t, "GET", "/api/v1/webhooks", demo.Token, nil); status != 200 {
		t.Fatalf("GET /webhooks with the demo token: %d %v", status, body)
	}
	if status, body := s.call(t, "GET", "/api/v1/webhooks", "", nil); status != 401 || body["code"] != "missing_authorization" {
		t.Fatalf("GET /webhooks without a token: %d %v", status, body)
	}
	// the webhook key was generated next to the database
	key, err := os.ReadFile(filepath.Join(dir, "webhook.key"))
	if err != nil {
		t.Fatalf("webhook key: %v", err)
	}

	// a token created by the CLI while the server runs works at once, with its scopes
	var tok createdToken
	cliOK(t, &tok, "tokens", "create", "--db", db, "--account", demo.AccountID, "--mode", "test", "--scopes", "read:webhooks")
	if status, body := s.call(t, "GET", "/api/v1/webhooks", tok.Token, nil); status != 200 {
		t.Fatalf("GET /webhooks with the CLI token: %d %v", status, body)
	}
	status, body := s.call(t, "POST", "/api/v1/webhooks", tok.Token, map[string]any{"url": "https://example.com/h", "events": []string{"*"}})
	if status != 403 || body["code"] != "insufficient_scope" || body["requiredScope"] != "write:webhooks" {
		t.Fatalf("POST /webhooks with a read token: %d %v", status, body)
	}
	// revoked by the CLI: rejected at once
	cliOK(t, nil, "tokens", "revoke", "--db", db, "--id", tok.ID)
	if status, body := s.call(t, "GET", "/api/v1/webhooks", tok.Token, nil); status != 401 || body["code"] != "token_revoked" {
		t.Fatalf("GET /webhooks with the revoked token: %d %v", status, body)
	}
	if status, _ := s.call(t, "GET", "/api/v1/webhooks", demo.Token, nil); status != 200 {
		t.Fatalf("the demo token stopped working: %d", status)
	}

	// graceful shutdown returns nil (exit 0)
	if code := s.stop(t); code != 0 {
		t.Fatalf("serve exited %d after cancel\nstderr: %s", code, s.stderr.String())
	}
	if strings.Contains(s.stderr.String(), "shipd: ") {
		t.Fatalf("serve reported an error:\n%s", s.stderr.String())
	}

	// token use is written at shutdown
	listed, raw := listTokens(t, db, demo.AccountID)
	if strings.Contains(raw, demo.Token) || strings.Contains(raw, tok.Token) {
		t.Fatalf("tokens list shows a secret:\n%s", raw)
	}
	for _, id := range []string{demo.TokenID, tok.ID} {
		l, ok := listed[id]
		if !ok {
			t.Fatalf("token %s not listed:\n%s", id, raw)
		}
		if l.LastUsedAt == nil || l.LastUsedAt.Before(started.Add(-time.Second)) || l.LastUsedAt.After(time.Now()) {
			t.Errorf("token %s: lastUsedAt = %v", id, l.LastUsedAt)
		}
		if l.LastIP == nil || *l.LastIP != "127.0.0.1" {
			t.Errorf("token %s: lastIp = %v, want 127.0.0.1", id, l.LastIP)
		}
	}
	if listed[tok.ID].RevokedAt == nil {
		t.Errorf("CLI token not shown revoked: %+v", listed[tok.ID])
	}

	// a second start on the same database prints no new token and keeps the key
	s2 := startServe(t, db)
	if out := s2.stdout.String(); out != "" {
		t.Fatalf("second start printed:\n%s", out)
	}
	if status, _ := s2.call(t, "GET", "/api/v1/webhooks", demo.Token, nil); status != 200 {
		t.Fatalf("the demo token does not work after a restart: %d", status)
	}
	if code := s2.stop(t); code != 0 {
		t.Fatalf("second serve exited %d\nstderr: %s", code, s2.stderr.String())
	}
	if s2.stdout.String() != "" {
		t.Fatalf("second start printed:\n%s", s2.stdout.String())
	}
	key2, err := os.ReadFile(filepath.Join(dir, "webhook.key"))
	if err != nil || !bytes.Equal(key, key2) {
		t.Fatalf("the webhook key changed across restarts (%v)", err)
	}
	acc := openTestAccounts(t, db)
	if n, err := acc.CountAccounts(context.Background()); err != nil || n != 1 {
		t.Fatalf("%d accounts after two starts (%v), want 1", n, err)
	}
}

// TestServeWithoutPurchaseWorkers: an instance started with
// --purchase-workers 0 accepts labels and buys none; the same database served
// again with workers buys every one, once.
func TestServeWithoutPurchaseWorkers(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "shipd.db")
	if code, _, stderr := cli(t, "serve", "--db", db, "--purchase-workers", "-1"); code != 2 || !strings.Contains(stderr, "--purchase-workers") {
		t.Fatalf("--purchase-workers -1: exit %d, stderr %s", code, stderr)
	}

	s := startServe(t, db, "--purchase-workers", "0", "--job-poll-interval", "10ms")
	token := s.demoToken(t)
	body := labelBody()
	var ids []string
	for range 3 {
		status, created := s.call(t, "POST", "/api/v1/labels/create", token, body)
		if status != 202 || created["status"] != "paying" {
			t.Fatalf("create: %d %v", status, created)
		}
		ids = append(ids, created["id"].(string))
	}
	// Workers would buy a sandbox label within milliseconds; give them a second.
	time.Sleep(time.Second)
	for _, id := range ids {
		if status, got := s.call(t, "GET", "/api/v1/labels/"+id, token, nil); status != 200 || got["status"] != "paying" {
			t.Fatalf("label %s on the instance without purchase workers: %d %v", id, status, got["status"])
		}
	}
	if !strings.Contains(s.stderr.String(), "buys no labels") {
		t.Errorf("no warning that this instance buys nothing:\n%s", s.stderr.String())
	}
	if code := s.stop(t); code != 0 {
		t.Fatalf("serve exited %d\nstderr: %s", code, s.stderr.String())
	}

	s2 := startServe(t, db, "--job-poll-interval", "10ms")
	for _, id := range ids {
		waitForStatus := func() bool {
			_, got := s2.call(t, "GET", "/api/v1/labels/"+id, token, nil)
			return got["status"] == "purchased"
		}
		deadline := time.Now().Add(20 * time.Second)
		for !waitForStatus() {
			if time.Now().After(deadline) {
				t.Fatalf("label %s not purchased after the restart with workers", id)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	status, events := s2.call(t, "GET", "/api/v1/events?type=shipment.purchased", token, nil)
	if data, _ := events["data"].([]any); status != 200 || len(data) != len(ids) {
		t.Fatalf("shipment.purchased events: %d, %d of them for %d labels", status, len(data), len(ids))
	}
}

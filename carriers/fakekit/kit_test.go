package fakekit_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers/fakekit"
)

// Credentials of the test fake.
const (
	clientID = "kit-client"
	secret   = "kit-secret"
	account  = "A1"
)

// kitFake is a fake carrier with one route of each kind: a token endpoint
// of the style asked, POST /echo (operation "echo") and GET /find
// (operation "find").
type kitFake struct {
	*fakekit.Server

	mu       sync.Mutex
	refusals []error
	served   int // calls that reached a route's handler
}

func startFake(t *testing.T, tb testing.TB, style fakekit.CredentialStyle, tune func(*fakekit.Config)) *kitFake {
	t.Helper()
	f := &kitFake{}
	cfg := fakekit.Config{MaxRequestBytes: 1 << 10, Refuse: f.refuse}
	if tune != nil {
		tune(&cfg)
	}
	f.Server = fakekit.Start(tb, cfg, func(rt *fakekit.Router) {
		rt.Token("/token", fakekit.TokenEndpoint{
			Client: fakekit.Client{ID: clientID, Secret: secret, Account: account}, TTL: time.Hour, Prefix: "kit-",
			Credentials: style,
			Answer: func(t fakekit.Issued) any {
				return map[string]any{"access_token": t.Token, "expires_in": t.ExpiresIn, "account": t.Client.Account}
			},
		})
		rt.Operation("POST /echo", "echo", f.echo)
		rt.Operation("GET /find", "find", f.echo)
	})
	if tb == nil {
		t.Cleanup(f.Close)
	}
	return f
}

// refuse answers what the kit refuses with a status by kind and the error.
func (f *kitFake) refuse(w http.ResponseWriter, _ *http.Request, err error) {
	f.mu.Lock()
	f.refusals = append(f.refusals, err)
	f.mu.Unlock()
	status := http.StatusBadRequest
	switch {
	case errors.Is(err, fakekit.ErrUnauthorized), errors.Is(err, fakekit.ErrBadClient), errors.Is(err, fakekit.ErrNoCredentials):
		status = http.StatusUnauthorized
	case errors.Is(err, fakekit.ErrMethod):
		status = http.StatusMethodNotAllowed
	}
	fakekit.WriteJSON(w, status, map[string]string{"error": err.Error()})
}

func (f *kitFake) lastRefusal() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.refusals) == 0 {
		return nil
	}
	return f.refusals[len(f.refusals)-1]
}

func (f *kitFake) echo(w http.ResponseWriter, r *http.Request, body []byte) {
	f.mu.Lock()
	f.served++
	f.mu.Unlock()
	c, _ := fakekit.ClientOf(r.Context())
	fakekit.WriteJSON(w, http.StatusOK, map[string]string{"account": c.Account, "body": string(body)})
}

func (f *kitFake) servedCalls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.served
}

type reply struct {
	status int
	header http.Header
	body   string
}

func do(t *testing.T, req *http.Request) reply {
	t.Helper()
	res, body := fakekit.Send(t, req)
	return reply{res.StatusCode, res.Header, string(body)}
}

// send is do for a goroutine other than the test's.
func send(req *http.Request) (reply, error) {
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return reply{}, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return reply{res.StatusCode, res.Header, string(b)}, err
}

// authed is an authenticated request of method and path.
func authed(f *kitFake, tok, method, path, body string) *http.Request {
	req, _ := http.NewRequest(method, f.URL()+path, strings.NewReader(body))
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	req.Header.Set("X-Test", path)
	return req
}

// formToken asks a FormBody endpoint for a token of id.
func formToken(t *testing.T, f *kitFake, id, sec string) reply {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, f.URL()+"/token", strings.NewReader(url.Values{
		"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {sec}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return do(t, req)
}

// tokenOf gets a token for id from a FormBody endpoint.
func tokenOf(t *testing.T, f *kitFake, id, sec string) string {
	t.Helper()
	r := formToken(t, f, id, sec)
	var a struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.Unmarshal([]byte(r.body), &a); err != nil || r.status != http.StatusOK {
		t.Fatalf("token for %s: %d %s", id, r.status, r.body)
	}
	return a.AccessToken
}

// call makes an authenticated call of method and path.
func call(t *testing.T, f *kitFake, tok, method, path, body string) reply {
	t.Helper()
	return do(t, authed(f, tok, method, path, body))
}

func TestRecorderKeepsEachOperationsCalls(t *testing.T) {
	t.Parallel()
	f := startFake(t, t, fakekit.FormBody, nil)
	f.AddClient("other", "other-secret", "B2")
	own, other := tokenOf(t, f, clientID, secret), tokenOf(t, f, "other", "other-secret")
	if r := call(t, f, own, http.MethodPost, "/echo", `{"n":1}`); r.status != http.StatusOK || !strings.Contains(r.body, `"account":"A1"`) {
		t.Fatalf("echo: %d %s, want 200 for account A1", r.status, r.body)
	}
	call(t, f, "forged", http.MethodPost, "/echo", `{"n":2}`)
	call(t, f, other, http.MethodPost, "/echo", `{"n":3}`)
	call(t, f, own, http.MethodGet, "/find?number=1Z&x=y", "")

	got := map[string]any{
		"echo calls":    f.Requests("echo"),
		"find calls":    f.Requests("find"),
		"token calls":   f.TokenRequests(),
		"echo body":     string(f.LastRequest("echo")),
		"find query":    string(f.LastRequest("find")),
		"echo header":   f.LastHeader("echo").Get("X-Test"),
		"echo callers":  f.Callers("echo"),
		"token callers": f.Callers(fakekit.OpToken),
		"never called":  f.LastRequest("void") == nil && f.LastHeader("void") == nil && f.Requests("void") == 0,
	}
	want := map[string]any{
		"echo calls":    3, // the refused call counts
		"find calls":    1,
		"token calls":   2,
		"echo body":     `{"n":3}`,
		"find query":    "number=1Z&x=y",
		"echo header":   "/echo",
		"echo callers":  []string{clientID, "other"}, // the forged token has no client
		"token callers": []string{clientID, "other"},
		"never called":  true,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("recorded (-want +got):\n%s", diff)
	}
	if !errors.Is(f.lastRefusal(), fakekit.ErrUnauthorized) {
		t.Errorf("the forged token's call was refused with %v, want ErrUnauthorized", f.lastRefusal())
	}
}

func TestUnreadableBodyIsRefusedUncounted(t *testing.T) {
	t.Parallel()
	f := startFake(t, t, fakekit.FormBody, nil)
	tok := tokenOf(t, f, clientID, secret)
	r := call(t, f, tok, http.MethodPost, "/echo", strings.Repeat("x", 2<<10))
	if r.status != http.StatusBadRequest || !errors.Is(f.lastRefusal(), fakekit.ErrUnreadable) || f.Requests("echo") != 0 {
		t.Errorf("a body over the limit: %d, refusal %v, %d calls counted; want 400, ErrUnreadable, 0", r.status, f.lastRefusal(), f.Requests("echo"))
	}
}

// A fake whose carrier takes credentials with every call (Config.Authenticate)
// serves the calls its function admits as that client's, and refuses the
// others as ErrUnauthorized with the function's reason, before any fault
// queued for an authenticated call.
func TestAuthenticatePerCall(t *testing.T) {
	t.Parallel()
	errNoKey := errors.New("no api key")
	f := startFake(t, t, fakekit.BasicAuth, func(c *fakekit.Config) {
		c.Authenticate = func(r *http.Request) (fakekit.Client, error) {
			if r.Header.Get("X-Key") != "k1" {
				return fakekit.Client{}, errNoKey
			}
			return fakekit.Client{ID: "key-client", Account: "K1"}, nil
		}
	})
	f.FailNext("echo", http.StatusServiceUnavailable, `{}`)
	req := authed(f, "", "POST", "/echo", "hi")
	if r := do(t, req); r.status != http.StatusUnauthorized {
		t.Fatalf("a call without the key: %d %s, want 401", r.status, r.body)
	}
	if err := f.lastRefusal(); !errors.Is(err, fakekit.ErrUnauthorized) || !errors.Is(err, errNoKey) {
		t.Fatalf("refused with %v, want ErrUnauthorized wrapping the function's reason", err)
	}
	req = authed(f, "", "POST", "/echo", "hi")
	req.Header.Set("X-Key", "k1")
	if r := do(t, req); r.status != http.StatusServiceUnavailable {
		t.Fatalf("the first admitted call: %d, want the queued 503", r.status)
	}
	req = authed(f, "", "POST", "/echo", "hi")
	req.Header.Set("X-Key", "k1")
	r := do(t, req)
	if r.status != http.StatusOK || !strings.Contains(r.body, `"account":"K1"`) {
		t.Fatalf("an admitted call: %d %s, want 200 as the client's", r.status, r.body)
	}
	if diff := cmp.Diff([]string{"key-client", "key-client"}, f.Callers("echo")); diff != "" {
		t.Errorf("callers (-want +got):\n%s", diff)
	}
}

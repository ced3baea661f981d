package fakekit_test

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/carriers/fakekit"
)

var errNoLogin = errors.New("login: the X-Login header is missing")

// loginFake has a header login (as DPD's META-API has) and POST /echo.
func loginFake(t *testing.T) *kitFake {
	t.Helper()
	f := &kitFake{}
	f.Server = fakekit.Start(t, fakekit.Config{MaxRequestBytes: 1 << 10, Refuse: f.refuse}, func(rt *fakekit.Router) {
		rt.Login("/login", fakekit.LoginEndpoint{
			Client: fakekit.Client{ID: clientID, Secret: secret, Account: account}, TTL: time.Hour, Prefix: "login-",
			Credentials: func(r *http.Request) (string, string, error) {
				if r.Header.Get("X-Login") == "" {
					return "", "", errNoLogin
				}
				return r.Header.Get("X-Login"), r.Header.Get("X-Password"), nil
			},
			Admit: func(r *http.Request, _ fakekit.Client) error {
				if r.Header.Get("X-Unit") != "001" {
					return fakekit.ErrBadClient
				}
				return nil
			},
			Answer: func(w http.ResponseWriter, t fakekit.Issued) {
				w.Header().Set("X-Token", t.Token)
				w.WriteHeader(http.StatusOK)
			},
		})
		rt.Operation("POST /echo", "echo", f.echo)
	})
	return f
}

func login(t *testing.T, f *kitFake, id, pw, unit string) reply {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, f.URL()+"/login", nil)
	if id != "" {
		req.Header.Set("X-Login", id)
	}
	req.Header.Set("X-Password", pw)
	req.Header.Set("X-Unit", unit)
	return do(t, req)
}

// A login's token is one the operations take; a login is refused for a
// missing header (the carrier's own error), wrong credentials or what
// Admit refuses, and takes the faults queued for OpToken.
func TestLoginEndpoint(t *testing.T) {
	t.Parallel()
	f := loginFake(t)
	r := login(t, f, clientID, secret, "001")
	tok := r.header.Get("X-Token")
	if r.status != http.StatusOK || tok == "" || tok[:6] != "login-" {
		t.Fatalf("login: %d %q", r.status, tok)
	}
	if e := do(t, authed(f, tok, http.MethodPost, "/echo", "x")); e.status != http.StatusOK || e.body == "" {
		t.Fatalf("echo with the login's token: %d %s", e.status, e.body)
	}
	for _, c := range []struct {
		id, pw, unit string
		want         error
	}{
		{"", secret, "001", errNoLogin},
		{clientID, "nope", "001", fakekit.ErrBadClient},
		{"who", secret, "001", fakekit.ErrBadClient},
		{clientID, secret, "002", fakekit.ErrBadClient},
	} {
		if r := login(t, f, c.id, c.pw, c.unit); r.status == http.StatusOK || !errors.Is(f.lastRefusal(), c.want) {
			t.Errorf("login %q/%q/%q: %d, refused with %v, want %v", c.id, c.pw, c.unit, r.status, f.lastRefusal(), c.want)
		}
	}
	f.FailNext(fakekit.OpToken, http.StatusServiceUnavailable, `{}`)
	if r := login(t, f, clientID, secret, "001"); r.status != http.StatusServiceUnavailable {
		t.Errorf("a queued fault: %d", r.status)
	}
	if got := f.Callers(fakekit.OpToken); len(got) != 6 || got[0] != clientID || got[1] != "" {
		t.Errorf("callers %q", got)
	}
	f.ExpireTokens()
	if e := do(t, authed(f, tok, http.MethodPost, "/echo", "x")); e.status != http.StatusUnauthorized {
		t.Errorf("after ExpireTokens: %d", e.status)
	}
}

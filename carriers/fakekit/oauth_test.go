package fakekit_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/carriers/fakekit"
)

// tokenRequest is one way to ask for a token.
type tokenRequest struct {
	basicID, basicSecret string // HTTP Basic when basicID is set
	contentType, body    string
	method               string // POST by default
}

func (tr tokenRequest) send(t *testing.T, f *kitFake) reply {
	t.Helper()
	method := tr.method
	if method == "" {
		method = http.MethodPost
	}
	req, _ := http.NewRequest(method, f.URL()+"/token", strings.NewReader(tr.body))
	if tr.basicID != "" {
		req.SetBasicAuth(tr.basicID, tr.basicSecret)
	}
	req.Header.Set("Content-Type", tr.contentType)
	return do(t, req)
}

const (
	form     = "application/x-www-form-urlencoded"
	goodForm = "grant_type=client_credentials&client_id=" + clientID + "&client_secret=" + secret
	goodJSON = `{"grant_type":"client_credentials","client_id":"` + clientID + `","client_secret":"` + secret + `"}`
)

func TestTokenEndpointVariants(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		style fakekit.CredentialStyle
		req   tokenRequest
		want  error // nil: a token is issued
	}{
		{"basic: documented", fakekit.BasicAuth, tokenRequest{basicID: clientID, basicSecret: secret, contentType: form, body: "grant_type=client_credentials"}, nil},
		{"basic: no Authorization", fakekit.BasicAuth, tokenRequest{contentType: form, body: goodForm}, fakekit.ErrNoCredentials},
		{"basic: wrong secret", fakekit.BasicAuth, tokenRequest{basicID: clientID, basicSecret: "nope", contentType: form, body: "grant_type=client_credentials"}, fakekit.ErrBadClient},
		{"basic: credentials before the body", fakekit.BasicAuth, tokenRequest{basicID: "who", basicSecret: "x", contentType: "application/json", body: "{"}, fakekit.ErrBadClient},
		{"basic: JSON body", fakekit.BasicAuth, tokenRequest{basicID: clientID, basicSecret: secret, contentType: "application/json", body: `{"grant_type":"client_credentials"}`}, fakekit.ErrContentType},
		{"basic: no grant", fakekit.BasicAuth, tokenRequest{basicID: clientID, basicSecret: secret, contentType: form, body: ""}, fakekit.ErrMissing},
		{"basic: password grant", fakekit.BasicAuth, tokenRequest{basicID: clientID, basicSecret: secret, contentType: form, body: "grant_type=password"}, fakekit.ErrGrant},
		{"form: documented", fakekit.FormBody, tokenRequest{contentType: form, body: goodForm}, nil},
		{"form: charset", fakekit.FormBody, tokenRequest{contentType: form + "; charset=utf-8", body: goodForm}, nil},
		{"form: credentials in Basic only", fakekit.FormBody, tokenRequest{basicID: clientID, basicSecret: secret, contentType: form, body: "grant_type=client_credentials"}, fakekit.ErrMissing},
		{"form: JSON body", fakekit.FormBody, tokenRequest{contentType: "application/json", body: goodJSON}, fakekit.ErrContentType},
		{"form: bad escape", fakekit.FormBody, tokenRequest{contentType: form, body: "grant_type=%zz"}, fakekit.ErrMalformed},
		{"form: wrong secret", fakekit.FormBody, tokenRequest{contentType: form, body: strings.Replace(goodForm, secret, "nope", 1)}, fakekit.ErrBadClient},
		{"form: unknown client", fakekit.FormBody, tokenRequest{contentType: form, body: strings.Replace(goodForm, clientID, "who", 1)}, fakekit.ErrBadClient},
		{"form: GET", fakekit.FormBody, tokenRequest{method: http.MethodGet, contentType: form, body: goodForm}, fakekit.ErrMethod},
		{"form or JSON: form", fakekit.FormOrJSONBody, tokenRequest{contentType: form, body: goodForm}, nil},
		{"form or JSON: JSON", fakekit.FormOrJSONBody, tokenRequest{contentType: "application/json", body: goodJSON}, nil},
		{"form or JSON: broken JSON", fakekit.FormOrJSONBody, tokenRequest{contentType: "application/json", body: `{"grant_type":`}, fakekit.ErrMalformed},
		{"form or JSON: text", fakekit.FormOrJSONBody, tokenRequest{contentType: "text/plain", body: goodForm}, fakekit.ErrContentType},
		{"form or JSON: password grant", fakekit.FormOrJSONBody, tokenRequest{contentType: "application/json", body: strings.Replace(goodJSON, "client_credentials", "password", 1)}, fakekit.ErrGrant},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := startFake(t, t, tc.style, nil)
			r := tc.req.send(t, f)
			if tc.want == nil {
				if r.status != http.StatusOK || !strings.Contains(r.body, `"access_token":"kit-`) {
					t.Errorf("%d %s, want a token; refused with %v", r.status, r.body, f.lastRefusal())
				}
				return
			}
			if !errors.Is(f.lastRefusal(), tc.want) || r.status == http.StatusOK {
				t.Errorf("%d, refused with %v; want %v", r.status, f.lastRefusal(), tc.want)
			}
		})
	}
}

func TestMissingFieldsAreNamed(t *testing.T) {
	t.Parallel()
	f := startFake(t, t, fakekit.FormBody, nil)
	tokenRequest{contentType: form, body: "client_id=" + clientID}.send(t, f)
	var missing *fakekit.MissingError
	if !errors.As(f.lastRefusal(), &missing) || strings.Join(missing.Fields, ",") != "grant_type,client_secret" {
		t.Errorf("refusal %v, want a MissingError naming grant_type and client_secret", f.lastRefusal())
	}
}

func TestTokensExpireAndAreRefused(t *testing.T) {
	t.Parallel()
	f := startFake(t, t, fakekit.FormBody, nil)
	var mu sync.Mutex
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	f.SetNow(func() time.Time { mu.Lock(); defer mu.Unlock(); return now })
	f.SetTokenTTL(90 * time.Second)
	r := formToken(t, f, clientID, secret)
	var a struct {
		AccessToken string `json:"access_token"`
		ExpiresIn   any    `json:"expires_in"`
	}
	if err := json.Unmarshal([]byte(r.body), &a); err != nil || a.ExpiresIn != float64(90) {
		t.Fatalf("token answer %s, want expires_in 90 (a number)", r.body)
	}
	if r := call(t, f, a.AccessToken, http.MethodPost, "/echo", `{}`); r.status != http.StatusOK {
		t.Fatalf("fresh token: %d", r.status)
	}
	mu.Lock()
	now = now.Add(90 * time.Second)
	mu.Unlock()
	if r := call(t, f, a.AccessToken, http.MethodPost, "/echo", `{}`); r.status != http.StatusUnauthorized || !errors.Is(f.lastRefusal(), fakekit.ErrUnauthorized) {
		t.Errorf("token past its TTL: %d, %v; want 401 ErrUnauthorized", r.status, f.lastRefusal())
	}
	tok := tokenOf(t, f, clientID, secret)
	f.ExpireTokens()
	if r := call(t, f, tok, http.MethodPost, "/echo", `{}`); r.status != http.StatusUnauthorized {
		t.Errorf("after ExpireTokens: %d, want 401", r.status)
	}
	if r := call(t, f, "", http.MethodPost, "/echo", `{}`); r.status != http.StatusUnauthorized {
		t.Errorf("without a token: %d, want 401", r.status)
	}
	f.SetExpiresInAsString(true)
	if r := formToken(t, f, clientID, secret); !strings.Contains(r.body, `"expires_in":"90"`) {
		t.Errorf("after SetExpiresInAsString: %s, want expires_in \"90\"", r.body)
	}
}

func TestTokenIsTheClientsAndAdmitHasTheLastWord(t *testing.T) {
	t.Parallel()
	errBlocked := errors.New("blocked merchant")
	f := &kitFake{}
	f.Server = fakekit.Start(t, fakekit.Config{Refuse: f.refuse}, func(rt *fakekit.Router) {
		rt.Token("POST /token", fakekit.TokenEndpoint{
			Client:      fakekit.Client{ID: clientID, Secret: secret, Account: account},
			TTL:         time.Hour,
			Credentials: fakekit.BasicAuth,
			Admit: func(r *http.Request, c fakekit.Client) error {
				if m := r.Header.Get("X-Merchant"); m != "" && m != c.Account {
					return errBlocked
				}
				return nil
			},
			Answer: func(t fakekit.Issued) any {
				return map[string]string{"access_token": t.Token, "account": t.Client.Account}
			},
		})
		rt.Operation("POST /echo", "echo", f.echo)
	})
	f.AddClient("second", "second-secret", "B2")
	ask := func(id, sec, merchant string) reply {
		req, _ := http.NewRequest(http.MethodPost, f.URL()+"/token", strings.NewReader("grant_type=client_credentials"))
		req.SetBasicAuth(id, sec)
		req.Header.Set("Content-Type", form)
		req.Header.Set("X-Merchant", merchant)
		return do(t, req)
	}
	if r := ask("second", "second-secret", "B2"); r.status != http.StatusOK || !strings.Contains(r.body, `"account":"B2"`) {
		t.Errorf("second client: %d %s, want its own account B2", r.status, r.body)
	}
	if r := ask("second", "second-secret", "A1"); r.status == http.StatusOK || !errors.Is(f.lastRefusal(), errBlocked) {
		t.Errorf("another account's merchant id: %d, %v; want Admit's refusal", r.status, f.lastRefusal())
	}
}

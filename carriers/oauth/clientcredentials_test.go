package oauth_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/oauth"
)

var tokenNow = time.Date(2026, 3, 10, 15, 4, 5, 0, time.UTC)

// The token answers the three carriers send, documented and seen: an
// expires_in as a number or a string, whole with a ".0", cut to the
// maximum lifetime; the rest is refused.
func TestParseToken(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]time.Duration{
		`{"token_type":"Bearer","access_token":"abc","expires_in":"14399"}`:            14399 * time.Second,
		`{"access_token":"abc","token_type":"bearer","expires_in":3600,"scope":"CXS"}`: time.Hour,
		`{"access_token":"abc","expires_in":"3600.0"}`:                                 time.Hour,
		`{"access_token":"abc","expires_in":3600.0}`:                                   time.Hour,
		`{"access_token":"abc","expires_in":"  28799 "}`:                               28799 * time.Second,
		`{"access_token":"abc","expires_in":"99999999999999999"}`:                      oauth.DefaultMaxLifetime,
		`{"access_token":"abc","expires_in":"99999999999999999999999"}`:                oauth.DefaultMaxLifetime,
		`{"access_token":"abc","expires_in":"9999999"}`:                                oauth.DefaultMaxLifetime,
		`{"access_token":"abc"}`:                                                       -1,
		`{"access_token":"abc","expires_in":"-5"}`:                                     -1,
		`{"access_token":"abc","expires_in":0}`:                                        -1,
		`{"access_token":"abc","expires_in":"1.5"}`:                                    -1,
		`{"access_token":"abc","expires_in":"soon"}`:                                   -1,
		`{"access_token":"abc","expires_in":1e400}`:                                    -1,
		`{"access_token":"","expires_in":"60"}`:                                        -1,
		`{"access_token":7,"expires_in":60}`:                                           -1,
		`{"access_token":["a"],"expires_in":3600}`:                                     -1,
		`{"token_type":"MAC","access_token":"abc","expires_in":"60"}`:                  -1,
		`not json`: -1,
	} {
		tok, err := oauth.ParseToken([]byte(body), tokenNow, 0)
		if want < 0 {
			if err == nil {
				t.Errorf("%s: parsed without error", body)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", body, err)
			continue
		}
		if diff := cmp.Diff([]any{"abc", tokenNow.Add(want)}, []any{tok.AccessToken, tok.ExpiresAt}); diff != "" {
			t.Errorf("%s (-want +got):\n%s", body, diff)
		}
	}
	if tok, err := oauth.ParseToken([]byte(`{"access_token":"abc","expires_in":28800}`), tokenNow, time.Hour); err != nil || !tok.ExpiresAt.Equal(tokenNow.Add(time.Hour)) {
		t.Errorf("MaxLifetime: %+v, %v; want an hour", tok, err)
	}
}

func FuzzParseToken(f *testing.F) {
	for _, s := range []string{
		`{"token_type":"Bearer","issued_at":"1741619045000","client_id":"id","access_token":"eyJraWQiOi","scope":"","expires_in":"14399","refresh_count":"0","status":"approved"}`,
		`{"access_token":"abc","expires_in":3600}`, `{"access_token":"abc","expires_in":"99999999999999999999999"}`,
		`{"access_token":"abc","expires_in":1e400}`, `{"access_token":"t","expires_in":1e308}`, `{"access_token":"t","expires_in":"NaN"}`,
		`{"access_token":"t","expires_in":-5}`, `{"access_token":"a","expires_in":"  28799 "}`, `{"access_token":"a","expires_in":"3600.000"}`,
		``, `null`, `[]`, `{`, `"x"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		tok, err := oauth.ParseToken(body, tokenNow, 0)
		if err != nil {
			return
		}
		if tok.AccessToken == "" || !tok.ExpiresAt.After(tokenNow) || tok.ExpiresAt.After(tokenNow.Add(oauth.DefaultMaxLifetime)) {
			t.Fatalf("implausible token %+v", tok)
		}
	})
}

// tokenEndpoint answers like a carrier's, recording what it got.
type tokenEndpoint struct {
	status int
	body   string
	got    *http.Request
	form   url.Values
}

func (e *tokenEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	e.got, e.form = r, mustForm(string(raw))
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.status)
	_, _ = io.WriteString(w, strings.ReplaceAll(e.body, "$AUTH", r.Header.Get("Authorization")))
}

func mustForm(s string) url.Values {
	v, _ := url.ParseQuery(s)
	return v
}

func source(t *testing.T, e *tokenEndpoint, inBody bool) oauth.ClientCredentials {
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	const id, secret = "client-id-1", "s3cret/value"
	return oauth.ClientCredentials{Carrier: "Acme", URL: srv.URL + "/token", ClientID: id, ClientSecret: secret, InBody: inBody,
		Header: map[string]string{"x-merchant-id": "A1B2C3"}, Client: carriers.HTTPClient(srv.Client()),
		Now: func() time.Time { return tokenNow }, Redactor: carriers.NewRedactor(secret, carriers.BasicCredentials(id, secret)),
		StatusError: func(status int, _ http.Header, body []byte) *carriers.Error {
			return &carriers.Error{Carrier: "Acme", HTTPStatus: status, Kind: carriers.ErrRejected, Message: string(body)}
		}}
}

// The grant goes as each carrier takes it: in an HTTP Basic header, or in
// the form body; never in the URL.
func TestClientCredentialsSendsTheGrant(t *testing.T) {
	t.Parallel()
	for _, inBody := range []bool{false, true} {
		e := &tokenEndpoint{status: 200, body: `{"access_token":"tok","token_type":"Bearer","expires_in":"3599"}`}
		cc := source(t, e, inBody)
		tok, err := cc.Fetch(context.Background())
		if err != nil || tok.AccessToken != "tok" || !tok.ExpiresAt.Equal(tokenNow.Add(3599*time.Second)) {
			t.Fatalf("inBody %v: %+v, %v", inBody, tok, err)
		}
		id, secret, basic := e.got.BasicAuth()
		if basic == inBody || (basic && (id != cc.ClientID || secret != cc.ClientSecret)) {
			t.Errorf("inBody %v: Basic %v %q", inBody, basic, id)
		}
		want := url.Values{"grant_type": {"client_credentials"}}
		if inBody {
			want.Set("client_id", cc.ClientID)
			want.Set("client_secret", cc.ClientSecret)
		}
		if diff := cmp.Diff(want, e.form); diff != "" || e.got.URL.RawQuery != "" || e.got.Header.Get("x-merchant-id") != "A1B2C3" {
			t.Errorf("inBody %v: form (-want +got):\n%s (query %q)", inBody, diff, e.got.URL.RawQuery)
		}
	}
}

// A refusal is refused credentials, whatever the carrier's body says, and
// an endpoint that echoes the request's Authorization header (the client
// id and secret in base64) or the secret itself has them redacted.
func TestClientCredentialsRefusalIsRedacted(t *testing.T) {
	t.Parallel()
	e := &tokenEndpoint{status: 401, body: `{"error":"invalid_client","echo":"$AUTH","secret":"s3cret/value","form":"s3cret%2Fvalue"}`}
	cc := source(t, e, false)
	_, err := cc.Fetch(context.Background())
	var ce *carriers.Error
	if !errors.As(err, &ce) || !errors.Is(err, carriers.ErrFailed) || ce.Message != oauth.MsgCredentialsRefused || ce.Operation != oauth.OpToken {
		t.Fatalf("refusal: %#v, want refused credentials", err)
	}
	e.status = 400
	cc.StatusError = func(status int, _ http.Header, body []byte) *carriers.Error {
		return &carriers.Error{Carrier: "Acme", HTTPStatus: status, Kind: carriers.ErrUnavailable, Code: string(body), Message: string(body)}
	}
	_, err = cc.Fetch(context.Background())
	if !errors.As(err, &ce) || strings.Contains(ce.Error(), "s3cret") || strings.Contains(ce.Error(), "Y2xpZW50LWlkLTE6czNjcmV0L3ZhbHVl") ||
		!strings.Contains(ce.Error(), carriers.Redacted) {
		t.Errorf("an echoed Authorization header or secret is left in %q", ce.Error())
	}
}

// A token answer larger than any token is refused, not read whole.
func TestClientCredentialsBoundsTheAnswer(t *testing.T) {
	t.Parallel()
	e := &tokenEndpoint{status: 200, body: `{"access_token":"` + strings.Repeat("a", 2<<20) + `","expires_in":60}`}
	_, err := source(t, e, true).Fetch(context.Background())
	if !errors.Is(err, carriers.ErrFailed) || !strings.Contains(err.Error(), "larger than 1 MiB") {
		t.Errorf("a 2 MiB token answer: %v, want ErrFailed, larger than 1 MiB", err)
	}
}

package carriers_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/shipd-dev/shipd/carriers"
)

func TestRedactor(t *testing.T) {
	t.Parallel()
	r := carriers.NewRedactor("s3cr3t", "s3cr3t-longer", "", "ab", "510087020", "510087020")
	for in, want := range map[string]string{
		"client_secret=s3cr3t-longer&x=1":        "client_secret=[redacted]&x=1",
		"secret s3cr3t, account 510087020":       "secret [redacted], account [redacted]",
		"ab stays: too short to be a credential": "ab stays: too short to be a credential",
		"":                                       "",
	} {
		if got := r.Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
	tok := r.With("tok-123456")
	if got := tok.Redact("Bearer tok-123456 s3cr3t"); got != "Bearer [redacted] [redacted]" {
		t.Errorf("With: %q", got)
	}
	var none *carriers.Redactor
	if got := none.Redact("s3cr3t"); got != "s3cr3t" {
		t.Errorf("nil Redactor changed the text: %q", got)
	}
	ce := &carriers.Error{Carrier: "FedEx", Operation: "rate", Code: "510087020", Message: "account 510087020 secret s3cr3t"}
	_ = r.Err(fmt.Errorf("wrapped: %w", ce))
	if diff := cmp.Diff("FedEx rate: account [redacted] secret [redacted] ([redacted])", ce.Error()); diff != "" {
		t.Errorf("Err (-want +got):\n%s", diff)
	}
}

// A carrier echoes a secret the way it received it: in a form body or a
// query (URL-encoded), inside JSON, in base64, or as the HTTP Basic
// credentials of a client id and a secret together. Each form is hidden.
func TestRedactorEncodedForms(t *testing.T) {
	t.Parallel()
	const id, secret = "upsfake-client-id", "s3cr3t/with+chars&<json>"
	basic := carriers.BasicCredentials(id, secret)
	r := carriers.NewRedactor(secret, basic)
	for _, echo := range []string{
		"Authorization: Basic " + basic,
		"client_secret=" + url.QueryEscape(secret),
		"/oauth/" + url.PathEscape(secret),
		`{"client_secret":` + jsonString(secret) + `}`,
		"secret in base64 " + base64.StdEncoding.EncodeToString([]byte(secret)),
		"secret in URL base64 " + base64.RawURLEncoding.EncodeToString([]byte(secret)),
	} {
		got := r.Redact(echo)
		if strings.Contains(got, secret) || strings.Contains(got, basic) || strings.Contains(got, url.QueryEscape(secret)) ||
			strings.Contains(got, base64.StdEncoding.EncodeToString([]byte(secret))[:16]) || !strings.Contains(got, carriers.Redacted) {
			t.Errorf("Redact(%q) = %q: a form of the secret is left", echo, got)
		}
	}
	if got := r.Redact("Basic " + base64.StdEncoding.EncodeToString([]byte(id+":other-secret"))); strings.Contains(got, carriers.Redacted) {
		t.Errorf("another client's credentials were redacted: %q", got)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

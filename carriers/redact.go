package carriers

import (
	"cmp"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"strings"
)

// Redacted stands in for a secret that a carrier's text repeated.
const Redacted = "[redacted]"

// minSecretLen is the shortest value a Redactor hides: shorter ones (a
// one-character MID, say) would blank out unrelated words and numbers of
// the carrier's message, and no credential is that short.
const minSecretLen = 4

// Redactor hides an account's credentials in whatever text a carrier sends
// back: carriers echo requests in their error messages ("account 510087020
// is not authorized", a token endpoint repeating the form it got), and that
// text becomes an error the API returns, a failed shipment's errorMessage,
// a settings page notice and a log line. Every adapter builds one from its
// configuration (client secret, account numbers, …) and passes each
// carrier-derived string through it before Excerpt cuts it, so that a cut
// cannot leave the beginning of a secret. The zero value and nil hide
// nothing. A Redactor is safe for concurrent use.
type Redactor struct {
	secrets []string
	r       *strings.Replacer
}

// NewRedactor returns a Redactor of the given secrets and of the forms a
// carrier may echo them in: URL-encoded (a form body, a query), escaped in
// a JSON string, in base64 (alone, or padded as part of a longer text).
// Empty and too short ones are ignored. An HTTP Basic header's encoding of
// a client id and secret together is another form: add BasicCredentials.
func NewRedactor(secrets ...string) *Redactor {
	var keep []string
	add := func(s string) {
		if len(s) >= minSecretLen && !slices.Contains(keep, s) {
			keep = append(keep, s)
		}
	}
	for _, s := range secrets {
		s = strings.TrimSpace(s)
		if len(s) < minSecretLen {
			continue
		}
		for _, form := range encodedForms(s) {
			add(form)
		}
	}
	// Longest first: a secret that contains another is hidden whole.
	slices.SortStableFunc(keep, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	pairs := make([]string, 0, 2*len(keep))
	for _, s := range keep {
		pairs = append(pairs, s, Redacted)
	}
	return &Redactor{secrets: keep, r: strings.NewReplacer(pairs...)}
}

// encodedForms are s and the forms a carrier's text may carry it in.
func encodedForms(s string) []string {
	forms := []string{s, url.QueryEscape(s), url.PathEscape(s), strings.TrimSuffix(base64.StdEncoding.EncodeToString([]byte(s)), "="),
		base64.RawURLEncoding.EncodeToString([]byte(s))}
	if quoted, err := json.Marshal(s); err == nil {
		forms = append(forms, string(quoted[1:len(quoted)-1]))
	}
	// A secret escaped as JSON by a carrier that escapes HTML too.
	forms = append(forms, strings.NewReplacer("<", `\u003c`, ">", `\u003e`, "&", `\u0026`).Replace(s))
	return forms
}

// BasicCredentials is an HTTP Basic header's credentials: the base64 of
// "id:secret", which a token endpoint echoing its request repeats. A
// Redactor given it hides the header's value whole.
func BasicCredentials(id, secret string) string {
	if id == "" && secret == "" {
		return ""
	}
	return base64.StdEncoding.EncodeToString([]byte(id + ":" + secret))
}

// With returns a Redactor that also hides extra, for values known only per
// call: the access token a request carried.
func (r *Redactor) With(extra ...string) *Redactor {
	if r == nil {
		return NewRedactor(extra...)
	}
	return NewRedactor(append(slices.Clone(r.secrets), extra...)...)
}

// Redact returns s with every secret replaced by Redacted.
func (r *Redactor) Redact(s string) string {
	if r == nil || r.r == nil || len(r.secrets) == 0 {
		return s
	}
	return r.r.Replace(s)
}

// Err redacts the code and message of the *Error in err's chain, in place,
// and returns err: the last guard where an adapter hands an error back.
func (r *Redactor) Err(err error) error {
	var ce *Error
	if errors.As(err, &ce) {
		ce.Code = r.Redact(ce.Code)
		ce.Message = r.Redact(ce.Message)
	}
	return err
}

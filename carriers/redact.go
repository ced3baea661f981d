package carriers

import (
	"cmp"
	"errors"
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

// NewRedactor returns a Redactor of the given secrets; empty and too short
// ones are ignored.
func NewRedactor(secrets ...string) *Redactor {
	var keep []string
	for _, s := range secrets {
		s = strings.TrimSpace(s)
		if len(s) >= minSecretLen && !slices.Contains(keep, s) {
			keep = append(keep, s)
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

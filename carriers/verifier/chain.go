package verifier

import "context"

// Chain is several verifiers, each covering some countries, asked in
// order: the first that verifies the address answers. A verifier that
// does not cover the address's country says so with a warning of
// CodeNotVerifiedInternational (USPS and UPS for a foreign address); the
// next one is asked then, so that USPS and UPS keep the US addresses and
// a carrier that verifies elsewhere (DHL Express) gets the others. When
// none covers the country, the first one's answer stands. An error of any
// verifier is the chain's: a verifier that covers the country and cannot
// answer is not replaced by one that would answer something else.
type Chain []Verifier

// Verify asks the verifiers in order (see Chain).
func (c Chain) Verify(ctx context.Context, a Address) (Result, error) {
	if len(c) == 0 {
		return Result{}, ErrNotConfigured
	}
	var first Result
	for i, v := range c {
		r, err := v.Verify(ctx, a)
		if err != nil {
			return Result{}, err
		}
		if !uncovered(r) {
			return r, nil
		}
		if i == 0 {
			first = r
		}
	}
	return first, nil
}

// uncovered reports whether r is a verifier's "this country is not mine".
func uncovered(r Result) bool {
	if r.Status != StatusWarning {
		return false
	}
	for _, m := range r.Messages {
		if m.Code == CodeNotVerifiedInternational {
			return true
		}
	}
	return false
}

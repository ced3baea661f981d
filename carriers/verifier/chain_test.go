package verifier_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers/verifier"
)

// country is a verifier of the countries it covers; others get the
// not_verified_international warning, as USPS and UPS give.
type country struct {
	name   string
	covers map[string]bool
	err    error
	asked  *[]string
}

func (c country) Verify(_ context.Context, a verifier.Address) (verifier.Result, error) {
	*c.asked = append(*c.asked, c.name)
	if c.err != nil {
		return verifier.Result{}, c.err
	}
	if !c.covers[a.Country] {
		return verifier.Result{Status: verifier.StatusWarning, Deliverable: true, Address: a,
			Messages: []verifier.Message{{Code: verifier.CodeNotVerifiedInternational, Field: "country", Message: c.name + " does not cover " + a.Country}}}, nil
	}
	return verifier.Result{Status: verifier.StatusVerified, Deliverable: true, Address: a, Messages: []verifier.Message{{Code: verifier.CodeCityStandardized, Message: c.name}}}, nil
}

func TestChainAsksTheFirstThatCoversTheCountry(t *testing.T) {
	t.Parallel()
	var asked []string
	usps := country{name: "USPS", covers: map[string]bool{"US": true, "PR": true}, asked: &asked}
	dhl := country{name: "DHLExpress", covers: map[string]bool{"US": true, "DE": true, "FR": true}, asked: &asked}
	chain := verifier.Chain{usps, dhl}
	for _, tc := range []struct {
		country, answeredBy string
		status              string
		asked               []string
	}{
		{"US", "USPS", verifier.StatusVerified, []string{"USPS"}},
		{"DE", "DHLExpress", verifier.StatusVerified, []string{"USPS", "DHLExpress"}},
		// Nobody covers Japan: the first one's warning stands.
		{"JP", "USPS", verifier.StatusWarning, []string{"USPS", "DHLExpress"}},
	} {
		asked = nil
		r, err := chain.Verify(context.Background(), verifier.Address{Street1: "1 Main St", Country: tc.country})
		if err != nil {
			t.Fatalf("%s: %v", tc.country, err)
		}
		if r.Status != tc.status || !containsName(r, tc.answeredBy) {
			t.Errorf("%s: %s %+v, want %s from %s", tc.country, r.Status, r.Messages, tc.status, tc.answeredBy)
		}
		if d := cmp.Diff(tc.asked, asked); d != "" {
			t.Errorf("%s: asked (-want +got):\n%s", tc.country, d)
		}
	}
}

func containsName(r verifier.Result, name string) bool {
	for _, m := range r.Messages {
		if strings.HasPrefix(m.Message, name) {
			return true
		}
	}
	return false
}

// A verifier that covers the address and fails fails the chain: the next
// one is not asked in its place.
func TestChainErrorIsTheChains(t *testing.T) {
	t.Parallel()
	var asked []string
	down := country{name: "USPS", err: verifier.ErrUnavailable, asked: &asked}
	dhl := country{name: "DHLExpress", covers: map[string]bool{"US": true}, asked: &asked}
	if _, err := (verifier.Chain{down, dhl}).Verify(context.Background(), verifier.Address{Country: "US"}); !errors.Is(err, verifier.ErrUnavailable) {
		t.Fatalf("error %v, want ErrUnavailable", err)
	}
	if d := cmp.Diff([]string{"USPS"}, asked); d != "" {
		t.Errorf("asked (-want +got):\n%s", d)
	}
	if _, err := (verifier.Chain{}).Verify(context.Background(), verifier.Address{}); !errors.Is(err, verifier.ErrNotConfigured) {
		t.Errorf("empty chain: %v, want ErrNotConfigured", err)
	}
}

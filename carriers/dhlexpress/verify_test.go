package dhlexpress

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/dhlexpress/dhlexpressfake"
	"github.com/shipd-dev/shipd/carriers/verifier"
)

func codes(r verifier.Result) []string {
	var out []string
	for _, m := range r.Messages {
		out = append(out, m.Code)
	}
	return out
}

// DHL confirms a postal code and city: deliverable, a warning that the
// street was not checked, the city as DHL writes it; an area DHL does not
// serve is not deliverable; what is missing is said without a call.
func TestVerify(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, fake, _ := newTestCarrier(t)
	served, err := c.Verify(ctx, verifier.Address{Street1: "Friedrichstr. 123", City: "Berlin", Zip: "10117", Country: "de"})
	if err != nil {
		t.Fatal(err)
	}
	if served.Status != verifier.StatusWarning || !served.Deliverable || served.Address.City != "BERLIN" || served.Address.Country != "DE" ||
		!cmp.Equal([]string{verifier.CodeCityStandardized, verifier.CodeStreetNotVerified}, codes(served)) {
		t.Errorf("served: %+v", served)
	}
	q := fake.LastRequest(dhlexpressfake.OpAddress)
	if string(q) != "cityName=Berlin&countryCode=DE&postalCode=10117&strictValidation=false&type=delivery" {
		t.Errorf("asked %s", q)
	}
	unserved, err := c.Verify(ctx, verifier.Address{Street1: "Nowhere 1", City: "Berlin", Zip: "99999", Country: "DE"})
	if err != nil || unserved.Status != verifier.StatusError || unserved.Deliverable || !cmp.Equal([]string{verifier.CodeAddressNotFound}, codes(unserved)) {
		t.Errorf("unserved: %+v, %v", unserved, err)
	}
	calls := fake.Requests(dhlexpressfake.OpAddress)
	missing, err := c.Verify(ctx, verifier.Address{Country: "FR"})
	if err != nil || missing.Status != verifier.StatusError || !cmp.Equal([]string{verifier.CodeMissingStreet, verifier.CodeMissingCity}, codes(missing)) {
		t.Errorf("missing: %+v, %v", missing, err)
	}
	if bad, _ := c.Verify(ctx, verifier.Address{Street1: "x", City: "y", Country: "Germany"}); !cmp.Equal([]string{verifier.CodeInvalidCountry}, codes(bad)) {
		t.Errorf("country: %+v", bad)
	}
	if fake.Requests(dhlexpressfake.OpAddress) != calls {
		t.Error("incomplete addresses reached DHL")
	}
	fake.FailNext(dhlexpressfake.OpAddress, http.StatusServiceUnavailable, dhlexpressfake.ErrorBody(503, "down"))
	if _, err := c.Verify(ctx, verifier.Address{Street1: "x", City: "Paris", Country: "FR"}); !errors.Is(err, verifier.ErrUnavailable) {
		t.Errorf("DHL down: %v, want verifier.ErrUnavailable", err)
	}
}

// A live chain of USPS-like and DHL verifiers gives DHL the addresses the
// first does not cover only.
func TestVerifyInAChain(t *testing.T) {
	t.Parallel()
	c, fake, _ := newTestCarrier(t)
	us := usOnly{}
	chain := verifier.Chain{us, c}
	r, err := chain.Verify(context.Background(), verifier.Address{Street1: "350 Fifth Avenue", City: "New York", State: "NY", Zip: "10118", Country: "US"})
	if err != nil || r.Status != verifier.StatusVerified || fake.Requests(dhlexpressfake.OpAddress) != 0 {
		t.Errorf("a US address: %+v, %v, %d DHL calls", r, err, fake.Requests(dhlexpressfake.OpAddress))
	}
	r, err = chain.Verify(context.Background(), verifier.Address{Street1: "9 Rue Simart", City: "Paris", Zip: "75018", Country: "FR"})
	if err != nil || r.Address.City != "PARIS" || fake.Requests(dhlexpressfake.OpAddress) != 1 {
		t.Errorf("a French address: %+v, %v", r, err)
	}
}

// usOnly verifies US addresses, as USPS does.
type usOnly struct{}

func (usOnly) Verify(_ context.Context, a verifier.Address) (verifier.Result, error) {
	if a.Country != "US" {
		return verifier.Result{Status: verifier.StatusWarning, Deliverable: true, Address: a,
			Messages: []verifier.Message{{Code: verifier.CodeNotVerifiedInternational, Field: "country"}}}, nil
	}
	return verifier.Result{Status: verifier.StatusVerified, Deliverable: true, Address: a}, nil
}

// CheckCredentials proves the username and password, and says when DHL
// refuses them (ErrFailed with the 401, for the carrier-accounts API).
func TestCheckCredentials(t *testing.T) {
	t.Parallel()
	c, fake, _ := newTestCarrier(t)
	if err := c.CheckCredentials(context.Background()); err != nil {
		t.Fatal(err)
	}
	wrong, err := New(Config{Username: dhlexpressfake.Username, Password: "wrong-password", AccountNumber: dhlexpressfake.AccountNumber, BaseURL: fake.BaseURL()})
	if err != nil {
		t.Fatal(err)
	}
	err = wrong.CheckCredentials(context.Background())
	if ce := asCarrierError(t, err); !errors.Is(err, carriers.ErrFailed) || ce.HTTPStatus != http.StatusUnauthorized || ce.Operation != "token" {
		t.Errorf("wrong password: %+v", ce)
	}
}

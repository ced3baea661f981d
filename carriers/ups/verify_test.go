package ups

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/ups/upsfake"
	"github.com/shipd-dev/shipd/carriers/verifier"
)

func usAddress() verifier.Address {
	return verifier.Address{
		Name: "Grace Hopper", Street1: "355 West San Fernando Street", Street2: "Apt 4",
		City: "San Jose", State: "ca", Zip: "95113", Country: "US",
	}
}

func TestVerifyValid(t *testing.T) {
	t.Parallel()
	c, fake, _ := testCarrier(t)
	res, err := c.Verify(context.Background(), usAddress())
	if err != nil {
		t.Fatal(err)
	}
	plus4 := res.Address.Zip[len("95113-"):]
	yes := true
	want := verifier.Result{
		Status: verifier.StatusVerified, Deliverable: true,
		Address: verifier.Address{
			Name: "Grace Hopper", Street1: "355 W SAN FERNANDO ST", Street2: "APT 4",
			City: "SAN JOSE", State: "CA", Zip: "95113-" + plus4, Country: "US", Residential: &yes,
		},
		Messages: []verifier.Message{
			{Code: "street_standardized", Field: "street1", Message: `street1 standardized: "355 West San Fernando Street" -> "355 W SAN FERNANDO ST"`},
			{Code: "street_standardized", Field: "street2", Message: `street2 standardized: "Apt 4" -> "APT 4"`},
			{Code: "city_standardized", Field: "city", Message: `city standardized: "San Jose" -> "SAN JOSE"`},
			{Code: "state_standardized", Field: "state", Message: `state standardized: "ca" -> "CA"`},
			{Code: "zip4_added", Field: "zip", Message: "ZIP+4 added: 95113-" + plus4},
		},
	}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if n := fake.Requests(upsfake.OpVerify); n != 1 {
		t.Errorf("%d verify requests, want 1", n)
	}
}

func TestVerifyAmbiguousAndNotFound(t *testing.T) {
	t.Parallel()
	c, _, _ := testCarrier(t)
	amb := usAddress()
	amb.Street1 = "1 Ambiguous Road"
	res, err := c.Verify(context.Background(), amb)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != verifier.StatusWarning || !res.Deliverable || res.Messages[len(res.Messages)-1].Code != CodeAddressAmbiguous {
		t.Errorf("ambiguous: %+v, want a deliverable warning ending with %s", res, CodeAddressAmbiguous)
	}
	none := usAddress()
	none.Street1 = "1 Nowhere Lane"
	res, err = c.Verify(context.Background(), none)
	if err != nil {
		t.Fatal(err)
	}
	want := verifier.Result{Status: verifier.StatusError, Deliverable: false, Address: none,
		Messages: []verifier.Message{{Code: CodeAddressNotFound, Field: "street1", Message: "UPS found no address matching this one"}}}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("no candidates (-want +got):\n%s", diff)
	}
}

func TestVerifyInternationalIsNotSent(t *testing.T) {
	t.Parallel()
	c, fake, _ := testCarrier(t)
	a := verifier.Address{Street1: "10 Downing Street", City: "London", Zip: "SW1A 2AA", Country: "gb"}
	res, err := c.Verify(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	a.Country = "GB"
	want := verifier.Result{Status: verifier.StatusWarning, Deliverable: true, Address: a, Messages: []verifier.Message{{
		Code: verifier.CodeNotVerifiedInternational, Field: "country",
		Message: "UPS address validation covers US addresses only; the GB address was not checked"}}}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if n := fake.Requests(upsfake.OpVerify); n != 0 {
		t.Errorf("%d requests reached UPS, want 0", n)
	}
}

func TestVerifyFailures(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status int
		body   string
		want   error
	}{
		{429, upsfake.BodyRateLimited, verifier.ErrUnavailable},
		{503, upsfake.BodyServiceUnavailable, verifier.ErrUnavailable},
		{500, upsfake.ErrorBody("9999", "Internal error"), verifier.ErrFailed},
		{400, upsfake.ErrorBody("264002", "Country Code is invalid or missing."), verifier.ErrFailed},
		{200, `{"XAVResponse":{"Response":{}}}`, verifier.ErrFailed},
		{200, `<html>oops</html>`, verifier.ErrFailed},
	} {
		c, fake, _ := testCarrier(t)
		fake.FailNext(upsfake.OpVerify, tc.status, tc.body)
		_, err := c.Verify(context.Background(), usAddress())
		if !errors.Is(err, tc.want) {
			t.Errorf("%d %s: %v, want %v", tc.status, tc.body, err, tc.want)
		}
		// The carrier's answer stays readable behind the verifier sentinel.
		var ce *carriers.Error
		if !errors.As(err, &ce) || ce.Operation != "verify" {
			t.Errorf("%d: %v does not wrap a verify carriers.Error", tc.status, err)
		}
	}
}

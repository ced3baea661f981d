package usps

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/usps/uspsfake"
	"github.com/shipd-dev/shipd/carriers/verifier"
)

func boolPtr(b bool) *bool { return &b }

func TestVerifyStandardises(t *testing.T) {
	t.Parallel()
	fake := newFake(t)
	c := newCarrier(t, fake)
	in := verifier.Address{Name: "Joe Doe", Street1: "1100 Wyoming Street", Street2: "Suite 150", City: "St. Louis",
		State: "MO", Zip: "63118", Country: "US"}
	got, err := c.Verify(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	want := verifier.Result{
		Status: verifier.StatusVerified, Deliverable: true,
		Address: verifier.Address{Name: "Joe Doe", Street1: "1100 WYOMING ST", Street2: "STE 150", City: "ST LOUIS",
			State: "MO", Zip: "63118-" + got.Address.Zip[6:], Country: "US", Residential: boolPtr(true)},
		Messages: []verifier.Message{
			{Code: verifier.CodeStreetStandardized, Field: "street1", Message: `street1 standardized: "1100 Wyoming Street" -> "1100 WYOMING ST"`},
			{Code: verifier.CodeStreetStandardized, Field: "street2", Message: `street2 standardized: "Suite 150" -> "STE 150"`},
			{Code: verifier.CodeCityStandardized, Field: "city", Message: `city standardized: "St. Louis" -> "ST LOUIS"`},
			{Code: verifier.CodeZip4Added, Field: "zip", Message: "ZIP+4 added: " + got.Address.Zip},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if len(got.Address.Zip) != 10 {
		t.Errorf("zip %q is not ZIP+4", got.Address.Zip)
	}
}

func TestVerifyOutcomes(t *testing.T) {
	t.Parallel()
	fake := newFake(t)
	c := newCarrier(t, fake)
	base := verifier.Address{Street1: "10 Main St", City: "Springfield", State: "IL", Zip: "62701", Country: "US"}
	with := func(f func(*verifier.Address)) verifier.Address {
		a := base
		f(&a)
		return a
	}
	for _, tc := range []struct {
		name        string
		in          verifier.Address
		status      string
		deliverable bool
		code, field string // of the last message
	}{
		{"confirmed", base, verifier.StatusVerified, true, verifier.CodeZip4Added, "zip"},
		{"unit missing (DPV D)", with(func(a *verifier.Address) { a.Street1 = "10 Tower Rd" }), verifier.StatusWarning, true, verifier.CodeMissingStreetNumber, "street2"},
		{"unit not confirmed (DPV S)", with(func(a *verifier.Address) { a.Street2 = "Apt 999" }), verifier.StatusWarning, true, verifier.CodeMissingStreetNumber, "street2"},
		{"no delivery point (DPV N)", with(func(a *verifier.Address) { a.Street1 = "0 Main St" }), verifier.StatusError, false, verifier.CodeMissingStreetNumber, "street1"},
		{"not found (404)", with(func(a *verifier.Address) { a.Street1 = "Main St" }), verifier.StatusError, false, verifier.CodeMissingStreetNumber, "street1"},
		{"several matches (404)", with(func(a *verifier.Address) { a.Street1 = "10 Multiple Way" }), verifier.StatusError, false, verifier.CodeMissingStreetNumber, "street1"},
	} {
		got, err := c.Verify(context.Background(), tc.in)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		last := got.Messages[len(got.Messages)-1]
		if got.Status != tc.status || got.Deliverable != tc.deliverable || last.Code != tc.code || last.Field != tc.field {
			t.Errorf("%s: %+v; want %s, deliverable %v, last message %s on %s", tc.name, got, tc.status, tc.deliverable, tc.code, tc.field)
		}
	}
}

// TestVerifyWithoutACall: what USPS cannot check, or would refuse, is
// answered locally.
func TestVerifyWithoutACall(t *testing.T) {
	t.Parallel()
	fake := newFake(t)
	c := newCarrier(t, fake)
	for _, tc := range []struct {
		name   string
		in     verifier.Address
		status string
		codes  []string
	}{
		{"international", verifier.Address{Street1: "100 Queen St W", City: "Toronto", State: "ON", Zip: "M5H 2N2", Country: "ca"},
			verifier.StatusWarning, []string{verifier.CodeNotVerifiedInternational}},
		{"bad country", verifier.Address{Street1: "1 Main St", Country: "USA"}, verifier.StatusError, []string{verifier.CodeInvalidCountry}},
		{"bad state and zip", verifier.Address{Street1: "1 Main St", City: "X", State: "Calif", Zip: "9021", Country: "US"},
			verifier.StatusError, []string{verifier.CodeInvalidState, verifier.CodeInvalidZip}},
		{"nothing", verifier.Address{Country: "US", State: "CA"}, verifier.StatusError, []string{verifier.CodeMissingStreet, verifier.CodeMissingCity}},
	} {
		got, err := c.Verify(context.Background(), tc.in)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var codes []string
		for _, m := range got.Messages {
			codes = append(codes, m.Code)
		}
		if got.Status != tc.status || !cmp.Equal(codes, tc.codes) {
			t.Errorf("%s: %s %v; want %s %v", tc.name, got.Status, codes, tc.status, tc.codes)
		}
	}
	if n := fake.Requests(uspsfake.OpAddress); n != 0 {
		t.Errorf("%d address requests reached USPS, want 0", n)
	}
}

func TestVerifyFailures(t *testing.T) {
	t.Parallel()
	fake := newFake(t)
	c := newCarrier(t, fake)
	a := verifier.Address{Street1: "10 Main St", City: "Springfield", State: "IL", Country: "US"}

	fake.FailNext(uspsfake.OpAddress, http.StatusServiceUnavailable, `{"apiVersion":"v3","error":{"code":"503","message":"Service Unavailable"}}`)
	_, err := c.Verify(context.Background(), a)
	if !errors.Is(err, verifier.ErrUnavailable) || !errors.Is(err, carriers.ErrUnavailable) {
		t.Errorf("503: err = %v, want verifier.ErrUnavailable", err)
	}
	fake.FailNext(uspsfake.OpAddress, http.StatusInternalServerError, "oops")
	if _, err := c.Verify(context.Background(), a); !errors.Is(err, verifier.ErrFailed) {
		t.Errorf("500: err = %v, want verifier.ErrFailed", err)
	}
	fake.FailNext(uspsfake.OpAddress, http.StatusOK, `{"address":{"streetAddress":"10 MAIN ST"}}`)
	if _, err := c.Verify(context.Background(), a); !errors.Is(err, verifier.ErrFailed) {
		t.Errorf("answer without city, state, ZIP: err = %v, want verifier.ErrFailed", err)
	}
	// A documented 400 is a finding about the address, not a failure.
	fake.FailNext(uspsfake.OpAddress, http.StatusBadRequest, string(readExample(t, "error_address_invalid_state.json")))
	got, err := c.Verify(context.Background(), a)
	if err != nil || got.Status != verifier.StatusError || got.Messages[0].Code != verifier.CodeInvalidState {
		t.Errorf("documented 400: %+v, %v; want an invalid_state finding", got, err)
	}
}

func TestParseAddressDocumentedExample(t *testing.T) {
	t.Parallel()
	// USPS's README example (older field names: addressAdditionalInfo).
	in := verifier.Address{Street1: "3120 M St", Street2: "NW", City: "Washington", State: "DC", Zip: "20027", Country: "US"}
	got, err := parseAddress(readExample(t, "address_readme.json"), in)
	if err != nil {
		t.Fatal(err)
	}
	want := verifier.Result{
		Status: verifier.StatusVerified, Deliverable: true,
		Address: verifier.Address{Street1: "3120 M ST NW", City: "WASHINGTON", State: "DC", Zip: "20007-3704", Country: "US", Residential: boolPtr(false)},
		Messages: []verifier.Message{
			{Code: verifier.CodeStreetStandardized, Field: "street1", Message: `street1 standardized: "3120 M St" -> "3120 M ST NW"`},
			{Code: verifier.CodeStreetStandardized, Field: "street2", Message: `street2 "NW" merged into street1 "3120 M ST NW"`},
			{Code: verifier.CodeCityStandardized, Field: "city", Message: `city standardized: "Washington" -> "WASHINGTON"`},
			{Code: verifier.CodeZipStandardized, Field: "zip", Message: `zip standardized: "20027" -> "20007"`},
			{Code: verifier.CodeZip4Added, Field: "zip", Message: "ZIP+4 added: 20007-3704"},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

package shipping

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/accounts"
)

// rulesInput is a valid domestic shipment whose recipient address the
// cases below change.
func rulesInput(to Address) Input {
	state := "CA"
	return Input{
		From:   Address{Street1: "1 Market St", City: "San Francisco", State: &state, Zip: "94105", Country: "US"},
		To:     to,
		Parcel: Parcel{WeightOz: new(16.0)},
	}
}

func usAddress(state, zip string) Address {
	return Address{Street1: "350 Fifth Avenue", City: "New York", State: &state, Zip: zip, Country: "US"}
}

func abroad(country, zip string) Address {
	return Address{Street1: "1 High Street", City: "Somewhere", Zip: zip, Country: country}
}

// TestAddressRules: test and live mode refuse, with the field's path, the
// states and postal codes a carrier refuses, and accept what carriers take.
func TestAddressRules(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		to   Address
		// bad is the path of the refused field, "" when the address is accepted.
		bad string
	}{
		{"zip with letters", usAddress("NY", "ABCDE"), "toAddress.zip"},
		{"one-digit zip", usAddress("NY", "1"), "toAddress.zip"},
		{"zip above the highest in use", usAddress("AK", "99999"), "toAddress.zip"},
		{"unused zip prefix", usAddress("NY", "00412"), "toAddress.zip"},
		{"zip+4 without the dash's digits", usAddress("NY", "10118-12"), "toAddress.zip"},
		{"unknown state", usAddress("ZZ", "10118"), "toAddress.state"},
		{"state name", usAddress("New York", "10118"), "toAddress.state"},
		{"lower-case state", usAddress("ny", "10118"), ""},
		{"zip+4", usAddress("NY", "10118-0110"), ""},
		{"highest zip in use", usAddress("AK", "99950"), ""},
		{"territory", usAddress("PR", "00901"), ""},
		{"military", usAddress("AE", "09001"), ""},
		{"Puerto Rico as a country", abroad("PR", "00901"), ""},
		{"Canada", abroad("CA", "K1A 0B1"), ""},
		{"Canada without the space, lower case", abroad("ca", "k1a0b1"), ""},
		{"Canada, US zip", abroad("CA", "10118"), "toAddress.zip"},
		{"Britain", abroad("GB", "SW1A 1AA"), ""},
		{"Britain, short outward code", abroad("GB", "M1 1AE"), ""},
		{"Britain, wrong", abroad("GB", "12345"), "toAddress.zip"},
		{"Germany", abroad("DE", "10115"), ""},
		{"Germany, four digits", abroad("DE", "1011"), "toAddress.zip"},
		{"France, letters", abroad("FR", "75OO1"), "toAddress.zip"},
		{"Australia", abroad("AU", "2000"), ""},
		{"Netherlands", abroad("NL", "1012 AB"), ""},
		{"Netherlands, digits only", abroad("NL", "1012"), "toAddress.zip"},
		{"Japan", abroad("JP", "100-0001"), ""},
		{"no format checked", abroad("HK", "D02 X285 whatever"), ""}, // Hong Kong has no postal codes
	}
	for _, mode := range []accounts.Mode{accounts.Test, accounts.Live} {
		for _, tc := range cases {
			t.Run(string(mode)+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				in := rulesInput(tc.to).Normalized()
				if tc.to.Country != "US" {
					in.Customs = &Customs{ContentsType: "merchandise"}
				}
				err := in.check(mode)
				var got string
				var ie *InputError
				if errors.As(err, &ie) {
					got = ie.Issues[0].Path
					if ie.Issues[0].Message == "" {
						t.Errorf("issue %s has no message", got)
					}
				} else if err != nil {
					t.Fatalf("check: %v", err)
				}
				if got != tc.bad {
					t.Errorf("check(%+v) refuses %q (%v), want %q", tc.to, got, err, tc.bad)
				}
			})
		}
	}
}

// TestAddressRulesSender: the sender's address is checked the same way.
func TestAddressRulesSender(t *testing.T) {
	t.Parallel()
	in := rulesInput(usAddress("NY", "10118"))
	in.From.Zip = "ABCDE"
	err := in.check(accounts.Live)
	var ie *InputError
	if !errors.As(err, &ie) {
		t.Fatalf("check: %v, want an InputError", err)
	}
	if diff := cmp.Diff([]string{"fromAddress.zip"}, issuePaths(ie)); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
}

// TestNoRatesTriggerZip: the sandbox's documented no-rates ZIP (00000) is
// accepted as the recipient's in test mode only; live it is no ZIP code.
func TestNoRatesTriggerZip(t *testing.T) {
	t.Parallel()
	in := rulesInput(usAddress("NY", "00000"))
	if err := in.check(accounts.Test); err != nil {
		t.Errorf("test mode: %v, want the trigger accepted", err)
	}
	var ie *InputError
	if err := in.check(accounts.Live); !errors.As(err, &ie) || ie.Issues[0].Path != "toAddress.zip" {
		t.Errorf("live mode: %v, want toAddress.zip refused", err)
	}
	in = rulesInput(usAddress("NY", "10118"))
	in.From.Zip = "00000"
	if err := in.check(accounts.Test); !errors.As(err, &ie) || ie.Issues[0].Path != "fromAddress.zip" {
		t.Errorf("sender 00000 in test mode: %v, want fromAddress.zip refused", err)
	}
}

// TestStateNormalized: a US state is stored upper case, as carriers take it.
func TestStateNormalized(t *testing.T) {
	t.Parallel()
	in := rulesInput(usAddress(" ny ", "10118")).Normalized()
	if got := *in.To.State; got != "NY" {
		t.Errorf("state = %q, want NY", got)
	}
	if err := in.check(accounts.Live); err != nil {
		t.Errorf("check: %v", err)
	}
	ca := abroad("CA", "K1A 0B1")
	prov := "on"
	ca.State = &prov
	if got := *rulesInput(ca).Normalized().To.State; got != "on" {
		t.Errorf("non-US state = %q, want it as given", got)
	}
}

func issuePaths(e *InputError) []string {
	var out []string
	for _, is := range e.Issues {
		out = append(out, is.Path)
	}
	return out
}

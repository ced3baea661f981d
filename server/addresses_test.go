package server

import (
	"net/http"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/gen"
)

func TestVerifyAddressStandardises(t *testing.T) {
	t.Parallel()
	b := setup(t)
	type want struct {
		status      string
		deliverable bool
		street1     string
		street2     string
		city        string
		state       string
		zip5        string // the 5-digit ZIP the result starts with
		zip4        bool   // the result is ZIP+4
		codes       []string
	}
	cases := []struct {
		name string
		in   map[string]any
		want want
	}{
		{"white house, directional and suffix", addr("1600 Pennsylvania Avenue Northwest", "", "washington", "DC", "20500", "US"),
			want{"verified", true, "1600 PENNSYLVANIA AVE NW", "", "WASHINGTON", "DC", "20500", true, []string{"city_standardized", "street_standardized", "zip4_added"}}},
		{"suite moved to street2", addr("350 fifth avenue suite 3300", "", "New York", "ny", "10118", "US"),
			want{"warning", true, "350 FIFTH AVE", "STE 3300", "NEW YORK", "NY", "10118", true, []string{"city_standardized", "state_standardized", "street_standardized", "unit_moved", "zip4_added"}}},
		{"full state name", addr("1 infinite loop", "", "cupertino", "California", "95014", "US"),
			want{"warning", true, "1 INFINITE LOOP", "", "CUPERTINO", "CA", "95014", true, []string{"city_standardized", "state_standardized", "street_standardized", "zip4_added"}}},
		{"po box", addr("P.O. Box 123", "", "Austin", "TX", "78701", "US"),
			want{"verified", true, "PO BOX 123", "", "AUSTIN", "TX", "78701", true, []string{"city_standardized", "street_standardized", "zip4_added"}}},
		{"post-directional", addr("123 Main Street East", "", "Springfield", "IL", "62701", "US"),
			want{"verified", true, "123 MAIN ST E", "", "SPRINGFIELD", "IL", "62701", true, []string{"city_standardized", "street_standardized", "zip4_added"}}},
		{"missing street number", addr("Main Street", "", "Springfield", "IL", "62701", "US"),
			want{"error", false, "MAIN STREET", "", "SPRINGFIELD", "IL", "62701", false, []string{"city_standardized", "missing_street_number", "street_standardized"}}},
		{"zip of another state", addr("123 Main St", "", "Springfield", "IL", "90210", "US"),
			want{"error", false, "123 MAIN ST", "", "SPRINGFIELD", "IL", "90210", false, []string{"city_standardized", "street_standardized", "zip_state_mismatch"}}},
		{"suffix word not in suffix position", addr("1211 avenue of the americas", "", "new york", "NY", "100368701", "US"),
			want{"verified", true, "1211 AVENUE OF THE AMERICAS", "", "NEW YORK", "NY", "10036", true, []string{"city_standardized", "street_standardized", "zip_standardized"}}},
		{"whitespace and punctuation", addr("500  S.  Buena   Vista St.", "", "Burbank", "CA", "91521", "US"),
			want{"verified", true, "500 S BUENA VISTA ST", "", "BURBANK", "CA", "91521", true, []string{"city_standardized", "street_standardized", "zip4_added"}}},
		{"already standard", addr("1 APPLE PARK WAY", "", "CUPERTINO", "CA", "95014", "US"),
			want{"verified", true, "1 APPLE PARK WAY", "", "CUPERTINO", "CA", "95014", true, []string{"zip4_added"}}},
		{"boulevard and apartment in street2", addr("6801 Hollywood Boulevard", "apartment 4", "Los Angeles", "CA", "90028", "US"),
			want{"verified", true, "6801 HOLLYWOOD BLVD", "APT 4", "LOS ANGELES", "CA", "90028", true, []string{"city_standardized", "street_standardized", "street_standardized", "zip4_added"}}},
		{"drive", addr("4059 Mount Lee Drive", "", "Hollywood", "CA", "90068", "US"),
			want{"verified", true, "4059 MOUNT LEE DR", "", "HOLLYWOOD", "CA", "90068", true, []string{"city_standardized", "street_standardized", "zip4_added"}}},
		{"parkway", addr("2 Lincoln Memorial Parkway", "", "Arlington", "VA", "22202", "US"),
			want{"verified", true, "2 LINCOLN MEMORIAL PKWY", "", "ARLINGTON", "VA", "22202", true, []string{"city_standardized", "street_standardized", "zip4_added"}}},
		{"zip+4 given", addr("233 S Wacker Dr", "", "Chicago", "IL", "60606-6306", "US"),
			want{"verified", true, "233 S WACKER DR", "", "CHICAGO", "IL", "60606", true, []string{"city_standardized", "street_standardized"}}},
		{"unknown state", addr("1 Main St", "", "Nowhere", "ZZ", "12345", "US"),
			want{"error", false, "1 MAIN ST", "", "NOWHERE", "ZZ", "12345", false, []string{"city_standardized", "invalid_state", "street_standardized"}}},
		{"malformed zip", addr("1 Main St", "", "Boston", "MA", "1234", "US"),
			want{"error", false, "1 MAIN ST", "", "BOSTON", "MA", "1234", false, []string{"city_standardized", "invalid_zip", "street_standardized"}}},
		{"lane and northeast", addr("77 Northeast Maple Lane", "", "Portland", "OR", "97232", "US"),
			want{"verified", true, "77 NE MAPLE LN", "", "PORTLAND", "OR", "97232", true, []string{"city_standardized", "street_standardized", "zip4_added"}}},
		{"court with floor", addr("12 Jefferson Court", "3rd Floor", "Seattle", "WA", "98101", "US"),
			want{"verified", true, "12 JEFFERSON CT", "FL 3", "SEATTLE", "WA", "98101", true, []string{"city_standardized", "street_standardized", "street_standardized", "zip4_added"}}},
		{"puerto rico", addr("1 Calle Fortaleza", "", "San Juan", "PR", "00901", "US"),
			want{"verified", true, "1 CALLE FORTALEZA", "", "SAN JUAN", "PR", "00901", true, []string{"city_standardized", "street_standardized", "zip4_added"}}},
		{"alaska highway", addr("100 Old Richardson Highway", "", "Fairbanks", "AK", "99701", "US"),
			want{"verified", true, "100 OLD RICHARDSON HWY", "", "FAIRBANKS", "AK", "99701", true, []string{"city_standardized", "street_standardized", "zip4_added"}}},
		{"international, tidied only", addr("10 Downing Street", "", "London", "", "SW1A 2AA", "gb"),
			want{"warning", true, "10 Downing Street", "", "London", "", "SW1A 2AA", false, []string{"country_standardized", "not_verified_international"}}},
		{"canada", addr("24 Sussex Drive", "", "Ottawa", "ON", "K1M 1M4", "CA"),
			want{"warning", true, "24 Sussex Drive", "", "Ottawa", "ON", "K1M 1M4", false, []string{"not_verified_international"}}},
	}
	zip4 := regexp.MustCompile(`^\d{5}-\d{4}$`)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := b.do("POST", "/api/v1/addresses/verify", b.token, tc.in)
			if r.Status != http.StatusCreated {
				t.Fatalf("status %d: %s", r.Status, r.Body)
			}
			var got gen.AddressVerification
			r.Decode(t, &got)
			codes := make([]string, len(got.Messages))
			for i, m := range got.Messages {
				codes[i] = m.Code
				if m.Message == "" {
					t.Errorf("message %s has no text", m.Code)
				}
			}
			sort.Strings(codes)
			a := got.Address
			gotWant := want{string(got.Status), got.Deliverable, a.Street1, deref(a.Street2), a.City, deref(a.State),
				a.Zip[:min(5, len(a.Zip))], zip4.MatchString(a.Zip), codes}
			if !tc.want.zip4 {
				gotWant.zip5 = a.Zip
			}
			if diff := cmp.Diff(tc.want, gotWant, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("verification (-want +got):\n%s\nbody %s", diff, r.Body)
			}
		})
	}
}

func TestVerifyAddressIsDeterministic(t *testing.T) {
	t.Parallel()
	b := setup(t)
	in := addr("350 fifth avenue suite 3300", "", "New York", "NY", "10118", "US")
	first := b.do("POST", "/api/v1/addresses/verify", b.token, in)
	second := b.do("POST", "/api/v1/addresses/verify", b.token, in)
	if diff := cmp.Diff(string(first.Body), string(second.Body)); diff != "" {
		t.Fatalf("two verifications differ:\n%s", diff)
	}
}

func TestVerifyAddressFailureModes(t *testing.T) {
	t.Parallel()
	b := setup(t)
	r := b.do("POST", "/api/v1/addresses/verify", b.token, addr("Verifier Down", "", "Austin", "TX", "78701", "US"))
	wantError(t, r, http.StatusServiceUnavailable, "verifier_unavailable")
	if got := r.Header.Get("Retry-After"); got != "60" {
		t.Errorf("Retry-After = %q, want 60", got)
	}
	r = b.do("POST", "/api/v1/addresses/verify", b.token, addr("  verifier error ", "", "Austin", "TX", "78701", "US"))
	wantError(t, r, http.StatusBadGateway, "verifier_error")

	_, live := b.newToken(b.account.ID, "live", "write:addresses")
	r = b.do("POST", "/api/v1/addresses/verify", live, addr("1 Main St", "", "Austin", "TX", "78701", "US"))
	wantError(t, r, http.StatusInternalServerError, "verifier_not_configured")
}

func TestVerifyAddressValidation(t *testing.T) {
	t.Parallel()
	b := setup(t)
	r := b.do("POST", "/api/v1/addresses/verify", b.token, addr("1 Main St", "", "Austin", "", "78701", "US"))
	if m := wantError(t, r, http.StatusUnprocessableEntity, "invalid_field"); m["field"] != "state" {
		t.Errorf("field = %v, want state", m["field"])
	}
	r = b.do("POST", "/api/v1/addresses/verify", b.token, addr("1 Main St", "", "Austin", "TX", "78701", "USA"))
	if m := wantError(t, r, http.StatusUnprocessableEntity, "invalid_field"); m["field"] != "country" {
		t.Errorf("field = %v, want country", m["field"])
	}
	_, readOnly := b.newToken(b.account.ID, "test", "read:addresses")
	r = b.do("POST", "/api/v1/addresses/verify", readOnly, addr("1 Main St", "", "Austin", "TX", "78701", "US"))
	if m := wantError(t, r, http.StatusForbidden, "insufficient_scope"); m["requiredScope"] != "write:addresses" {
		t.Errorf("requiredScope = %v", m["requiredScope"])
	}
}

func addr(street1, street2, city, state, zip, country string) map[string]any {
	m := map[string]any{"street1": street1, "city": city, "zip": zip, "country": country}
	if street2 != "" {
		m["street2"] = street2
	}
	if state != "" {
		m["state"] = state
	}
	if strings.TrimSpace(street1) == "" {
		delete(m, "street1")
	}
	return m
}

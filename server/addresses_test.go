package server_test

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
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

func TestAddressBook(t *testing.T) {
	t.Parallel()

	t.Run("create and read back", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		in := map[string]any{
			"name": "Ada Lovelace", "company": "Analytical Engines", "street1": "350 Fifth Avenue", "street2": "Suite 3300",
			"city": "New York", "state": "NY", "zip": "10118", "country": "US", "phone": "+1 212 555 0100",
			"email": "ada@example.com", "residential": false,
		}
		r := b.doT(t, "POST", "/api/v1/addresses", b.token, in)
		wantStatus(t, r, 201)
		got := r.JSON(t)
		if id, _ := got["id"].(string); !strings.HasPrefix(id, "adr_") {
			t.Fatalf("id = %v", got["id"])
		}
		want := map[string]any{"id": got["id"], "mode": "test", "createdAt": got["createdAt"]}
		for k, v := range in {
			want[k] = v
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("created (-want +got):\n%s", diff)
		}
		list := b.doT(t, "GET", "/api/v1/addresses", b.token, nil)
		wantStatus(t, list, 200)
		var l struct {
			Data       []map[string]any `json:"data"`
			NextCursor *string          `json:"nextCursor"`
		}
		list.Decode(t, &l)
		if len(l.Data) != 1 || l.NextCursor != nil {
			t.Fatalf("list: %s", list.Body)
		}
		if diff := cmp.Diff(got, l.Data[0]); diff != "" {
			t.Fatalf("listed differs from created (-created +listed):\n%s", diff)
		}
	})

	t.Run("pages", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		var created []string
		for i := range 5 {
			created = append(created, createAddress(t, b, b.token, fmt.Sprintf("City %d", i))["id"].(string))
		}
		slices.Reverse(created)
		addressIDs := func(r response) []string {
			var l addressList
			r.Decode(t, &l)
			ids := []string{}
			for _, d := range l.Data {
				ids = append(ids, d.ID)
			}
			return ids
		}
		for _, tc := range []struct {
			limit int
			sizes []int
		}{{2, []int{2, 2, 1}}, {5, []int{5}}, {1, []int{1, 1, 1, 1, 1}}, {100, []int{5}}} {
			got, sizes := pages(t, b, "/api/v1/addresses", tc.limit, addressIDs)
			if diff := cmp.Diff(created, got); diff != "" {
				t.Fatalf("limit %d: ids (-want +got):\n%s", tc.limit, diff)
			}
			if diff := cmp.Diff(tc.sizes, sizes); diff != "" {
				t.Fatalf("limit %d: page sizes (-want +got):\n%s", tc.limit, diff)
			}
		}

		// a cursor is a position: an address created meanwhile does not shift later pages
		first := b.doT(t, "GET", "/api/v1/addresses?limit=2", b.token, nil)
		var p1 addressList
		first.Decode(t, &p1)
		createAddress(t, b, b.token, "Newcomer")
		second := b.doT(t, "GET", "/api/v1/addresses?limit=2&cursor="+url.QueryEscape(*p1.NextCursor), b.token, nil)
		if diff := cmp.Diff(created[2:4], addressIDs(second)); diff != "" {
			t.Fatalf("second page after an insert (-want +got):\n%s", diff)
		}
	})

	t.Run("default page size is 25", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		for i := range 26 {
			createAddress(t, b, b.token, fmt.Sprintf("C%d", i))
		}
		r := b.doT(t, "GET", "/api/v1/addresses", b.token, nil)
		var l addressList
		r.Decode(t, &l)
		if len(l.Data) != 25 || l.NextCursor == nil {
			t.Fatalf("first default page: %d items, nextCursor %v", len(l.Data), l.NextCursor)
		}
		if l.Data[0].City != "C25" {
			t.Fatalf("not newest first: %s", l.Data[0].City)
		}
	})

	t.Run("accounts are isolated", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		createAddress(t, b, b.token, "Mine")
		other := b.newAccount("Other", true)
		_, otherTok := b.newToken(other.ID, "test", "read:addresses", "write:addresses")
		r := b.doT(t, "GET", "/api/v1/addresses", otherTok, nil)
		wantStatus(t, r, 200)
		var l addressList
		r.Decode(t, &l)
		if len(l.Data) != 0 {
			t.Fatalf("another account sees my addresses: %s", r.Body)
		}
		createAddress(t, b, otherTok, "Theirs")
		r = b.doT(t, "GET", "/api/v1/addresses", b.token, nil)
		r.Decode(t, &l)
		if len(l.Data) != 1 || l.Data[0].City != "Mine" {
			t.Fatalf("my list: %s", r.Body)
		}
		// a cursor does not cross accounts either
		r = b.doT(t, "GET", "/api/v1/addresses?limit=1", otherTok, nil)
		r.Decode(t, &l)
		if len(l.Data) != 1 || l.Data[0].City != "Theirs" {
			t.Fatalf("their list: %s", r.Body)
		}
	})

	t.Run("modes are isolated", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		createAddress(t, b, b.token, "Test city")
		_, live := b.newToken(b.account.ID, "live", "read:addresses", "write:addresses")
		r := b.doT(t, "GET", "/api/v1/addresses", live, nil)
		wantStatus(t, r, 200)
		var l addressList
		r.Decode(t, &l)
		if len(l.Data) != 0 {
			t.Fatalf("live sees test addresses: %s", r.Body)
		}
		created := createAddress(t, b, live, "Live city")
		if created["mode"] != "live" {
			t.Fatalf("mode = %v", created["mode"])
		}
		r = b.doT(t, "GET", "/api/v1/addresses", live, nil)
		r.Decode(t, &l)
		if len(l.Data) != 1 || l.Data[0].City != "Live city" || l.Data[0].Mode != "live" {
			t.Fatalf("live list: %s", r.Body)
		}
		r = b.doT(t, "GET", "/api/v1/addresses", b.token, nil)
		r.Decode(t, &l)
		if len(l.Data) != 1 || l.Data[0].City != "Test city" || l.Data[0].Mode != "test" {
			t.Fatalf("test list: %s", r.Body)
		}
	})
}

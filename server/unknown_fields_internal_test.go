package server

import (
	"strings"
	"testing"
)

func TestClosestName(t *testing.T) {
	t.Parallel()
	set := func(names ...string) map[string]bool {
		m := map[string]bool{}
		for _, n := range names {
			m[n] = true
		}
		return m
	}
	label := set("fromAddress", "toAddress", "parcel", "carrier", "service", "serviceCategory", "options", "customs", "deliverBy", "idempotencyKey")
	address := set("name", "company", "street1", "street2", "city", "state", "zip", "country", "phone", "email", "residential")
	cases := []struct {
		name  string
		known map[string]bool
		want  string
	}{
		{"serviceCatgory", label, "serviceCategory"},   // a letter left out
		{"sevriceCategory", label, "serviceCategory"},  // two letters swapped: one edit
		{"service_category", label, "serviceCategory"}, // snake_case
		{"ServiceCategory", label, "serviceCategory"},  // case
		{"to-address", label, "toAddress"},
		{"carier", label, "carrier"},
		{"servic", label, "service"},
		{"stret1", address, "street1"},
		{"street3", address, "street1"}, // a tie between street1 and street2 goes to the first
		{"zp", address, "zip"},
		{"colour", label, ""},
		{"foo", address, ""},
		{"x", address, ""},
		{"", address, ""},
		{"signature", set("signatureConfirmation"), ""}, // a prefix is not a slip
		{strings.Repeat("a", 100000), address, ""},      // bounded by length before any table is built
	}
	for _, tc := range cases {
		for range 10 { // map order varies; the answer must not
			if got := closestName(tc.name, tc.known); got != tc.want {
				t.Fatalf("closestName(%.20q) = %q, want %q", tc.name, got, tc.want)
			}
		}
	}
}

func TestEditDistance(t *testing.T) {
	t.Parallel()
	cases := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "abc", 0}, {"", "abc", 3}, {"abc", "", 3},
		{"kitten", "sitting", 3}, {"ab", "ba", 1}, {"abcd", "acbd", 1}, {"ca", "abc", 3},
		{"zürich", "zurich", 1},
	}
	for _, tc := range cases {
		if got := editDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

// A member with an empty name is the object's issue (the body's at the
// top): an issue needs a field to name (FuzzCreateRequests found `{"":""}`
// answered with field "").
func TestUnknownFieldWithAnEmptyName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		parent []string
		want   string
	}{{nil, "body"}, {[]string{"toAddress"}, "toAddress"}, {[]string{"customs", "items", "0"}, "customs.items.0"}} {
		is := unknownFieldIssue(tc.parent, "", nil)
		if is.path != tc.want || is.message == "" || !is.unknown {
			t.Errorf("parent %v: %+v, want path %q", tc.parent, is, tc.want)
		}
	}
}

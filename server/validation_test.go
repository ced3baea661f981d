package server_test

// Request validation from the contract: every code and the shape of its body.

import (
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestValidation(t *testing.T) {
	t.Parallel()
	b := setup(t)
	long := strings.Repeat("c", 201)
	cases := []struct {
		name        string
		method      string
		path        string
		body        any
		headers     []string
		status      int
		code        string
		field       string   // for missing_field / invalid_field
		errContains string   // substring of the error message
		issues      []string // paths, for invalid_request
	}{
		// 400 invalid_json
		{name: "malformed JSON", method: "POST", path: "/api/v1/addresses", body: `{"street1": "1 Main St", "city": `, status: 400, code: "invalid_json"},
		{name: "trailing garbage", method: "POST", path: "/api/v1/addresses", body: `{"street1":"x"} {}`, status: 400, code: "invalid_json"},
		{name: "empty body", method: "POST", path: "/api/v1/addresses", body: "", status: 400, code: "invalid_json"},
		{name: "wrong content type", method: "POST", path: "/api/v1/addresses", body: validAddress(), headers: []string{"Content-Type", "text/plain"}, status: 400, code: "invalid_json"},
		{name: "form content type", method: "POST", path: "/api/v1/webhooks", body: "url=https%3A%2F%2Fexample.com&events=*", headers: []string{"Content-Type", "application/x-www-form-urlencoded"}, status: 400, code: "invalid_json"},
		{name: "no content type", method: "POST", path: "/api/v1/addresses", body: validAddress(), headers: []string{"Content-Type", ""}, status: 400, code: "invalid_json"},
		{name: "malformed JSON on PATCH", method: "PATCH", path: "/api/v1/webhooks/whk_000000000000000000000000", body: `{"enabled": tru}`, status: 400, code: "invalid_json"},
		{name: "charset parameter is fine", method: "POST", path: "/api/v1/addresses", body: validAddress(), headers: []string{"Content-Type", "application/json; charset=utf-8"}, status: 201},

		// 422 missing_field
		{name: "missing city", method: "POST", path: "/api/v1/addresses", body: addressBody(func(m map[string]any) { delete(m, "city") }),
			status: 422, code: "missing_field", field: "city"},
		{name: "missing nested toAddress.city", method: "POST", path: "/api/v1/labels/create",
			body:   quoteBody(func(q map[string]any) { delete(object(q, "toAddress"), "city") }),
			status: 422, code: "missing_field", field: "toAddress.city"},
		{name: "missing parcel", method: "POST", path: "/api/v1/labels/quote",
			body: quoteBody(func(q map[string]any) { delete(q, "parcel") }), status: 422, code: "missing_field", field: "parcel"},
		{name: "missing events", method: "POST", path: "/api/v1/webhooks", body: map[string]any{"url": "https://example.com/h"},
			status: 422, code: "missing_field", field: "events"},

		// 422 invalid_field
		{name: "three-letter country", method: "POST", path: "/api/v1/addresses", body: addressBody(func(m map[string]any) { m["country"] = "USA" }),
			status: 422, code: "invalid_field", field: "country"},
		{name: "three-letter nested country", method: "POST", path: "/api/v1/labels/quote",
			body:   quoteBody(func(q map[string]any) { object(q, "fromAddress")["country"] = "USA" }),
			status: 422, code: "invalid_field", field: "fromAddress.country"},
		{name: "zero weight", method: "POST", path: "/api/v1/labels/quote",
			body:   quoteBody(func(q map[string]any) { object(q, "parcel")["weightOz"] = 0 }),
			status: 422, code: "invalid_field", field: "parcel.weightOz", errContains: "number must be greater than 0"},
		{name: "negative weight", method: "POST", path: "/api/v1/labels/quote",
			body:   quoteBody(func(q map[string]any) { object(q, "parcel")["weightOz"] = -1 }),
			status: 422, code: "invalid_field", field: "parcel.weightOz", errContains: "number must be greater than 0"},
		{name: "wrong type", method: "POST", path: "/api/v1/addresses", body: addressBody(func(m map[string]any) { m["city"] = 5 }),
			status: 422, code: "invalid_field", field: "city"},
		{name: "empty city", method: "POST", path: "/api/v1/addresses", body: addressBody(func(m map[string]any) { m["city"] = "" }),
			status: 422, code: "invalid_field", field: "city"},
		{name: "US address without state", method: "POST", path: "/api/v1/addresses", body: addressBody(func(m map[string]any) { delete(m, "state") }),
			status: 422, code: "invalid_field", field: "state"},
		{name: "US address with blank state", method: "POST", path: "/api/v1/addresses", body: addressBody(func(m map[string]any) { m["state"] = "  " }),
			status: 422, code: "invalid_field", field: "state"},
		{name: "lower-case us without state", method: "POST", path: "/api/v1/addresses", body: addressBody(func(m map[string]any) { delete(m, "state"); m["country"] = "us" }),
			status: 422, code: "invalid_field", field: "state"},
		{name: "nested US address without state", method: "POST", path: "/api/v1/labels/quote",
			body:   quoteBody(func(q map[string]any) { delete(object(q, "toAddress"), "state") }),
			status: 422, code: "invalid_field", field: "toAddress.state"},
		{name: "two nested US addresses without state", method: "POST", path: "/api/v1/labels/quote",
			body: quoteBody(func(q map[string]any) {
				delete(object(q, "toAddress"), "state")
				delete(object(q, "fromAddress"), "state")
			}),
			status: 422, code: "invalid_request", issues: []string{"fromAddress.state", "toAddress.state"}},
		{name: "non-US address without state is fine", method: "POST", path: "/api/v1/addresses",
			body:   map[string]any{"street1": "10 Downing St", "city": "London", "zip": "SW1A 2AA", "country": "GB"},
			status: 201},
		{name: "empty events", method: "POST", path: "/api/v1/webhooks", body: map[string]any{"url": "https://example.com/h", "events": []string{}},
			status: 422, code: "invalid_field", field: "events"},
		{name: "limit 0", method: "GET", path: "/api/v1/addresses?limit=0", status: 422, code: "invalid_field", field: "limit"},
		{name: "limit 101", method: "GET", path: "/api/v1/addresses?limit=101", status: 422, code: "invalid_field", field: "limit"},
		{name: "limit not a number", method: "GET", path: "/api/v1/addresses?limit=ten", status: 422, code: "invalid_field", field: "limit"},
		{name: "limit 101 on webhooks", method: "GET", path: "/api/v1/webhooks?limit=101", status: 422, code: "invalid_field", field: "limit"},
		{name: "limit 1 and 100 are fine", method: "GET", path: "/api/v1/addresses?limit=100", status: 200},
		{name: "bad cursor", method: "GET", path: "/api/v1/addresses?cursor=not-a-cursor", status: 422, code: "invalid_field", field: "cursor"},
		{name: "cursor of the wrong version", method: "GET", path: "/api/v1/addresses?cursor=djk6MTA", status: 422, code: "invalid_field", field: "cursor"},
		{name: "bad cursor on webhooks", method: "GET", path: "/api/v1/webhooks?cursor=%21%21", status: 422, code: "invalid_field", field: "cursor"},
		{name: "overlong cursor", method: "GET", path: "/api/v1/webhooks?cursor=" + long, status: 422, code: "invalid_field", field: "cursor"},

		// 422 invalid_request with every issue
		{name: "several problems", method: "POST", path: "/api/v1/addresses",
			body:   addressBody(func(m map[string]any) { delete(m, "city"); m["country"] = "USA"; m["zip"] = "" }),
			status: 422, code: "invalid_request", issues: []string{"city", "country", "zip"}},
		{name: "several nested problems", method: "POST", path: "/api/v1/labels/create",
			body: quoteBody(func(q map[string]any) {
				delete(object(q, "toAddress"), "city")
				object(q, "fromAddress")["country"] = "USA"
				object(q, "parcel")["weightOz"] = -1
			}),
			status: 422, code: "invalid_request", issues: []string{"fromAddress.country", "parcel.weightOz", "toAddress.city"}},
		{name: "limit and cursor", method: "GET", path: "/api/v1/webhooks?limit=0&cursor=" + long,
			status: 422, code: "invalid_request", issues: []string{"cursor", "limit"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			headers := append([]string{"Authorization", "Bearer " + b.token}, tc.headers...)
			r := b.call(t, tc.method, tc.path, tc.body, headers...)
			if tc.code == "" {
				wantStatus(t, r, tc.status)
				return
			}
			m := wantError(t, r, tc.status, tc.code)
			if tc.field != "" && m["field"] != tc.field {
				t.Errorf("field = %v, want %s; body %s", m["field"], tc.field, r.Body)
			}
			if tc.errContains != "" && !strings.Contains(m["error"].(string), tc.errContains) {
				t.Errorf("error %q does not contain %q", m["error"], tc.errContains)
			}
			if tc.issues != nil {
				var body struct {
					Issues []struct {
						Path    string `json:"path"`
						Message string `json:"message"`
					} `json:"issues"`
				}
				r.Decode(t, &body)
				var paths []string
				seen := map[string]bool{}
				for _, is := range body.Issues {
					if seen[is.Path+"\x00"+is.Message] {
						t.Errorf("issue %s: %q is listed twice", is.Path, is.Message)
					}
					seen[is.Path+"\x00"+is.Message] = true
					if !slices.Contains(paths, is.Path) {
						paths = append(paths, is.Path)
					}
					if is.Message == "" {
						t.Errorf("issue %s has no message", is.Path)
					}
				}
				sort.Strings(paths)
				if diff := cmp.Diff(tc.issues, paths); diff != "" {
					t.Errorf("issue paths (-want +got):\n%s\nbody %s", diff, r.Body)
				}
			}
		})
	}
}

// Requests that fail validation never reach the handler: nothing is stored.
func TestValidationNothingStoredOnFailure(t *testing.T) {
	t.Parallel()
	b := setup(t)
	bad := []any{
		`{"street1":`,
		addressBody(func(m map[string]any) { delete(m, "city") }),
		addressBody(func(m map[string]any) { delete(m, "state") }),
	}
	for _, body := range bad {
		r := b.doT(t, "POST", "/api/v1/addresses", b.token, body)
		if r.Status < 400 {
			t.Fatalf("status %d for an invalid body", r.Status)
		}
	}
	r := b.doT(t, "GET", "/api/v1/addresses", b.token, nil)
	var l addressList
	r.Decode(t, &l)
	if len(l.Data) != 0 {
		t.Fatalf("rejected addresses were stored: %s", r.Body)
	}
}

// JSON Schema counts 1.0 and 1e2 as integers, and so does shipd: a client
// whose JSON library writes every number with a fraction is understood. A
// number that is not whole is refused where it stands.
func TestIntegersWrittenAsDecimals(t *testing.T) {
	t.Parallel()
	b := setup(t, withoutRateLimits())
	quote := func(quantity string) response {
		body := `{"fromAddress":{"name":"Shop","street1":"1 Market St","city":"San Francisco","state":"CA","zip":"94105","country":"US"},
			"toAddress":{"name":"Alan Turing","street1":"10 Downing St","city":"London","zip":"SW1A 2AA","country":"GB"},
			"parcel":{"weightOz":16},
			"customs":{"contentsType":"gift","items":[{"description":"Mug","quantity":` + quantity + `,"valueCents":1.5e3,"weightOz":8}]}}`
		return b.doT(t, "POST", "/api/v1/labels/quote", b.token, body)
	}
	for _, q := range []string{"1.0", "2e0", "1E+1", "100.000", "-0.0e0"} {
		r := quote(q)
		if q == "-0.0e0" {
			wantError(t, r, http.StatusUnprocessableEntity, "invalid_field") // quantity is at least 1
			continue
		}
		wantStatus(t, r, http.StatusOK)
	}
	m := wantError(t, quote("1.5"), http.StatusUnprocessableEntity, "invalid_field")
	if m["field"] != "customs.items.0.quantity" {
		t.Errorf("field = %v, want customs.items.0.quantity", m["field"])
	}
}

package server_test

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/shipd-dev/shipd/openapi"
)

// invalidUTF8 are byte sequences that are not UTF-8, percent-encoded as a
// client sends them: a lone continuation byte, an overlong NUL, a UTF-16
// surrogate. PostgreSQL refuses them in text ("invalid byte sequence for
// encoding UTF8", SQLSTATE 22021: a 500) where SQLite stores them, so they
// are refused at the door, the same on both backends. Run on PostgreSQL
// with scripts/pg-test.sh go test -run UTF8 ./server/.
var invalidUTF8 = []string{"%ff", "%c0%80", "%ed%a0%80"}

// Every route of the contract with an id in its path answers 404 not_found
// for an id that is not UTF-8, as for any id that names nothing.
func TestInvalidUTF8InPathIDsIsNotFound(t *testing.T) {
	t.Parallel()
	// Without limits: the carrier accounts' writes alone are more requests
	// than their bucket's burst.
	b := setup(t, withoutRateLimits())
	doc, err := openapi3.NewLoader().LoadFromData(openapi.YAML)
	if err != nil {
		t.Fatal(err)
	}
	param := regexp.MustCompile(`\{[^}]+\}`)
	paths := doc.Paths.InMatchingOrder()
	slices.Sort(paths)
	routes := 0
	for _, path := range paths {
		if !param.MatchString(path) {
			continue
		}
		for method := range doc.Paths.Value(path).Operations() {
			routes++
			for _, bad := range invalidUTF8 {
				for _, prefix := range []string{"", "x_"} {
					concrete := "/api/v1" + param.ReplaceAllString(path, prefix+bad)
					t.Run(method+" "+concrete, func(t *testing.T) {
						var body any
						if method == http.MethodPatch || method == http.MethodPost {
							body = map[string]any{"description": "d"}
						}
						wantError(t, b.doT(t, method, concrete, b.token, body), http.StatusNotFound, "not_found")
					})
				}
			}
		}
	}
	if routes < 20 {
		t.Fatalf("only %d routes with ids in the contract", routes)
	}
}

// A query parameter that is not UTF-8 is 422 invalid_field naming it.
func TestInvalidUTF8InQueryIsInvalidField(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, bad := range invalidUTF8 {
		for _, tc := range []struct{ path, field string }{
			{"/api/v1/events?type=" + bad, "type"},
			{"/api/v1/events?type=shipment.purchased" + bad, "type"},
			{"/api/v1/labels?cursor=" + bad, "cursor"},
			{"/api/v1/labels?status=purchased" + bad, "status"},
			{"/api/v1/addresses?cursor=abc" + bad, "cursor"},
			{"/api/v1/pickups?limit=1&cursor=" + bad, "cursor"},
			{"/api/v1/labels?" + bad + "=1", "query"},
		} {
			t.Run(tc.path, func(t *testing.T) {
				m := wantError(t, b.doT(t, "GET", tc.path, b.token, nil), http.StatusUnprocessableEntity, "invalid_field")
				if m["field"] != tc.field {
					t.Errorf("field = %v, want %s", m["field"], tc.field)
				}
			})
		}
	}
}

// A body that is not UTF-8 is not JSON (RFC 8259 §8.1): 400 invalid_json,
// where encoding/json would have read each bad byte as U+FFFD and stored
// what the client never sent.
func TestInvalidUTF8InBodyIsInvalidJSON(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, bad := range []string{"\xff", "\xc0\x80", "\xed\xa0\x80"} {
		for i, tc := range []struct{ method, path, body string }{
			{"POST", "/api/v1/addresses", `{"name":"Ada` + bad + `","street1":"1 A St","city":"New York","state":"NY","zip":"10118","country":"US"}`},
			{"POST", "/api/v1/webhooks", `{"url":"https://example.com/h","events":["*"],"description":"` + bad + `"}`},
			{"POST", "/api/v1/webhooks", `{"url":"https://example.com/h","events":["*"],"` + bad + `":1}`},
			{"POST", "/api/v1/labels/shp_nope/refund", `{"idempotencyKey":"k` + bad + `"}`},
		} {
			t.Run(fmt.Sprintf("%s %d %x", tc.path, i, bad), func(t *testing.T) {
				wantError(t, b.doT(t, tc.method, tc.path, b.token, tc.body), http.StatusBadRequest, "invalid_json")
			})
		}
	}
	var addrs addressList
	r := b.do("GET", "/api/v1/addresses", b.token, nil)
	wantStatus(t, r, http.StatusOK)
	r.Decode(t, &addrs)
	if len(addrs.Data) != 0 {
		t.Errorf("addresses after the refused requests: %+v", addrs.Data)
	}
}

package server_test

// The messages a generated client shows its user as they are: a wrong date
// says the form it wants, a JSON syntax error where it is, a wrong method
// which methods the path has.

import (
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/openapi"
)

func pickupTimes(readyAt, closeAt string) map[string]any {
	return map[string]any{"carrier": "UPS", "address": validAddress(), "readyAt": readyAt, "closeAt": closeAt}
}

func TestDateAndTimeMessages(t *testing.T) {
	t.Parallel()
	b := setup(t)
	const (
		wantDate = "must be a date as YYYY-MM-DD, e.g. 2026-03-10"
		wantTime = "must be an RFC 3339 time with its offset, e.g. 2026-12-01T09:00:00-05:00 (or Z for UTC)"
	)
	type issue struct{ Path, Message string }
	cases := []struct {
		name, path string
		body       any
		want       []issue
	}{
		{"a US date", "/api/v1/labels/quote", quoteBody(func(q map[string]any) { q["deliverBy"] = "12/05/2026" }),
			[]issue{{"deliverBy", wantDate}}},
		{"a day that does not exist", "/api/v1/labels/quote", quoteBody(func(q map[string]any) { q["deliverBy"] = "2026-02-30" }),
			[]issue{{"deliverBy", wantDate}}},
		{"a date in a batch item", "/api/v1/batches", map[string]any{"shipments": []any{quoteBody(func(q map[string]any) { q["deliverBy"] = "5 Dec 2026" })}},
			[]issue{{"shipments.0.deliverBy", wantDate}}},
		{"a time with a space", "/api/v1/pickups", pickupTimes("2026-12-01 09:00", "2026-12-01T17:00:00-05:00"),
			[]issue{{"readyAt", wantTime}}},
		{"times without their offset", "/api/v1/pickups", pickupTimes("2026-12-01T09:00:00", "2026-12-01T17:00:00"),
			[]issue{{"closeAt", wantTime}, {"readyAt", wantTime}}},
		{"an hour that does not exist", "/api/v1/pickups", pickupTimes("2026-12-01T09:00:00-05:00", "2026-12-01T25:00:00-05:00"),
			[]issue{{"closeAt", wantTime}}},
		{"a day that does not exist in a time", "/api/v1/pickups", pickupTimes("2026-02-30T09:00:00-05:00", "2026-02-30T17:00:00-05:00"),
			[]issue{{"closeAt", wantTime}, {"readyAt", wantTime}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := b.doT(t, "POST", tc.path, b.token, tc.body)
			var got []issue
			if len(tc.want) == 1 {
				m := wantError(t, r, http.StatusUnprocessableEntity, "invalid_field")
				got = []issue{{m["field"].(string), strings.TrimPrefix(m["error"].(string), m["field"].(string)+": ")}}
			} else {
				wantError(t, r, http.StatusUnprocessableEntity, "invalid_request")
				var body struct{ Issues []issue }
				r.Decode(t, &body)
				got = body.Issues
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestJSONSyntaxErrorsSayWhere(t *testing.T) {
	t.Parallel()
	b := setup(t)
	cases := []struct{ name, body, want string }{
		{"a trailing comma", `{"street1": "1 Main St",}`,
			`the request body is not valid JSON: invalid character '}' looking for beginning of object key string at line 1, column 25`},
		{"on a later line, after a multibyte character", "{\n  \"city\": \"Zürich\"\n  \"zip\": \"8001\"\n}",
			`the request body is not valid JSON: invalid character '"' after object key:value pair at line 3, column 3`},
		{"cut short", "{\n  \"street1\": ",
			`the request body is not valid JSON: unexpected end of JSON input at line 2, column 14`},
		{"trailing garbage", `{"street1":"x"} {}`,
			`the request body is not valid JSON: invalid character '{' after top-level value at line 1, column 17`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := wantError(t, b.doT(t, "POST", "/api/v1/addresses", b.token, tc.body), http.StatusBadRequest, "invalid_json")
			if m["error"] != tc.want {
				t.Errorf("error = %q\nwant    %q", m["error"], tc.want)
			}
		})
	}
}

// TestMethodsNotAllowed sends every method of the contract's vocabulary
// that a path lacks, to every path: 405 with Allow naming the path's
// methods, also where another route's path parameter would take the path
// (GET /labels/quote is not GET /labels/{id} with the id "quote").
func TestMethodsNotAllowed(t *testing.T) {
	t.Parallel()
	b := setup(t)
	doc, err := openapi3.NewLoader().LoadFromData(openapi.YAML)
	if err != nil {
		t.Fatal(err)
	}
	param := regexp.MustCompile(`\{[^}]+\}`)
	checked := 0
	for path, item := range doc.Paths.Map() {
		var have []string
		for method := range item.Operations() {
			have = append(have, method)
		}
		slices.Sort(have)
		url := "/api/v1" + param.ReplaceAllString(path, "xyz_0")
		for _, method := range []string{"GET", "POST", "PUT", "PATCH", "DELETE"} {
			if slices.Contains(have, method) {
				continue
			}
			checked++
			r := b.doT(t, method, url, b.token, nil)
			if r.Status != http.StatusMethodNotAllowed {
				t.Errorf("%s %s: status %d, want 405: %s", method, url, r.Status, r.Body)
				continue
			}
			wantError(t, r, http.StatusMethodNotAllowed, "method_not_allowed")
			if got, want := r.Header.Get("Allow"), strings.Join(append([]string{"OPTIONS"}, have...), ", "); got != want {
				t.Errorf("%s %s: Allow = %q, want %q", method, url, got, want)
			}
		}
	}
	if checked < 100 {
		t.Errorf("only %d wrong methods sent", checked)
	}
}

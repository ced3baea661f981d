package contracttest

// The harness tests itself: a server whose responses are broken on purpose
// must make the scenario fail, for the right reason; and the coverage gate
// must catch a missing scenario, a stale pending entry and an undocumented status.

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// rewrite wraps a handler and edits the responses of requests that match.
func rewrite(method, pathPattern string, edit func(status *int, h http.Header, body []byte) []byte) func(http.Handler) http.Handler {
	re := regexp.MustCompile("^" + pathPattern + "$")
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != method || !re.MatchString(r.URL.Path) {
				next.ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			next.ServeHTTP(rec, r)
			status := rec.Code
			h := rec.Header().Clone()
			body := edit(&status, h, rec.Body.Bytes())
			h.Set("Content-Length", strconv.Itoa(len(body)))
			for k, vs := range h {
				w.Header()[k] = vs
			}
			w.WriteHeader(status)
			_, _ = w.Write(body)
		})
	}
}

// editJSON decodes the body, lets f change it, and encodes it again.
func editJSON(f func(m map[string]any)) func(*int, http.Header, []byte) []byte {
	return func(_ *int, _ http.Header, body []byte) []byte {
		var m map[string]any
		if err := json.Unmarshal(body, &m); err != nil {
			return body
		}
		f(m)
		out, _ := json.Marshal(m)
		return out
	}
}

func findScenario(t *testing.T, id string) Scenario {
	t.Helper()
	for _, sc := range Scenarios(suite.contract) {
		if sc.ID() == id {
			return sc
		}
	}
	t.Fatalf("no scenario %s", id)
	return Scenario{}
}

// TestHarnessFailsBrokenResponses runs scenarios against in-process servers
// whose responses drift from the contract, and expects each to fail.
func TestHarnessFailsBrokenResponses(t *testing.T) {
	t.Parallel()
	carrierRateAsString := regexp.MustCompile(`"carrierRateCents":(\d+)`)
	cases := []struct {
		name     string
		scenario string
		wrap     func(http.Handler) http.Handler
		want     string // in one of the problems; "" means the scenario must pass
	}{
		{
			name:     "unchanged responses pass (control)",
			scenario: "quoteLabel/200/rates from every carrier",
			wrap:     rewrite("POST", "/api/v1/labels/quote", func(_ *int, _ http.Header, b []byte) []byte { return b }),
		},
		{
			name:     "a field changes type",
			scenario: "quoteLabel/200/rates from every carrier",
			wrap: rewrite("POST", "/api/v1/labels/quote", func(_ *int, _ http.Header, b []byte) []byte {
				return carrierRateAsString.ReplaceAll(b, []byte(`"carrierRateCents":"$1"`))
			}),
			want: "carrierRateCents",
		},
		{
			name:     "a required field is dropped",
			scenario: "quoteLabel/200/rates from every carrier",
			wrap: rewrite("POST", "/api/v1/labels/quote", editJSON(func(m map[string]any) {
				for _, r := range m["rates"].([]any) {
					delete(r.(map[string]any), "platformFeeCents")
				}
			})),
			want: `"platformFeeCents"`,
		},
		{
			name:     "an enum gets a value the contract does not list",
			scenario: "createLabel/202/purchase accepted",
			wrap:     rewrite("POST", "/api/v1/labels/create", editJSON(func(m map[string]any) { m["status"] = "queued" })),
			want:     "status",
		},
		{
			name:     "an undocumented status",
			scenario: "getLabel/404/no such shipment",
			wrap: rewrite("GET", "/api/v1/labels/[^/]+", func(st *int, _ http.Header, b []byte) []byte {
				*st = http.StatusGone
				return b
			}),
			want: "status is not supported",
		},
		{
			name:     "a required header is dropped (Retry-After on 503)",
			scenario: "quoteLabel/503/sandbox Carriers Down",
			wrap: rewrite("POST", "/api/v1/labels/quote", func(_ *int, h http.Header, b []byte) []byte {
				h.Del("Retry-After")
				return b
			}),
			want: `"Retry-After" missing`,
		},
		{
			name:     "a required header has the wrong type (Retry-After)",
			scenario: "getLabelPDF/202/Slow Carrier still paying",
			wrap: rewrite("GET", "/api/v1/labels/[^/]+/label.pdf", func(_ *int, h http.Header, b []byte) []byte {
				h.Set("Retry-After", "soon")
				return b
			}),
			want: `"Retry-After"`,
		},
		{
			name:     "X-Request-Id is dropped from an error",
			scenario: "getLabel/404/no such shipment",
			wrap: rewrite("GET", "/api/v1/labels/[^/]+", func(_ *int, h http.Header, b []byte) []byte {
				h.Del("X-Request-Id")
				return b
			}),
			want: `"X-Request-Id" missing`,
		},
		{
			name:     "X-Rate-Limit-Reset is dropped from a 429",
			scenario: "listLabels/429/bucket empty",
			wrap: rewrite("GET", "/api/v1/labels", func(_ *int, h http.Header, b []byte) []byte {
				h.Del("X-RateLimit-Reset")
				return b
			}),
			want: `"X-RateLimit-Reset" missing`,
		},
		{
			name:     "X-RateLimit-Remaining is dropped from a 2xx",
			scenario: "listLabels/200/first page of two",
			wrap: rewrite("GET", "/api/v1/labels", func(_ *int, h http.Header, b []byte) []byte {
				h.Del("X-RateLimit-Remaining")
				return b
			}),
			want: "X-RateLimit-Remaining",
		},
		{
			name:     "an undeclared content type",
			scenario: "quoteLabel/200/rates from every carrier",
			wrap: rewrite("POST", "/api/v1/labels/quote", func(_ *int, h http.Header, b []byte) []byte {
				h.Set("Content-Type", "text/plain")
				return b
			}),
			want: "text/plain",
		},
		{
			name:     "another error code",
			scenario: "quoteLabel/422/sandbox zip 00000",
			wrap: rewrite("POST", "/api/v1/labels/quote", func(_ *int, _ http.Header, b []byte) []byte {
				return bytes.Replace(b, []byte(`"no_rates"`), []byte(`"no_rate"`), 1)
			}),
			want: `code "no_rate", want "no_rates"`,
		},
		{
			name:     "requestId differs from X-Request-Id",
			scenario: "quoteLabel/422/sandbox zip 00000",
			wrap:     rewrite("POST", "/api/v1/labels/quote", editJSON(func(m map[string]any) { m["requestId"] = "req_other" })),
			want:     "differs from X-Request-Id",
		},
		{
			name:     "an error body without its required message",
			scenario: "getLabel/404/no such shipment",
			wrap:     rewrite("GET", "/api/v1/labels/[^/]+", editJSON(func(m map[string]any) { delete(m, "error") })),
			want:     `"error"`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			target, err := startInProcess(inProcessOptions{name: "broken", wrap: tc.wrap})
			if err != nil {
				t.Fatal(err)
			}
			defer target.Close()
			sc := findScenario(t, tc.scenario)
			r := &Runner{Contract: suite.contract, Target: target, Special: func(ServerKind) (*Target, error) { return target, nil }}
			if sc.Server == RateLimitedServer {
				// The rate-limited scenario needs tiny buckets; build that server with the wrap.
				rl, err := startInProcess(inProcessOptions{name: "broken rate limited", wrap: tc.wrap, configure: tinyBuckets})
				if err != nil {
					t.Fatal(err)
				}
				defer rl.Close()
				r.Special = func(ServerKind) (*Target, error) { return rl, nil }
			}
			res := r.Run(context.Background(), sc)
			if tc.want == "" {
				if res.Outcome != Passed {
					t.Fatalf("the control scenario %s: %s", res.Outcome, strings.Join(res.Problems, "; "))
				}
				return
			}
			if res.Outcome != Failed {
				t.Fatalf("the harness let a broken response pass (%s)", res.Outcome)
			}
			all := strings.Join(res.Problems, "\n")
			if !strings.Contains(all, tc.want) {
				t.Fatalf("the scenario failed, but no problem mentions %q:\n%s", tc.want, all)
			}
			t.Logf("reported: %s", firstLine(all, 300))
		})
	}
}

// A 204 cannot carry a body through net/http, so the check that a status
// without content in the contract has no body is tested on the checker.
func TestCheckerRefusesBodyWithoutContent(t *testing.T) {
	t.Parallel()
	ck, err := newChecker("http://shipd.test")
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest("DELETE", "http://shipd.test/api/v1/webhooks/whk_1", nil)
	h := http.Header{"X-Request-Id": {"req_1"}, "Content-Type": {"application/json"}}
	if p := ck.check(context.Background(), "deleteWebhook", req, 204, h, nil); len(p) > 0 {
		t.Fatalf("an empty 204: %v", p)
	}
	p := ck.check(context.Background(), "deleteWebhook", req, 204, h, []byte(`{"deleted":true}`))
	if !strings.Contains(strings.Join(p, "\n"), "no content in the contract") {
		t.Fatalf("a 204 with a body: %v", p)
	}
	if p := ck.check(context.Background(), "getWebhook", req, 204, h, nil); !strings.Contains(strings.Join(p, "\n"), "reached operation deleteWebhook") {
		t.Fatalf("a request that reaches another operation: %v", p)
	}
}

// TestCoverageGate feeds the gate made-up results.
func TestCoverageGate(t *testing.T) {
	t.Parallel()
	c := suite.contract
	pass := func(op string, status int) Result {
		return Result{Scenario: Scenario{Name: "s", Op: op, Status: status}, Outcome: Passed}
	}
	var all []Result
	for _, p := range c.Pairs() {
		if pending[p] == "" {
			all = append(all, pass(p.Op, p.Status))
		}
	}
	if rep := buildReport(c, "x", all, pending, true); len(rep.Problems) > 0 {
		t.Fatalf("a full table has problems: %v", rep.Problems)
	}

	cases := []struct {
		name    string
		results []Result
		pending map[Pair]string
		want    string
	}{
		{"a documented status without a scenario", all[1:], pending, "has no scenario and is not on the pending list"},
		{"a scenario of an undocumented status", append(all[:len(all):len(all)], pass("getLabel", 418)), pending, "does not document"},
		{"a pending entry a scenario covers", all, merge(pending, Pair{all[0].Scenario.Op, all[0].Scenario.Status}), "remove the entry"},
		{"a pending entry of an undocumented pair", all, merge(pending, Pair{"getLabel", 418}), "not a documented pair"},
		{"every scenario of a pair failed", append([]Result{{Scenario: all[0].Scenario, Outcome: Failed}}, all[1:]...), pending, "every scenario failed"},
	}
	for _, tc := range cases {
		rep := buildReport(c, "x", tc.results, tc.pending, true)
		if !strings.Contains(strings.Join(rep.Problems, "\n"), tc.want) {
			t.Errorf("%s: the gate reports %v, want a problem with %q", tc.name, rep.Problems, tc.want)
		}
	}
	// Against a deployment, pairs only in-process scenarios cover are skipped, not failed.
	skipped := append([]Result{{Scenario: all[0].Scenario, Outcome: Skipped}}, all[1:]...)
	if rep := buildReport(c, "x", skipped, pending, true); len(rep.Problems) > 0 {
		t.Errorf("skipped scenarios fail the gate: %v", rep.Problems)
	}
}

func merge(m map[Pair]string, p Pair) map[Pair]string {
	out := map[Pair]string{p: "test"}
	for k, v := range m {
		out[k] = v
	}
	return out
}

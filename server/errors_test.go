package server_test

// Error bodies, panics, logs, probes and request ids.

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/app"
	"github.com/shipd-dev/shipd/carriers/verifier"
)

func TestErrorBodies(t *testing.T) {
	t.Parallel()
	b := setup(t)
	sized := func(n int) []byte { // a JSON object of exactly n bytes
		head, tail := []byte(`{"street1":"`), []byte(`","city":"x","zip":"1","country":"GB"}`)
		return append(append(head, bytes.Repeat([]byte("a"), n-len(head)-len(tail))...), tail...)
	}
	big := sized(2 << 20)
	cases := []struct {
		name   string
		method string
		path   string
		token  string
		body   any
		status int
		code   string
	}{
		{"unknown route under the API", "GET", "/api/v1/nope", "", nil, 404, "not_found"},
		{"unknown route with a token", "GET", "/api/v1/nope", b.token, nil, 404, "not_found"},
		{"unknown route outside the API", "GET", "/nope", "", nil, 404, "not_found"},
		{"wrong method", "PUT", "/api/v1/addresses", b.token, validAddress(), 405, "method_not_allowed"},
		{"wrong method on an item", "POST", "/api/v1/webhooks/whk_000000000000000000000000", b.token, map[string]any{}, 405, "method_not_allowed"},
		{"oversized body", "POST", "/api/v1/addresses", b.token, big, 413, "payload_too_large"},
		{"oversized body without a length", "POST", "/api/v1/addresses", b.token, io.MultiReader(bytes.NewReader(big)), 413, "payload_too_large"},
		{"one byte over 1 MiB", "POST", "/api/v1/addresses", b.token, sized(1<<20 + 1), 413, "payload_too_large"},
		{"one byte over 1 MiB without a length", "POST", "/api/v1/addresses", b.token, io.MultiReader(bytes.NewReader(sized(1<<20 + 1))), 413, "payload_too_large"},
		{"exactly 1 MiB is read (and then validated)", "POST", "/api/v1/addresses", b.token, sized(1 << 20), 422, "invalid_field"},
		{"a one-value query parameter given twice", "GET", "/api/v1/labels?limit=1&limit=100", b.token, nil, 422, "invalid_field"},
		{"a status filter given twice", "GET", "/api/v1/labels?status=purchased&status=paying", b.token, nil, 422, "invalid_field"},
		{"an event filter given twice", "GET", "/api/v1/events?type=shipment.purchased&type=tracker.updated", b.token, nil, 422, "invalid_field"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := b.doT(t, tc.method, tc.path, tc.token, tc.body)
			wantError(t, r, tc.status, tc.code)
			if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type = %q, want JSON", ct)
			}
		})
	}
}

// failingVerifier panics or fails with an error no one mapped: the two ways
// a bug reaches the HTTP layer.
type failingVerifier struct{}

func (failingVerifier) Verify(_ context.Context, a verifier.Address) (verifier.Result, error) {
	if a.Street1 == "panic" {
		panic("boom")
	}
	return verifier.Result{}, errors.New("database password is hunter2")
}

func TestPanicIsInternalError(t *testing.T) {
	t.Parallel()
	logs := &syncBuffer{}
	b := setup(t, withLogs(logs), func(c *app.Config) { c.TestVerifier = failingVerifier{} })

	for _, tc := range []struct{ street, secret string }{{"panic", "boom"}, {"1 Main St", "hunter2"}} {
		r := b.doT(t, "POST", "/api/v1/addresses/verify", b.token, addressBody(func(m map[string]any) { m["street1"] = tc.street }))
		m := wantError(t, r, http.StatusInternalServerError, "internal_error")
		if bytes.Contains(r.Body, []byte(tc.secret)) {
			t.Errorf("%s: the body leaks the cause: %s", tc.street, r.Body)
		}
		if !strings.Contains(logs.String(), tc.secret) {
			t.Errorf("%s: the cause was not logged:\n%s", tc.street, logs.String())
		}
		if !strings.Contains(logs.String(), m["requestId"].(string)) {
			t.Errorf("%s: the log does not name request %v", tc.street, m["requestId"])
		}
	}
	// the server survives
	wantStatus(t, b.doT(t, "GET", "/healthz", "", nil), http.StatusOK)
}

// The access log names a token by its prefix only; secrets (tokens, also when
// misplaced in the URL, and webhook signing secrets) never reach the log.
func TestLogsHoldNoSecrets(t *testing.T) {
	t.Parallel()
	logs := &syncBuffer{}
	b := setup(t, withLogs(logs))
	unknown := "svc_test_" + strings.Repeat("Q", accounts.TokenSecretLength)
	wantStatus(t, b.doT(t, "GET", "/api/v1/addresses", b.token, nil), 200)
	wantStatus(t, b.doT(t, "POST", "/api/v1/addresses", b.token, validAddress()), 201)
	hook := createWebhook(t, b, b.token, "https://example.com/logged")
	wantError(t, b.doT(t, "GET", "/api/v1/addresses", unknown, nil), 401, "invalid_token")
	wantError(t, b.doT(t, "GET", "/api/v1/addresses?access_token="+b.token, "", nil), 400, "token_in_query")
	wantError(t, b.doT(t, "GET", "/api/v1/webhooks/"+b.token, b.token, nil), 404, "not_found")
	wantError(t, b.doT(t, "GET", "/api/v1/"+b.token, "", nil), 404, "not_found")

	out := logs.String()
	prefix := b.token[:len("svc_test_")+6]
	if !strings.Contains(out, prefix) {
		t.Fatalf("the access log does not name the token prefix %s:\n%s", prefix, out)
	}
	for name, secret := range map[string]string{
		"token":          b.token[len(prefix):],
		"unknown token":  unknown[len(prefix):],
		"signing secret": strings.TrimPrefix(hook["signingSecret"].(string), "whsec_"),
	} {
		if strings.Contains(out, secret) {
			t.Errorf("the log holds the %s:\n%s", name, out)
		}
	}
}

// /readyz fails, with a JSON error body, when the database does not answer.
func TestReadyzWithoutDatabase(t *testing.T) {
	t.Parallel()
	b := setup(t)
	wantStatus(t, b.doT(t, "GET", "/readyz", "", nil), 200)
	if err := b.store.Close(); err != nil {
		t.Fatal(err)
	}
	r := b.doT(t, "GET", "/readyz", "", nil)
	if r.Status < 500 {
		t.Fatalf("readyz with the database closed: %d %s", r.Status, r.Body)
	}
	m := wantError(t, r, r.Status, "not_ready")
	if !strings.Contains(m["error"].(string), "database") {
		t.Errorf("readyz does not say what is wrong: %v", m["error"])
	}
	// liveness does not depend on the database
	wantStatus(t, b.doT(t, "GET", "/healthz", "", nil), 200)
}

// ---------------------------------------------------------------------------
// request ids and probes

func TestRequestIDAndProbes(t *testing.T) {
	t.Parallel()
	b := setup(t)
	hook := createWebhook(t, b, b.token, "https://example.com/rid")
	cases := []struct {
		name   string
		method string
		path   string
		token  string
		body   any
		status int
		want   map[string]any // exact JSON body, when given
	}{
		{"healthz without auth", "GET", "/healthz", "", nil, 200, map[string]any{"status": "ok"}},
		{"readyz without auth", "GET", "/readyz", "", nil, 200, map[string]any{"status": "ready"}},
		{"contract as YAML without auth", "GET", "/api/v1/openapi.yaml", "", nil, 200, nil},
		{"contract as JSON without auth", "GET", "/api/v1/openapi.json", "", nil, 200, nil},
		{"list", "GET", "/api/v1/addresses", b.token, nil, 200, nil},
		{"create", "POST", "/api/v1/addresses", b.token, validAddress(), 201, nil},
		{"delete", "DELETE", "/api/v1/webhooks/" + hook["id"].(string), b.token, nil, 204, nil},
	}
	seen := map[string]bool{}
	for _, tc := range cases {
		r := b.doT(t, tc.method, tc.path, tc.token, tc.body)
		if r.Status != tc.status {
			t.Errorf("%s: status %d, want %d; %s", tc.name, r.Status, tc.status, r.Body)
			continue
		}
		id := r.Header.Get("X-Request-Id")
		if !requestIDPattern.MatchString(id) {
			t.Errorf("%s: X-Request-Id = %q", tc.name, id)
		}
		if seen[id] {
			t.Errorf("%s: X-Request-Id %q repeated", tc.name, id)
		}
		seen[id] = true
		if tc.want != nil {
			if diff := cmp.Diff(tc.want, r.JSON(t)); diff != "" {
				t.Errorf("%s: body (-want +got):\n%s", tc.name, diff)
			}
		}
	}
	// the YAML contract is served byte for byte, the JSON one parses
	r := b.doT(t, "GET", "/api/v1/openapi.json", "", nil)
	if m := r.JSON(t); m["openapi"] != "3.0.3" {
		t.Errorf("openapi.json: openapi = %v", m["openapi"])
	}
}

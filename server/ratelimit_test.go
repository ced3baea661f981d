package server_test

// Tests of the rate limits through real HTTP, with the bundle's clock: burst
// and refill of every endpoint group, the 429 and its headers, isolation per
// account and per mode, configuration, and eviction of idle buckets.

import (
	"context"
	"fmt"
	"maps"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/app"
	"github.com/shipd-dev/shipd/server"
)

func headerInt(t *testing.T, r response, name string) int64 {
	t.Helper()
	v := r.Header.Get(name)
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		t.Fatalf("header %s = %q, want an integer; status %d, body %s", name, v, r.Status, r.Body)
	}
	return n
}

// unixCeil is t in unix seconds, rounded up.
func unixCeil(t time.Time) int64 {
	s := t.Unix()
	if t.Nanosecond() > 0 {
		s++
	}
	return s
}

// limitedCall is one request of an endpoint group; cheap, and with no lasting effect
// where possible (a 4xx after the limiter still takes a token).
type limitedCall struct {
	method, path string
	body         any
}

// groupCalls lists, per group, requests of its operations; the burst test
// cycles through them, so it also shows that they share one bucket.
var groupCalls = map[server.Group][]limitedCall{
	server.GroupReads: {
		{"GET", "/api/v1/labels", nil}, {"GET", "/api/v1/labels/shp_nope", nil}, {"GET", "/api/v1/labels/shp_nope/label.pdf", nil},
		{"GET", "/api/v1/trackers/trk_nope", nil}, {"GET", "/api/v1/addresses", nil}, {"GET", "/api/v1/webhooks", nil},
		{"GET", "/api/v1/webhooks/whk_nope", nil}, {"GET", "/api/v1/webhooks/whk_nope/deliveries", nil}, {"GET", "/api/v1/events", nil},
		{"GET", "/api/v1/batches", nil}, {"GET", "/api/v1/batches/bat_nope", nil}, {"GET", "/api/v1/batches/bat_nope/shipments", nil},
		{"GET", "/api/v1/batches/bat_nope/labels.pdf", nil},
	},
	server.GroupQuotes:        {{"POST", "/api/v1/labels/quote", "{}"}},
	server.GroupBuys:          {{"POST", "/api/v1/labels/create", "{}"}},
	server.GroupRefunds:       {{"POST", "/api/v1/labels/shp_nope/refund", nil}, {"POST", "/api/v1/labels/shp_other/refund", "{}"}},
	server.GroupAddressVerify: {{"POST", "/api/v1/addresses/verify", "{}"}},
	server.GroupAddressWrites: {{"POST", "/api/v1/addresses", "{}"}},
	server.GroupBatches:       {{"POST", "/api/v1/batches", "{}"}},
	server.GroupWebhookWrites: {
		{"POST", "/api/v1/webhooks", "{}"}, {"PATCH", "/api/v1/webhooks/whk_nope", "{}"}, {"DELETE", "/api/v1/webhooks/whk_nope", nil},
		{"POST", "/api/v1/webhooks/whk_nope/test", nil}, {"POST", "/api/v1/webhooks/whk_nope/deliveries/dlv_nope/retry", nil},
	},
	server.GroupTrackerWrites: {{"POST", "/api/v1/trackers", "{}"}, {"DELETE", "/api/v1/trackers/trk_nope", nil}},
	server.GroupCarrierWrites: {
		{"POST", "/api/v1/carrier-accounts", "{}"}, {"PATCH", "/api/v1/carrier-accounts/ca_nope", "{}"}, {"DELETE", "/api/v1/carrier-accounts/ca_nope", nil},
	},
}

// Each group's bucket allows exactly its burst at one instant, refills one
// token per 1/rate seconds, and counts down X-RateLimit-Remaining.
func TestRateLimitBurstAndRefill(t *testing.T) {
	t.Parallel()
	for _, g := range server.Groups {
		t.Run(string(g), func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			l, _ := server.DefaultRateLimit(g)
			calls := groupCalls[g]
			call := func(i int) response {
				c := calls[i%len(calls)]
				return b.doT(t, c.method, c.path, b.token, c.body)
			}
			for i := range l.Burst {
				r := call(i)
				if r.Status == http.StatusTooManyRequests {
					t.Fatalf("request %d of a burst of %d: 429 %s", i+1, l.Burst, r.Body)
				}
				if got := headerInt(t, r, "X-RateLimit-Limit"); got != int64(l.Burst) {
					t.Fatalf("X-RateLimit-Limit = %d, want %d", got, l.Burst)
				}
				if got := headerInt(t, r, "X-RateLimit-Remaining"); got != int64(l.Burst-1-i) {
					t.Fatalf("request %d: X-RateLimit-Remaining = %d, want %d", i+1, got, l.Burst-1-i)
				}
			}
			r := call(l.Burst)
			wantError(t, r, http.StatusTooManyRequests, "rate_limited")
			if r.Header.Get("Retry-After") != "1" { // one token takes under a second: rounded up
				t.Fatalf("Retry-After = %q, want 1", r.Header.Get("Retry-After"))
			}
			oneToken := time.Duration(float64(time.Second) / l.Rate)
			b.clock.Advance(oneToken - time.Millisecond)
			wantError(t, call(0), http.StatusTooManyRequests, "rate_limited")
			b.clock.Advance(time.Millisecond)
			r = call(0)
			if r.Status == http.StatusTooManyRequests {
				t.Fatalf("after 1/rate = %v: still 429", oneToken)
			}
			if got := headerInt(t, r, "X-RateLimit-Remaining"); got != 0 {
				t.Fatalf("after the refilled token: X-RateLimit-Remaining = %d, want 0", got)
			}
			wantError(t, call(0), http.StatusTooManyRequests, "rate_limited")
		})
	}
}

func TestRateLimitTooManyRequests(t *testing.T) {
	t.Parallel()
	b := setup(t, withRateLimits(map[server.Group]server.RateLimit{server.GroupBuys: {Rate: 0.25, Burst: 2}}))
	create := func() response { return b.doT(t, "POST", "/api/v1/labels/create", b.token, "{}") }
	t0 := b.clock.Now()

	r := create()
	wantError(t, r, http.StatusUnprocessableEntity, "invalid_request") // validation runs after the limiter
	if got, want := headerInt(t, r, "X-RateLimit-Reset"), unixCeil(t0.Add(4*time.Second)); got != want {
		t.Errorf("reset after one of two tokens = %d, want %d", got, want)
	}
	if r.Header.Get("Retry-After") != "" {
		t.Errorf("Retry-After on an allowed request: %q", r.Header.Get("Retry-After"))
	}
	create()

	r = create()
	m := wantError(t, r, http.StatusTooManyRequests, "rate_limited")
	got := map[string]string{}
	for _, h := range []string{"Retry-After", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Content-Type"} {
		got[h] = r.Header.Get(h)
	}
	want := map[string]string{
		"Retry-After":           "4", // 1 token at 0.25/s
		"X-RateLimit-Limit":     "2",
		"X-RateLimit-Remaining": "0",
		"X-RateLimit-Reset":     strconv.FormatInt(unixCeil(t0.Add(8*time.Second)), 10), // 2 tokens
		"Content-Type":          "application/json",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("429 headers (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"code", "error", "requestId"}, keysOf(m)); diff != "" {
		t.Errorf("429 body fields (-want +got):\n%s\n%s", diff, r.Body)
	}

	// Retry-After counts down with the clock and is rounded up; Reset stays put.
	b.clock.Advance(1500 * time.Millisecond)
	r = create()
	wantError(t, r, http.StatusTooManyRequests, "rate_limited")
	if r.Header.Get("Retry-After") != "3" || headerInt(t, r, "X-RateLimit-Reset") != unixCeil(t0.Add(8*time.Second)) {
		t.Errorf("after 1.5 s: Retry-After %q (want 3), X-RateLimit-Reset %s", r.Header.Get("Retry-After"), r.Header.Get("X-RateLimit-Reset"))
	}
	// Waiting Retry-After is enough.
	b.clock.Advance(2500 * time.Millisecond)
	r = create()
	if r.Status == http.StatusTooManyRequests {
		t.Fatalf("after Retry-After: %s", r.Body)
	}
	if got, want := headerInt(t, r, "X-RateLimit-Reset"), unixCeil(t0.Add(12*time.Second)); got != want {
		t.Errorf("reset = %d, want %d", got, want)
	}
}

func keysOf(m map[string]any) []string {
	return slices.Sorted(maps.Keys(m))
}

// One account's empty bucket throttles neither another account, nor its own
// other mode, nor its other groups; tokens of one account and mode share it.
func TestRateLimitPerAccountAndMode(t *testing.T) {
	t.Parallel()
	b := setup(t)
	buys, _ := server.DefaultRateLimit(server.GroupBuys)
	create := func(token string) response { return b.doT(t, "POST", "/api/v1/labels/create", token, "{}") }
	for range buys.Burst {
		create(b.token)
	}
	wantError(t, create(b.token), http.StatusTooManyRequests, "rate_limited")

	other := b.newAccount("Other", true)
	_, otherToken := b.newToken(other.ID, "test", allScopes...)
	_, liveToken := b.newToken(b.account.ID, "live", allScopes...)
	_, secondToken := b.newToken(b.account.ID, "test", allScopes...)
	for name, tc := range map[string]struct {
		token         string
		wantLimited   bool
		wantRemaining int64
	}{
		"another account":          {otherToken, false, int64(buys.Burst - 1)},
		"the other mode":           {liveToken, false, int64(buys.Burst - 1)},
		"another token, same mode": {secondToken, true, 0},
	} {
		r := create(tc.token)
		if limited := r.Status == http.StatusTooManyRequests; limited != tc.wantLimited {
			t.Errorf("%s: status %d, want limited=%v", name, r.Status, tc.wantLimited)
		}
		if got := headerInt(t, r, "X-RateLimit-Remaining"); got != tc.wantRemaining {
			t.Errorf("%s: X-RateLimit-Remaining = %d, want %d", name, got, tc.wantRemaining)
		}
	}
	// other groups of the throttled account are untouched
	r := b.doT(t, "GET", "/api/v1/labels", b.token, nil)
	if r.Status != http.StatusOK || r.Header.Get("X-RateLimit-Remaining") != "199" {
		t.Errorf("reads of the throttled account: %d, remaining %q", r.Status, r.Header.Get("X-RateLimit-Remaining"))
	}
}

func TestRateLimitHeaders(t *testing.T) {
	t.Parallel()
	b := setup(t)
	t0 := b.clock.Now()
	r := b.doT(t, "GET", "/api/v1/labels", b.token, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("status %d: %s", r.Status, r.Body)
	}
	got := map[string]string{}
	for _, h := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After"} {
		got[h] = r.Header.Get(h)
	}
	want := map[string]string{"X-RateLimit-Limit": "200", "X-RateLimit-Remaining": "199",
		"X-RateLimit-Reset": strconv.FormatInt(unixCeil(t0.Add(10*time.Millisecond)), 10), "Retry-After": ""}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("headers on a 200 (-want +got):\n%s", diff)
	}
	// a created resource (2xx from a handler that sets its own headers) too
	r = b.doT(t, "POST", "/api/v1/webhooks", b.token, map[string]any{"url": "https://example.com/h", "events": []string{"*"}})
	if r.Status != http.StatusCreated || r.Header.Get("X-RateLimit-Limit") != "50" || r.Header.Get("X-RateLimit-Remaining") != "49" {
		t.Errorf("POST /webhooks: %d, limit %q, remaining %q", r.Status, r.Header.Get("X-RateLimit-Limit"), r.Header.Get("X-RateLimit-Remaining"))
	}
	// operations without security are not limited, nor are failed authentications
	for _, path := range []string{"/api/v1/openapi.json", "/api/v1/openapi.yaml"} {
		r = b.doT(t, "GET", path, "", nil)
		if r.Status != http.StatusOK || r.Header.Get("X-RateLimit-Limit") != "" {
			t.Errorf("%s: %d, X-RateLimit-Limit %q", path, r.Status, r.Header.Get("X-RateLimit-Limit"))
		}
	}
	r = b.doT(t, "GET", "/api/v1/labels", "", nil)
	if r.Status != http.StatusUnauthorized || r.Header.Get("X-RateLimit-Limit") != "" {
		t.Errorf("unauthenticated: %d, X-RateLimit-Limit %q", r.Status, r.Header.Get("X-RateLimit-Limit"))
	}
}

func TestRateLimitDisabled(t *testing.T) {
	t.Parallel()
	b := setup(t, withoutRateLimits())
	for i := range 60 {
		r := b.doT(t, "POST", "/api/v1/labels/create", b.token, "{}")
		if r.Status == http.StatusTooManyRequests || r.Header.Get("X-RateLimit-Limit") != "" {
			t.Fatalf("request %d: %d, X-RateLimit-Limit %q", i, r.Status, r.Header.Get("X-RateLimit-Limit"))
		}
	}
}

// Buckets that are full again are dropped by the sweep, so the limiter's
// memory follows the accounts active in the last interval, not every account
// ever seen; a bucket that is not yet full is kept (dropping it would refill it).
func TestRateLimitEvictsIdleBuckets(t *testing.T) {
	t.Parallel()
	limits := map[server.Group]server.RateLimit{server.GroupBuys: {Rate: 0.01, Burst: 5}, server.GroupReads: {Rate: 100, Burst: 200}}
	lim := server.NewMemoryLimiter(limits, time.Minute)
	b := setup(t, func(c *app.Config) { c.RateLimits.Limiter = lim })
	const accounts = 60
	tokens := make([]string, accounts)
	for i := range tokens {
		a := b.newAccount(fmt.Sprintf("A%d", i), true)
		_, tokens[i] = b.newToken(a.ID, "test", allScopes...)
		b.doT(t, "GET", "/api/v1/labels", tokens[i], nil)
	}
	r := b.doT(t, "POST", "/api/v1/labels/create", b.token, "{}") // buys bucket: 4 of 5 left
	if r.Header.Get("X-RateLimit-Remaining") != "4" {
		t.Fatalf("buys remaining %q", r.Header.Get("X-RateLimit-Remaining"))
	}
	if n := lim.Len(); n != accounts+1 {
		t.Fatalf("buckets = %d, want %d", n, accounts+1)
	}
	b.clock.Advance(30 * time.Second) // within the sweep interval: nothing dropped
	b.doT(t, "GET", "/api/v1/labels", tokens[0], nil)
	if n := lim.Len(); n != accounts+1 {
		t.Fatalf("before the sweep interval: buckets = %d, want %d", n, accounts+1)
	}
	b.clock.Advance(31 * time.Second) // the buys bucket has 4.61 tokens: not full
	b.doT(t, "GET", "/api/v1/labels", tokens[1], nil)
	if n := lim.Len(); n != 2 {
		t.Fatalf("after the sweep: buckets = %d, want 2 (the request's own and the partial buys bucket)", n)
	}
	r = b.doT(t, "POST", "/api/v1/labels/create", b.token, "{}")
	if r.Header.Get("X-RateLimit-Remaining") != "3" {
		t.Fatalf("the kept bucket lost its state: remaining %q, want 3", r.Header.Get("X-RateLimit-Remaining"))
	}
	b.clock.Advance(10 * time.Minute)
	b.doT(t, "GET", "/api/v1/labels", tokens[2], nil)
	if n := lim.Len(); n != 1 {
		t.Fatalf("after the buys bucket refilled: buckets = %d, want 1", n)
	}
	// An evicted account starts from a full bucket, as if it had never left.
	r = b.doT(t, "GET", "/api/v1/labels", tokens[0], nil)
	if r.Header.Get("X-RateLimit-Remaining") != "199" {
		t.Fatalf("an evicted account's bucket: remaining %q, want 199", r.Header.Get("X-RateLimit-Remaining"))
	}
}

// Memory stays bounded while new accounts keep arriving.
func TestRateLimitMemoryBounded(t *testing.T) {
	t.Parallel()
	limits := map[server.Group]server.RateLimit{server.GroupReads: {Rate: 100, Burst: 200}}
	m := server.NewMemoryLimiter(limits, time.Minute)
	ctx := context.Background()
	now := time.Unix(1_700_000_000, 0)
	const perMinute = 5000
	peak := 0
	for round := range 20 {
		for i := range perMinute {
			if d := m.Allow(ctx, fmt.Sprintf("acct_%d_%d/test", round, i), server.GroupReads, now); !d.Allowed {
				t.Fatalf("a new key was refused: %+v", d)
			}
		}
		peak = max(peak, m.Len())
		now = now.Add(time.Minute)
	}
	if peak > perMinute+1 {
		t.Fatalf("peak buckets = %d after %d accounts; want at most %d", peak, 20*perMinute, perMinute+1)
	}
	m.Allow(ctx, "last/test", server.GroupReads, now.Add(time.Minute))
	if n := m.Len(); n != 1 {
		t.Fatalf("after the last sweep: %d buckets, want 1", n)
	}
	// a group without limits is allowed and holds no bucket
	if d := m.Allow(ctx, "x/test", server.GroupBuys, now); !d.Allowed || d.Limit != 0 || m.Len() != 1 {
		t.Fatalf("unknown group: %+v, %d buckets", d, m.Len())
	}
}

// The rate limiter sits in front of validation and idempotency: a throttled
// create never claims its idempotency key.
func TestRateLimitBeforeIdempotency(t *testing.T) {
	t.Parallel()
	b := setup(t, withRateLimits(map[server.Group]server.RateLimit{server.GroupAddressWrites: {Rate: 1, Burst: 1}}))
	body := map[string]any{"street1": "1 Main St", "city": "Austin", "state": "TX", "zip": "78701", "country": "US", "idempotencyKey": "rl-1"}
	if r := b.doT(t, "POST", "/api/v1/addresses", b.token, body); r.Status != http.StatusCreated {
		t.Fatalf("first: %d %s", r.Status, r.Body)
	}
	body["idempotencyKey"] = "rl-2"
	wantError(t, b.doT(t, "POST", "/api/v1/addresses", b.token, body), http.StatusTooManyRequests, "rate_limited")
	n, err := b.store.CountIdempotencyKeys(context.Background())
	if err != nil || n != 1 {
		t.Fatalf("idempotency keys = %d (%v), want 1", n, err)
	}
	b.clock.Advance(time.Second)
	r := b.doT(t, "POST", "/api/v1/addresses", b.token, body)
	if r.Status != http.StatusCreated || r.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("after the wait: %d, replayed %q", r.Status, r.Header.Get("Idempotent-Replayed"))
	}
}

func BenchmarkLimiterAllow(b *testing.B) {
	limits := map[server.Group]server.RateLimit{server.GroupReads: {Rate: 1e9, Burst: 1 << 30}}
	base := time.Unix(1_700_000_000, 0)
	ctx := context.Background()

	b.Run("one key", func(b *testing.B) {
		m := server.NewMemoryLimiter(limits, time.Minute)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			m.Allow(ctx, "acct_1/test", server.GroupReads, base.Add(time.Duration(i)))
			i++
		}
	})
	b.Run("100k keys", func(b *testing.B) {
		m := server.NewMemoryLimiter(limits, time.Minute)
		keys := make([]string, 100_000)
		for i := range keys {
			keys[i] = fmt.Sprintf("acct_%024d/test", i)
		}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			m.Allow(ctx, keys[i%len(keys)], server.GroupReads, base.Add(time.Duration(i)))
			i++
		}
	})
	b.Run("parallel 1k keys", func(b *testing.B) {
		m := server.NewMemoryLimiter(limits, time.Minute)
		keys := make([]string, 1000)
		for i := range keys {
			keys[i] = fmt.Sprintf("acct_%024d/test", i)
		}
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			i := 0
			for pb.Next() {
				m.Allow(ctx, keys[i%len(keys)], server.GroupReads, base.Add(time.Duration(i)))
				i++
			}
		})
	})
}

// Failed authentications draw from a bucket per client address: once it is
// empty, a bad token gets 429 instead of 401, whatever header the client
// adds; a valid token from the same address is never refused for them.
func TestRateLimitFailedAuthentications(t *testing.T) {
	t.Parallel()
	b := setup(t, withRateLimits(map[server.Group]server.RateLimit{server.GroupFailedAuth: {Rate: 0.5, Burst: 4}}))
	revokedID, revoked := b.newToken(b.account.ID, "test", "read:shipments")
	b.revokeToken(revokedID)
	expires := b.clock.Now().Add(time.Minute)
	_, expired := b.newTokenExpiring(b.account.ID, "test", &expires, "read:shipments")
	b.clock.Advance(2 * time.Minute)
	get := func(token string, headers ...string) response {
		t.Helper()
		if token != "" {
			headers = append(headers, "Authorization", "Bearer "+token)
		}
		return b.call(t, "GET", "/api/v1/labels", nil, headers...)
	}

	// The burst: each kind of failure counts, and answers as it would alone.
	wantError(t, get(""), http.StatusUnauthorized, "missing_authorization")
	wantError(t, get("svc_test_"+strings.Repeat("x", 40)), http.StatusUnauthorized, "invalid_token")
	wantError(t, get(revoked), http.StatusUnauthorized, "token_revoked")
	wantError(t, get(expired), http.StatusUnauthorized, "token_expired")

	r := get("svc_test_guess", "X-Forwarded-For", "203.0.113.9") // a header picks no other address
	wantError(t, r, http.StatusTooManyRequests, "rate_limited")
	if r.Header.Get("Retry-After") != "2" {
		t.Errorf("Retry-After = %q, want 2 (one failure per 2 s)", r.Header.Get("Retry-After"))
	}
	wantError(t, get(""), http.StatusTooManyRequests, "rate_limited")

	// The account's own valid token, from the very same address, still works,
	// and valid calls do not refill the bucket of failures.
	for range 10 {
		wantStatus(t, get(b.token), http.StatusOK)
	}
	wantError(t, get(revoked), http.StatusTooManyRequests, "rate_limited")

	b.clock.Advance(2 * time.Second)
	wantError(t, get(revoked), http.StatusUnauthorized, "token_revoked")
	wantError(t, get(revoked), http.StatusTooManyRequests, "rate_limited")
}

// A flood of bad tokens with the default limits: the first failures are 401,
// then nearly everything is 429.
func TestRateLimitFailedAuthenticationFlood(t *testing.T) {
	t.Parallel()
	b := setup(t)
	counts := map[int]int{}
	for i := range 1000 {
		r := b.call(t, "GET", "/api/v1/events", nil, "Authorization", fmt.Sprintf("Bearer svc_test_%040d", i))
		counts[r.Status]++
	}
	def, _ := server.DefaultRateLimit(server.GroupFailedAuth)
	if counts[http.StatusUnauthorized] != def.Burst || counts[http.StatusTooManyRequests] != 1000-def.Burst {
		t.Errorf("1000 bad tokens at one instant: %v, want %d × 401 then 429s", counts, def.Burst)
	}
}

// Behind a trusted proxy, X-Forwarded-For names the client: each client
// behind it has a bucket of failures of its own, and the proxy none.
func TestRateLimitFailedAuthenticationsBehindAProxy(t *testing.T) {
	t.Parallel()
	_, loopback, _ := net.ParseCIDR("127.0.0.0/8")
	b := setup(t, withRateLimits(map[server.Group]server.RateLimit{server.GroupFailedAuth: {Rate: 0.01, Burst: 2}}),
		func(c *app.Config) { c.TrustedProxies = []*net.IPNet{loopback} })
	bad := func(client string) response {
		t.Helper()
		return b.call(t, "GET", "/api/v1/labels", nil, "Authorization", "Bearer svc_test_guess", "X-Forwarded-For", client)
	}
	for range 2 {
		wantError(t, bad("203.0.113.7"), http.StatusUnauthorized, "invalid_token")
	}
	wantError(t, bad("203.0.113.7"), http.StatusTooManyRequests, "rate_limited")
	// A client cannot pick another address by putting one in front: the
	// nearest address the trusted proxy did not add is the client's.
	wantError(t, bad("198.51.100.1, 203.0.113.7"), http.StatusTooManyRequests, "rate_limited")
	wantError(t, bad("203.0.113.8"), http.StatusUnauthorized, "invalid_token")
}

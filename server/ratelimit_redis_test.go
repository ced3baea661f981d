package server_test

// Tests of RedisLimiter: against a real Redis (SHIPD_TEST_REDIS_URL, set by
// scripts/redis-test.sh; skipped without it) the buckets, their refill, their
// agreement with MemoryLimiter, and one bucket shared by two instances, also
// through HTTP; without Redis (a closed port, a Redis that never answers) the
// fail-open path, which needs no server.

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/shipd-dev/shipd/app"
	"github.com/shipd-dev/shipd/internal/fakeclock"
	"github.com/shipd-dev/shipd/server"
	"github.com/shipd-dev/shipd/store/storetest"
)

// testRedis connects to the Redis of SHIPD_TEST_REDIS_URL, or skips the test.
// Each call is a new client, as each shipd instance has its own.
func testRedis(t *testing.T) *redis.Client {
	t.Helper()
	url := os.Getenv("SHIPD_TEST_REDIS_URL")
	if url == "" {
		t.Skip("SHIPD_TEST_REDIS_URL is not set; run through scripts/redis-test.sh")
	}
	opts, err := redis.ParseURL(url)
	if err != nil {
		t.Fatalf("SHIPD_TEST_REDIS_URL: %v", err)
	}
	client := redis.NewClient(opts)
	t.Cleanup(func() { client.Close() })
	if err := client.Ping(context.Background()).Err(); err != nil {
		t.Fatalf("Redis at %s: %v", url, err)
	}
	return client
}

// uniqueKey is an account-and-mode key no other test or earlier run has
// used: the tests share one Redis, and its buckets outlive a test.
func uniqueKey(t *testing.T, name string) string {
	return fmt.Sprintf("%s_%s_%d/test", strings.ReplaceAll(t.Name(), "/", "_"), name, time.Now().UnixNano())
}

// closedRedis is a client of a port nothing listens on: Redis is down.
func closedRedis(t *testing.T) *redis.Client {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	client := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { client.Close() })
	return client
}

// withRedisLimiter serves the bundle's rate limits from lim, built on limits.
func withRedisLimiter(lim *server.RedisLimiter, limits map[server.Group]server.RateLimit) setupOption {
	return func(c *app.Config) {
		c.RateLimits.Limits = limits
		c.RateLimits.Limiter = lim
	}
}

// within fails unless got is at most want and at least want-tolerance: by
// the time Redis answers, its clock has moved on from the test's now, so its
// waits are shorter. (Plus a microsecond: the script computes in floating
// point seconds since 2017, which rounds to about 0.1 µs.)
func within(t *testing.T, what string, got, want, tolerance time.Duration) {
	t.Helper()
	if got > want+time.Microsecond || got < want-tolerance {
		t.Errorf("%s = %v, want %v (at most %v less)", what, got, want, tolerance)
	}
}

func TestRedisLimiterBurst(t *testing.T) {
	t.Parallel()
	limits := map[server.Group]server.RateLimit{server.GroupBuys: {Rate: 1, Burst: 5}}
	lim := server.NewRedisLimiter(testRedis(t), limits, nil)
	ctx, key := context.Background(), uniqueKey(t, "acct")

	for i := range 5 {
		d := lim.Allow(ctx, key, server.GroupBuys, time.Now())
		if !d.Allowed || d.Limit != 5 || d.Remaining != 4-i || d.RetryAfter != 0 {
			t.Fatalf("request %d of a burst of 5: %+v, want allowed, limit 5, remaining %d", i+1, d, 4-i)
		}
	}
	now := time.Now()
	d := lim.Allow(ctx, key, server.GroupBuys, now)
	if d.Allowed || d.Limit != 5 || d.Remaining != 0 {
		t.Fatalf("past the burst: %+v, want refused with limit 5, remaining 0", d)
	}
	within(t, "RetryAfter", d.RetryAfter, time.Second, 500*time.Millisecond)  // one token at 1/s
	within(t, "Reset", d.Reset.Sub(now), 5*time.Second, 500*time.Millisecond) // five tokens
	// A refused request takes no token: the wait does not grow.
	again := lim.Allow(ctx, key, server.GroupBuys, time.Now())
	if again.Allowed || again.RetryAfter > d.RetryAfter {
		t.Fatalf("refused again: %+v, want refused with RetryAfter at most %v", again, d.RetryAfter)
	}
	if lim.Failures() != 0 {
		t.Fatalf("Failures() = %d with Redis up", lim.Failures())
	}
}

// The bucket refills on real time: RetryAfter is enough to wait for the next
// token, and Reset for a full bucket.
func TestRedisLimiterRefill(t *testing.T) {
	t.Parallel()
	const burst = 3
	limits := map[server.Group]server.RateLimit{server.GroupReads: {Rate: 10, Burst: burst}}
	lim := server.NewRedisLimiter(testRedis(t), limits, nil)
	ctx, key := context.Background(), uniqueKey(t, "acct")
	allow := func() server.Decision { return lim.Allow(ctx, key, server.GroupReads, time.Now()) }

	allowed := 0
	d := allow()
	for ; d.Allowed; d = allow() {
		if allowed++; allowed > burst+5 { // a token takes 100 ms: a slow machine may earn one or two
			t.Fatalf("%d requests allowed in a row with a burst of %d", allowed, burst)
		}
	}
	if allowed < burst {
		t.Fatalf("refused after %d requests, want at least the burst of %d", allowed, burst)
	}
	within(t, "RetryAfter", d.RetryAfter, 100*time.Millisecond, 100*time.Millisecond)
	time.Sleep(d.RetryAfter)
	if d := allow(); !d.Allowed {
		t.Fatalf("after waiting RetryAfter: %+v", d)
	}
	d = allow()
	time.Sleep(time.Until(d.Reset))
	if d := allow(); !d.Allowed || d.Remaining != burst-1 {
		t.Fatalf("after waiting for Reset: %+v, want allowed with %d remaining (a full bucket)", d, burst-1)
	}
}

// A fractional rate keeps its exact emission interval: 2.5/s is a token every 400 ms.
func TestRedisLimiterFractionalRate(t *testing.T) {
	t.Parallel()
	limits := map[server.Group]server.RateLimit{server.GroupQuotes: {Rate: 2.5, Burst: 1}}
	lim := server.NewRedisLimiter(testRedis(t), limits, nil)
	ctx, key := context.Background(), uniqueKey(t, "acct")

	now := time.Now()
	d := lim.Allow(ctx, key, server.GroupQuotes, now)
	if !d.Allowed || d.Remaining != 0 {
		t.Fatalf("first: %+v", d)
	}
	within(t, "Reset", d.Reset.Sub(now), 400*time.Millisecond, time.Microsecond) // a fresh bucket: one interval, whatever the time
	d = lim.Allow(ctx, key, server.GroupQuotes, time.Now())
	if d.Allowed {
		t.Fatalf("second at once: %+v, want refused", d)
	}
	within(t, "RetryAfter", d.RetryAfter, 400*time.Millisecond, 200*time.Millisecond)
	time.Sleep(d.RetryAfter)
	if d := lim.Allow(ctx, key, server.GroupQuotes, time.Now()); !d.Allowed {
		t.Fatalf("after RetryAfter: %+v", d)
	}
}

// For the same limits and requests, RedisLimiter answers as MemoryLimiter
// does; only the times may differ, by how much later Redis saw each request
// than the test's now (a round trip).
func TestRedisLimiterMatchesMemoryLimiter(t *testing.T) {
	t.Parallel()
	limits := map[server.Group]server.RateLimit{
		server.GroupBuys:   {Rate: 0.25, Burst: 2},
		server.GroupQuotes: {Rate: 2.5, Burst: 3},
		server.GroupReads:  {Rate: 10, Burst: 3}, // 0.1 s × 3 is not 0.3 in floating point
	}
	redisLim := server.NewRedisLimiter(testRedis(t), limits, nil)
	memLim := server.NewMemoryLimiter(limits, time.Minute)
	ctx := context.Background()
	const slack = 50 * time.Millisecond
	for g, l := range limits {
		key := uniqueKey(t, string(g))
		for i := range l.Burst + 2 {
			now := time.Now()
			fromRedis, fromMemory := redisLim.Allow(ctx, key, g, now), memLim.Allow(ctx, key, g, now)
			at := fmt.Sprintf("%s request %d", g, i+1)
			if fromRedis.Allowed != fromMemory.Allowed || fromRedis.Limit != fromMemory.Limit || fromRedis.Remaining != fromMemory.Remaining {
				t.Fatalf("%s: Redis %+v, memory %+v", at, fromRedis, fromMemory)
			}
			near(t, at+": Redis RetryAfter", fromRedis.RetryAfter, fromMemory.RetryAfter, slack)
			near(t, at+": Redis Reset", fromRedis.Reset.Sub(now), fromMemory.Reset.Sub(now), slack)
		}
	}
}

// near fails unless got is within tolerance of want either way.
func near(t *testing.T, what string, got, want, tolerance time.Duration) {
	t.Helper()
	if got > want+tolerance || got < want-tolerance {
		t.Errorf("%s = %v, want %v ± %v", what, got, want, tolerance)
	}
}

// Buckets are per account and mode and per group.
func TestRedisLimiterKeysIndependent(t *testing.T) {
	t.Parallel()
	client := testRedis(t)
	limits := map[server.Group]server.RateLimit{server.GroupBuys: {Rate: 0.01, Burst: 2}}
	lim := server.NewRedisLimiter(client, limits, nil)
	ctx, now := context.Background(), time.Now()
	first, second := uniqueKey(t, "first"), uniqueKey(t, "second")

	for range 2 {
		lim.Allow(ctx, first, server.GroupBuys, now)
	}
	if d := lim.Allow(ctx, first, server.GroupBuys, now); d.Allowed {
		t.Fatalf("the first account past its burst: %+v", d)
	}
	for name, tc := range map[string]struct {
		key   string
		group server.Group
	}{
		"another account":                       {second, server.GroupBuys},
		"the other mode":                        {strings.TrimSuffix(first, "/test") + "/live", server.GroupBuys},
		"another group (built-in reads bucket)": {first, server.GroupReads},
	} {
		l, _ := server.DefaultRateLimit(tc.group)
		if tc.group == server.GroupBuys {
			l = limits[server.GroupBuys]
		}
		if d := lim.Allow(ctx, tc.key, tc.group, now); !d.Allowed || d.Limit != l.Burst || d.Remaining != l.Burst-1 {
			t.Errorf("%s: %+v, want a full bucket of %d", name, d, l.Burst)
		}
	}
	// The key layout others may rely on (to inspect or clear a bucket).
	if n, err := client.Exists(ctx, "rate:shipd:rl:buys:"+first).Result(); err != nil || n != 1 {
		t.Errorf("bucket rate:shipd:rl:buys:%s: exists %d (%v)", first, n, err)
	}
}

// Two instances, each with its own client, draw from one bucket: a burst
// alternated between them gets exactly Burst requests through, and so do
// concurrent requests.
func TestRedisLimiterSharedBetweenInstances(t *testing.T) {
	t.Parallel()
	const burst = 5
	limits := map[server.Group]server.RateLimit{server.GroupBuys: {Rate: 0.01, Burst: burst}}
	instances := []*server.RedisLimiter{
		server.NewRedisLimiter(testRedis(t), limits, nil),
		server.NewRedisLimiter(testRedis(t), limits, nil),
	}
	ctx := context.Background()

	t.Run("alternated", func(t *testing.T) {
		key := uniqueKey(t, "acct")
		allowed := 0
		for i := range burst + 4 {
			d := instances[i%2].Allow(ctx, key, server.GroupBuys, time.Now())
			if d.Allowed {
				allowed++
			}
			if wantRemaining := max(0, burst-1-i); d.Remaining != wantRemaining {
				t.Errorf("request %d (instance %d): remaining %d, want %d", i+1, i%2+1, d.Remaining, wantRemaining)
			}
		}
		if allowed != burst {
			t.Fatalf("allowed %d of %d, want exactly the burst %d", allowed, burst+4, burst)
		}
	})

	t.Run("concurrent", func(t *testing.T) {
		key := uniqueKey(t, "acct")
		var allowed atomic.Int64
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Go(func() {
				for range 5 {
					if instances[g%2].Allow(ctx, key, server.GroupBuys, time.Now()).Allowed {
						allowed.Add(1)
					}
				}
			})
		}
		wg.Wait()
		if n := allowed.Load(); n != burst {
			t.Fatalf("allowed %d of 40 concurrent requests, want exactly the burst %d", n, burst)
		}
	})
	for i, lim := range instances {
		if lim.Failures() != 0 {
			t.Errorf("instance %d: Failures() = %d", i+1, lim.Failures())
		}
	}
}

// A client closed under the limiter (Redis gone for this instance) fails open.
func TestRedisLimiterClosedClient(t *testing.T) {
	t.Parallel()
	client := testRedis(t)
	limits := map[server.Group]server.RateLimit{server.GroupBuys: {Rate: 0.01, Burst: 1}}
	lim := server.NewRedisLimiter(client, limits, slog.New(slog.DiscardHandler))
	ctx, key := context.Background(), uniqueKey(t, "acct")

	if d := lim.Allow(ctx, key, server.GroupBuys, time.Now()); !d.Allowed || d.Limit != 1 {
		t.Fatalf("with Redis: %+v", d)
	}
	client.Close()
	for i := range 3 {
		// The bucket is empty, yet without Redis the limiter cannot know it.
		if d := lim.Allow(ctx, key, server.GroupBuys, time.Now()); d != (server.Decision{Allowed: true}) {
			t.Fatalf("request %d after Close: %+v, want allowed without a limit", i+1, d)
		}
	}
	if n := lim.Failures(); n != 3 {
		t.Fatalf("Failures() = %d, want 3", n)
	}
}

// Redis down: every request is allowed with no limit to report, each failure
// is counted, and the warning is logged at most once per 10 s.
func TestRedisLimiterDown(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	limits := map[server.Group]server.RateLimit{server.GroupBuys: {Rate: 0.01, Burst: 1}}
	lim := server.NewRedisLimiter(closedRedis(t), limits, slog.New(slog.NewTextHandler(&logs, nil)))
	ctx, now := context.Background(), time.Now()
	warnings := func() int { return strings.Count(logs.String(), "level=WARN") }

	for i := range 5 {
		if d := lim.Allow(ctx, "acct_1/test", server.GroupBuys, now); d != (server.Decision{Allowed: true}) {
			t.Fatalf("request %d: %+v, want allowed without a limit", i+1, d)
		}
	}
	if n := lim.Failures(); n != 5 {
		t.Fatalf("Failures() = %d, want 5", n)
	}
	if n := warnings(); n != 1 || !strings.Contains(logs.String(), "Redis failed") {
		t.Fatalf("%d warnings, want 1:\n%s", n, logs.String())
	}
	lim.Allow(ctx, "acct_1/test", server.GroupBuys, now.Add(9*time.Second))
	if n := warnings(); n != 1 {
		t.Fatalf("9 s later: %d warnings, want still 1", n)
	}
	lim.Allow(ctx, "acct_1/test", server.GroupBuys, now.Add(10*time.Second))
	if n := warnings(); n != 2 {
		t.Fatalf("10 s later: %d warnings, want 2", n)
	}
	if n := lim.Failures(); n != 7 {
		t.Fatalf("Failures() = %d, want 7", n)
	}

	// A request whose own context is done is not Redis's failure.
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if d := lim.Allow(cancelled, "acct_1/test", server.GroupBuys, now); !d.Allowed {
		t.Fatalf("cancelled request: %+v", d)
	}
	if n := lim.Failures(); n != 7 {
		t.Fatalf("after a cancelled request: Failures() = %d, want still 7", n)
	}
}

// A Redis that accepts connections but never answers costs a request the
// call timeout (100 ms), not the client's own timeouts (seconds).
func TestRedisLimiterHungRedis(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns sync.WaitGroup
	done := make(chan struct{})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Go(func() { <-done; c.Close() }) // read nothing, answer nothing
		}
	}()
	t.Cleanup(func() { ln.Close(); close(done); conns.Wait() })
	client := redis.NewClient(&redis.Options{Addr: ln.Addr().String()})
	t.Cleanup(func() { client.Close() })
	limits := map[server.Group]server.RateLimit{server.GroupBuys: {Rate: 0.01, Burst: 1}}
	lim := server.NewRedisLimiter(client, limits, slog.New(slog.DiscardHandler))

	start := time.Now()
	d := lim.Allow(context.Background(), "acct_1/test", server.GroupBuys, start)
	if took := time.Since(start); took > time.Second {
		t.Fatalf("Allow took %v against a Redis that never answers", took)
	}
	if d != (server.Decision{Allowed: true}) || lim.Failures() != 1 {
		t.Fatalf("%+v, Failures() = %d; want allowed without a limit, 1 failure", d, lim.Failures())
	}
}

// Through HTTP: two shipd instances on one database (so one account), each
// with its own Redis client, share the account's bucket: a burst spread over
// both is refused, on either, once the shared bucket is empty.
func TestRedisRateLimitSharedAcrossInstancesOverHTTP(t *testing.T) {
	t.Parallel()
	const burst = 4
	limits := map[server.Group]server.RateLimit{server.GroupBuys: {Rate: 0.1, Burst: burst}}
	dsn, docs := storetest.NewDatabase(t), t.TempDir()
	clock := fakeclock.New(time.Now().UTC())
	// Two instances at once: on SQLite, neither serves the file as serve would
	// (no ServerLock, nothing cached).
	first := startInstance(t, dsn, docs, clock, false, withRedisLimiter(server.NewRedisLimiter(testRedis(t), limits, nil), limits))
	second := startInstance(t, dsn, docs, clock, false, withRedisLimiter(server.NewRedisLimiter(testRedis(t), limits, nil), limits))
	account := first.newAccount("Acme", true)
	_, firstToken := first.newToken(account.ID, "test", allScopes...)
	_, secondToken := second.newToken(account.ID, "test", allScopes...)
	instances := []struct {
		b     *bundle
		token string
	}{{first, firstToken}, {second, secondToken}}
	create := func(i int) response {
		in := instances[i%2]
		return in.b.doT(t, "POST", "/api/v1/labels/create", in.token, "{}")
	}

	for i := range burst {
		r := create(i)
		wantError(t, r, http.StatusUnprocessableEntity, "invalid_request") // validation runs after the limiter
		if got := headerInt(t, r, "X-RateLimit-Limit"); got != burst {
			t.Fatalf("request %d: X-RateLimit-Limit = %d, want %d", i+1, got, burst)
		}
		if got := headerInt(t, r, "X-RateLimit-Remaining"); got != int64(burst-1-i) {
			t.Fatalf("request %d (instance %d): X-RateLimit-Remaining = %d, want %d", i+1, i%2+1, got, burst-1-i)
		}
	}
	for i := burst; i < burst+2; i++ { // one refusal from each instance
		r := create(i)
		wantError(t, r, http.StatusTooManyRequests, "rate_limited")
		if got := r.Header.Get("Retry-After"); got != "10" { // one token at 0.1/s, rounded up
			t.Errorf("instance %d: Retry-After = %q, want 10", i%2+1, got)
		}
		if got := headerInt(t, r, "X-RateLimit-Remaining"); got != 0 {
			t.Errorf("instance %d: X-RateLimit-Remaining = %d, want 0", i%2+1, got)
		}
		// The bucket is full again 40 s (4 tokens) after the burst began, less
		// the real time the requests took.
		now := clock.Now()
		reset := headerInt(t, r, "X-RateLimit-Reset")
		if lo, hi := unixCeil(now.Add(39*time.Second)), unixCeil(now.Add(40*time.Second)); reset < lo || reset > hi {
			t.Errorf("instance %d: X-RateLimit-Reset = %d, want within [%d, %d]", i%2+1, reset, lo, hi)
		}
	}
	// Another account on the same instances still has its own full bucket.
	other := first.newAccount("Other", true)
	_, otherToken := second.newToken(other.ID, "test", allScopes...)
	r := second.doT(t, "POST", "/api/v1/labels/create", otherToken, "{}")
	if r.Status == http.StatusTooManyRequests || r.Header.Get("X-RateLimit-Remaining") != strconv.Itoa(burst-1) {
		t.Fatalf("another account: %d, remaining %q", r.Status, r.Header.Get("X-RateLimit-Remaining"))
	}
}

// Through HTTP with Redis down: the API keeps answering, unlimited and without
// X-RateLimit headers, and the limiter counts the failures.
func TestRedisRateLimitDownOverHTTP(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	limits := map[server.Group]server.RateLimit{server.GroupBuys: {Rate: 0.01, Burst: 1}}
	lim := server.NewRedisLimiter(closedRedis(t), limits, slog.New(slog.NewTextHandler(&logs, nil)))
	b := setup(t, withRedisLimiter(lim, limits))

	for i := range 3 { // three requests on a bucket of one
		r := b.do("POST", "/api/v1/labels/create", b.token, "{}")
		wantError(t, r, http.StatusUnprocessableEntity, "invalid_request")
		for _, h := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After"} {
			if v := r.Header.Get(h); v != "" {
				t.Errorf("request %d: %s = %q with Redis down, want none", i+1, h, v)
			}
		}
	}
	if r := b.do("GET", "/api/v1/labels", b.token, nil); r.Status != http.StatusOK {
		t.Fatalf("GET /labels with Redis down: %d %s", r.Status, r.Body)
	}
	if n := lim.Failures(); n != 4 {
		t.Fatalf("Failures() = %d, want 4", n)
	}
	if n := strings.Count(logs.String(), "level=WARN"); n != 1 {
		t.Fatalf("%d warnings, want 1:\n%s", n, logs.String())
	}
}

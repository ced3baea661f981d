package server

// Unit tests of rate-limit configuration and of the contract's groups, below the HTTP API.

import (
	"math"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/redis/go-redis/v9"
)

func TestRateLimitGroupsFromContract(t *testing.T) {
	t.Parallel()
	ops := contractOperations(t)
	want := map[string]Group{ // operations other than GET
		"quoteLabel": GroupQuotes, "createLabel": GroupBuys, "refundLabel": GroupRefunds,
		"verifyAddress": GroupAddressVerify, "createAddress": GroupAddressWrites,
		"createWebhook": GroupWebhookWrites, "updateWebhook": GroupWebhookWrites, "deleteWebhook": GroupWebhookWrites,
		"testWebhook": GroupWebhookWrites, "retryWebhookDelivery": GroupWebhookWrites, "createBatch": GroupBatches,
		"createTracker": GroupTrackerWrites, "deleteTracker": GroupTrackerWrites,
		"createManifest": GroupBuys,
		"createPickup":   GroupBuys, "cancelPickup": GroupRefunds,
		"createCarrierAccount": GroupCarrierWrites, "updateCarrierAccount": GroupCarrierWrites, "deleteCarrierAccount": GroupCarrierWrites,
		"putCarrierAccountRateSheet": GroupCarrierWrites, "deleteCarrierAccountRateSheet": GroupCarrierWrites,
	}
	got := map[string]Group{}
	for key, op := range ops {
		g, limited := op.rateLimit, op.rateLimit != ""
		switch {
		case op.public && limited:
			t.Errorf("%s: public, yet in group %s", key, g)
		case op.public:
		case !limited:
			t.Errorf("%s: no group", key)
		case op.route.Method == http.MethodGet && g != GroupReads:
			t.Errorf("%s: group %s, want reads", key, g)
		case op.route.Method != http.MethodGet:
			got[op.route.Operation.OperationID] = g
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("groups of the write operations (-want +got):\n%s", diff)
	}
	for _, g := range Groups {
		if _, ok := DefaultRateLimit(g); !ok {
			t.Errorf("group %s has no default", g)
		}
	}
}

func TestRateLimitConfig(t *testing.T) {
	t.Parallel()

	t.Run("defaults and overrides", func(t *testing.T) {
		t.Parallel()
		overrides := map[Group]RateLimit{GroupBuys: {Rate: 5}, GroupReads: {Burst: 7}}
		c := RateLimitConfig{Limits: overrides}
		c.setDefaults()
		want := map[Group]RateLimit{
			GroupReads: {100, 7}, GroupQuotes: {20, 50}, GroupBuys: {5, 20}, GroupRefunds: {10, 20},
			GroupAddressVerify: {20, 50}, GroupAddressWrites: {20, 50}, GroupWebhookWrites: {10, 50}, GroupTrackerWrites: {20, 50},
			GroupBatches: {1, 5}, GroupFailedAuth: {1, 60}, GroupCarrierWrites: {5, 20},
		}
		if diff := cmp.Diff(want, c.Limits); diff != "" {
			t.Errorf("limits (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(map[Group]RateLimit{GroupBuys: {Rate: 5}, GroupReads: {Burst: 7}}, overrides); diff != "" {
			t.Errorf("the caller's map was changed:\n%s", diff)
		}
		if c.SweepInterval != time.Minute || c.Limiter == nil {
			t.Errorf("sweep %v, limiter %v", c.SweepInterval, c.Limiter)
		}
	})

	t.Run("flag syntax", func(t *testing.T) {
		t.Parallel()
		var c RateLimitConfig
		for _, spec := range []string{"buys=5:10", "reads=:300", "quotes=2.5:", "refunds=1:2, address_writes=3:4"} {
			if err := c.Set(spec); err != nil {
				t.Fatalf("Set(%q): %v", spec, err)
			}
		}
		want := map[Group]RateLimit{GroupBuys: {5, 10}, GroupReads: {0, 300}, GroupQuotes: {2.5, 0}, GroupRefunds: {1, 2}, GroupAddressWrites: {3, 4}}
		if diff := cmp.Diff(want, c.Limits); diff != "" {
			t.Errorf("parsed (-want +got):\n%s", diff)
		}
		if got := c.String(); got != "reads=0:300,quotes=2.5:0,buys=5:10,refunds=1:2,address_writes=3:4" {
			t.Errorf("String() = %q", got)
		}
		for _, bad := range []string{"nope=1:2", "buys", "buys=1", "buys=0:1", "buys=x:1", "buys=1:-1", "buys=1:1.5", "buys=Inf:1", "buys=NaN:1"} {
			if err := new(RateLimitConfig).Set(bad); err == nil {
				t.Errorf("Set(%q) accepted", bad)
			}
		}
	})
}

// redis_rate takes whole requests per period and computes the emission
// interval (the time one token takes) as period/rate in floating point; the
// mapping must keep that interval 1/Rate, fractional rates included.
func TestRedisLimitMapping(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		rate         float64
		wantRate     int
		wantPeriod   time.Duration
		wantInterval time.Duration
	}{
		{rate: 10, wantRate: 10_000, wantPeriod: 1000 * time.Second, wantInterval: 100 * time.Millisecond},
		{rate: 2.5, wantRate: 2500, wantPeriod: 1000 * time.Second, wantInterval: 400 * time.Millisecond},
		{rate: 0.25, wantRate: 250, wantPeriod: 1000 * time.Second, wantInterval: 4 * time.Second},
		{rate: 0.3, wantRate: 300, wantPeriod: 1000 * time.Second, wantInterval: 3333333333 * time.Nanosecond},
		{rate: 0.001, wantRate: 1, wantPeriod: 1000 * time.Second, wantInterval: 1000 * time.Second},
		{rate: 1.0 / 3, wantRate: 1, wantPeriod: 3 * time.Second, wantInterval: 3 * time.Second},
		{rate: 0.0004, wantRate: 1, wantPeriod: 2500 * time.Second, wantInterval: 2500 * time.Second},
		{rate: 1e6, wantRate: 1e9, wantPeriod: 1000 * time.Second, wantInterval: time.Microsecond},
	} {
		got := redisLimit(RateLimit{Rate: tc.rate, Burst: 7})
		if got.Rate != tc.wantRate || got.Period != tc.wantPeriod || got.Burst != 7 {
			t.Errorf("rate %v: %+v, want %d per %v, burst 7", tc.rate, got, tc.wantRate, tc.wantPeriod)
		}
		// As the script computes it, in seconds.
		interval := time.Duration(math.Round(got.Period.Seconds() / float64(got.Rate) * 1e9))
		if interval != tc.wantInterval {
			t.Errorf("rate %v: emission interval %v, want %v", tc.rate, interval, tc.wantInterval)
		}
	}
}

// NewRedisLimiter fills the groups it is not given, as RateLimitConfig does,
// so a limiter built from the operator's overrides limits every group.
func TestRedisLimiterDefaults(t *testing.T) {
	t.Parallel()
	client := redis.NewClient(&redis.Options{}) // never dialled: only the limits are looked at
	t.Cleanup(func() { client.Close() })
	lim := NewRedisLimiter(client, map[Group]RateLimit{GroupBuys: {Rate: 2.5}}, nil)
	for _, g := range Groups {
		want, _ := DefaultRateLimit(g)
		if g == GroupBuys {
			want.Rate = 2.5
		}
		if diff := cmp.Diff(redisLimit(want), lim.limits[g]); diff != "" {
			t.Errorf("group %s (-want +got):\n%s", g, diff)
		}
	}
}

// Remaining comes from the time until the bucket is full, with slack for the
// script's rounding in both directions, and never exceeds Burst-1.
func TestRedisRemainingTokens(t *testing.T) {
	t.Parallel()
	tenPerSecond := redisLimit(RateLimit{Rate: 10, Burst: 3}) // 100 ms a token
	for _, tc := range []struct {
		resetAfter time.Duration
		want       int
	}{
		{100 * time.Millisecond, 2},                    // a fresh bucket after one request
		{100*time.Millisecond + 60*time.Nanosecond, 2}, // the same, rounded up in the script
		{100*time.Millisecond - 60*time.Nanosecond, 2}, // rounded down
		{100*time.Millisecond + time.Millisecond, 1},   // 1.99 tokens: one whole
		{300 * time.Millisecond, 0},
		{0, 2}, // cannot happen after an allowed request; still at most Burst-1
		{time.Second, 0},
	} {
		if got := remainingTokens(tenPerSecond, tc.resetAfter); got != tc.want {
			t.Errorf("reset after %v: remaining %d, want %d", tc.resetAfter, got, tc.want)
		}
	}
}

func TestRateLimitHeaderNamesAreCanonical(t *testing.T) {
	for _, name := range []string{rateLimitLimit, rateLimitRemaining, rateLimitReset} {
		if c := http.CanonicalHeaderKey(name); c != name {
			t.Errorf("%q is stored as %q by Header.Set; a client's Header.Get would miss it", name, c)
		}
	}
	for in, want := range map[string]string{"X-RateLimit-Limit": rateLimitLimit, "X-RateLimit-Remaining": rateLimitRemaining, "X-RateLimit-Reset": rateLimitReset} {
		if c := http.CanonicalHeaderKey(in); c != want {
			t.Errorf("%s canonicalizes to %q, want %q", in, c, want)
		}
	}
}

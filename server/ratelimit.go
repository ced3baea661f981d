package server

import (
	"context"
	"fmt"
	"hash/maphash"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"
	"golang.org/x/time/rate"
)

// Group is an endpoint group: the operations that draw from one token bucket
// per account and mode. The contract names each operation's group in
// x-rate-limit-group.
type Group string

// The endpoint groups. Every operation with security belongs to exactly one.
const (
	GroupReads         Group = "reads"          // every GET
	GroupQuotes        Group = "quotes"         // POST /labels/quote
	GroupBuys          Group = "buys"           // POST /labels/create, POST /pickups
	GroupRefunds       Group = "refunds"        // POST /labels/{id}/refund, POST /pickups/{id}/cancel
	GroupAddressVerify Group = "address_verify" // POST /addresses/verify
	GroupAddressWrites Group = "address_writes" // POST /addresses
	GroupWebhookWrites Group = "webhook_writes" // POST, PATCH, DELETE /webhooks..., test, retry
	GroupBatches       Group = "batches"        // POST /batches: a batch counts once, whatever its size
	GroupTrackerWrites Group = "tracker_writes" // POST /trackers, DELETE /trackers/{id}
	// GroupCarrierWrites: POST, PATCH, DELETE /carrier-accounts...; each
	// create and credentials change asks the carrier for a token, so the
	// bucket is small.
	GroupCarrierWrites Group = "carrier_writes"
)

// Groups lists every endpoint group, in a stable order.
var Groups = []Group{GroupReads, GroupQuotes, GroupBuys, GroupRefunds, GroupAddressVerify, GroupAddressWrites, GroupWebhookWrites, GroupBatches, GroupTrackerWrites, GroupCarrierWrites}

// GroupFailedAuth is not an endpoint group: its bucket is per client address
// and only failed authentications (a missing, unknown, expired or revoked
// token) draw from it, on any operation. When it is empty, the next failure
// is 429 instead of 401, so guessing tokens costs time; a valid token is
// never refused because of the bad ones sent from its address.
const GroupFailedAuth Group = "failed_auth"

// limitedGroups are the groups a -rate-limit flag may set.
func limitedGroups() []Group { return append(slices.Clone(Groups), GroupFailedAuth) }

// RateLimit is one token bucket: Burst requests at once, refilled at Rate per second.
type RateLimit struct {
	Rate  float64 // tokens added per second
	Burst int     // bucket capacity
}

// defaultRateLimits are the buckets of the spec's Limits table, plus the
// groups it leaves open (see VARIANTS.md, "Limits and idempotency").
var defaultRateLimits = map[Group]RateLimit{
	GroupReads:         {Rate: 100, Burst: 200},
	GroupQuotes:        {Rate: 20, Burst: 50},
	GroupBuys:          {Rate: 10, Burst: 20},
	GroupRefunds:       {Rate: 10, Burst: 20},
	GroupAddressVerify: {Rate: 20, Burst: 50},
	GroupAddressWrites: {Rate: 20, Burst: 50},
	GroupWebhookWrites: {Rate: 10, Burst: 50},
	GroupBatches:       {Rate: 1, Burst: 5},
	GroupTrackerWrites: {Rate: 20, Burst: 50},
	GroupCarrierWrites: {Rate: 5, Burst: 20},
	GroupFailedAuth:    {Rate: 1, Burst: 60},
}

// DefaultRateLimit returns a group's built-in bucket.
func DefaultRateLimit(g Group) (RateLimit, bool) {
	l, ok := defaultRateLimits[g]
	return l, ok
}

// RateLimitConfig sets the token buckets per endpoint group.
type RateLimitConfig struct {
	// Disabled turns rate limiting off: no 429 and no X-RateLimit-* headers.
	Disabled bool
	// Limits overrides groups' buckets; a group left out, or a zero Rate or
	// Burst, keeps the default. After setDefaults it holds every group.
	Limits map[Group]RateLimit
	// SweepInterval is how often the in-process limiter drops idle buckets
	// (buckets that are full again); default one minute.
	SweepInterval time.Duration
	// Limiter replaces the in-process limiter, for example with one backed by
	// a shared store so that several instances share buckets. It must apply Limits.
	Limiter Limiter
}

func (c *RateLimitConfig) setDefaults() {
	c.Limits = withDefaultLimits(c.Limits)
	if c.SweepInterval <= 0 {
		c.SweepInterval = time.Minute
	}
	if c.Limiter == nil {
		c.Limiter = NewMemoryLimiter(c.Limits, c.SweepInterval)
	}
}

// withDefaultLimits returns a new map with every group: the overrides'
// buckets, and the default for a group left out or a zero Rate or Burst. The
// caller's map is never written.
func withDefaultLimits(overrides map[Group]RateLimit) map[Group]RateLimit {
	limits := make(map[Group]RateLimit, len(defaultRateLimits))
	for g, def := range defaultRateLimits {
		l := overrides[g]
		if l.Rate <= 0 {
			l.Rate = def.Rate
		}
		if l.Burst <= 0 {
			l.Burst = def.Burst
		}
		limits[g] = l
	}
	return limits
}

// String and Set make *RateLimitConfig a flag.Value: each -rate-limit
// GROUP=RATE:BURST overrides one group (RATE per second; either may be empty
// to keep its default, e.g. "buys=:40").
func (c *RateLimitConfig) String() string {
	if c == nil || len(c.Limits) == 0 {
		return ""
	}
	var parts []string
	for _, g := range limitedGroups() {
		if l, ok := c.Limits[g]; ok {
			parts = append(parts, fmt.Sprintf("%s=%s:%d", g, strconv.FormatFloat(l.Rate, 'g', -1, 64), l.Burst))
		}
	}
	return strings.Join(parts, ",")
}

// Set parses GROUP=RATE:BURST (several may be joined with commas).
func (c *RateLimitConfig) Set(spec string) error {
	for item := range strings.SplitSeq(spec, ",") {
		name, value, ok := strings.Cut(strings.TrimSpace(item), "=")
		g := Group(strings.TrimSpace(name))
		if !ok || !slices.Contains(limitedGroups(), g) {
			return fmt.Errorf("rate limit %q: want GROUP=RATE:BURST with GROUP one of %v", item, limitedGroups())
		}
		rateText, burstText, ok := strings.Cut(value, ":")
		if !ok {
			return fmt.Errorf("rate limit %q: want GROUP=RATE:BURST", item)
		}
		var l RateLimit
		if rateText = strings.TrimSpace(rateText); rateText != "" {
			r, err := strconv.ParseFloat(rateText, 64)
			if err != nil || r <= 0 || math.IsInf(r, 0) || math.IsNaN(r) {
				return fmt.Errorf("rate limit %q: rate must be a positive number of requests per second", item)
			}
			l.Rate = r
		}
		if burstText = strings.TrimSpace(burstText); burstText != "" {
			b, err := strconv.Atoi(burstText)
			if err != nil || b <= 0 {
				return fmt.Errorf("rate limit %q: burst must be a positive integer", item)
			}
			l.Burst = b
		}
		if c.Limits == nil {
			c.Limits = map[Group]RateLimit{}
		}
		c.Limits[g] = l
	}
	return nil
}

// Decision is a limiter's answer for one request.
type Decision struct {
	Allowed bool
	// Limit is the bucket's capacity (burst); 0 when the group is not limited.
	Limit int
	// Remaining is the whole tokens left after this request.
	Remaining int
	// RetryAfter is, when not Allowed, how long until one token is available.
	RetryAfter time.Duration
	// Reset is when the bucket is full again.
	Reset time.Time
}

// Limiter takes one token from the bucket of key (an account and mode) in a
// group at time now. The in-process MemoryLimiter implements it; RedisLimiter
// shares the buckets between instances through RateLimitConfig.Limiter.
//
// ctx is the request's: a limiter that asks another process bounds its call by
// it, so a request that is gone stops waiting for its answer. A limiter
// that cannot decide must answer, not fail: the middleware has no error path,
// so the limiter chooses between allowing and refusing (RedisLimiter allows).
type Limiter interface {
	Allow(ctx context.Context, key string, group Group, now time.Time) Decision
}

// MemoryLimiter keeps token buckets (golang.org/x/time/rate) in memory,
// sharded to keep lock contention low. A bucket that is full again is
// indistinguishable from a new one, so once per sweep interval (measured on
// the requests' clock, so tests control it) the first request past the
// interval drops every full bucket, one shard at a time: memory is bounded by
// the buckets used within about one interval, not by every account ever seen.
type MemoryLimiter struct {
	limits    map[Group]RateLimit
	sweep     time.Duration
	seed      maphash.Seed
	lastSweep atomic.Int64 // unix nanoseconds
	shards    [limiterShards]limiterShard
}

const limiterShards = 16

type bucketKey struct {
	key   string
	group Group
}

type limiterShard struct {
	mu      sync.Mutex
	buckets map[bucketKey]*rate.Limiter
}

// NewMemoryLimiter returns an in-process limiter with the given buckets per group.
func NewMemoryLimiter(limits map[Group]RateLimit, sweepInterval time.Duration) *MemoryLimiter {
	m := &MemoryLimiter{limits: limits, sweep: sweepInterval, seed: maphash.MakeSeed()}
	for i := range m.shards {
		m.shards[i].buckets = map[bucketKey]*rate.Limiter{}
	}
	m.lastSweep.Store(math.MinInt64)
	return m
}

// Allow implements Limiter. It never waits on anything but its own lock, so
// it has no use for ctx.
func (m *MemoryLimiter) Allow(_ context.Context, key string, group Group, now time.Time) Decision {
	l, ok := m.limits[group]
	if !ok {
		return Decision{Allowed: true}
	}
	m.maybeSweep(now)
	k := bucketKey{key: key, group: group}
	sh := &m.shards[maphash.String(m.seed, key)%limiterShards]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	lim := sh.buckets[k]
	if lim == nil {
		lim = rate.NewLimiter(rate.Limit(l.Rate), l.Burst)
		sh.buckets[k] = lim
	}
	allowed := lim.AllowN(now, 1)
	tokens := lim.TokensAt(now)
	d := Decision{
		Allowed:   allowed,
		Limit:     l.Burst,
		Remaining: max(0, int(math.Floor(tokens))),
		Reset:     now.Add(secondsToDuration((float64(l.Burst) - tokens) / l.Rate)),
	}
	if !allowed {
		d.RetryAfter = secondsToDuration((1 - tokens) / l.Rate)
	}
	return d
}

// maybeSweep drops the full buckets when a sweep interval has passed since
// the last sweep. Exactly one request runs each sweep (the CompareAndSwap);
// a clock stepped far back starts a new cycle rather than stopping sweeps.
func (m *MemoryLimiter) maybeSweep(now time.Time) {
	last, t := m.lastSweep.Load(), now.UnixNano()
	if last != math.MinInt64 {
		if elapsed := time.Duration(t - last); elapsed < m.sweep && elapsed > -m.sweep {
			return
		}
	}
	if !m.lastSweep.CompareAndSwap(last, t) {
		return // another request sweeps
	}
	for i := range m.shards {
		sh := &m.shards[i]
		sh.mu.Lock()
		for k, lim := range sh.buckets {
			if lim.TokensAt(now) >= float64(m.limits[k.group].Burst) {
				delete(sh.buckets, k)
			}
		}
		sh.mu.Unlock()
	}
}

// Len is the number of buckets held.
func (m *MemoryLimiter) Len() int {
	n := 0
	for i := range m.shards {
		sh := &m.shards[i]
		sh.mu.Lock()
		n += len(sh.buckets)
		sh.mu.Unlock()
	}
	return n
}

func secondsToDuration(s float64) time.Duration {
	if s <= 0 {
		return 0
	}
	return time.Duration(math.Ceil(s * float64(time.Second)))
}

// ceilSeconds rounds d up to whole seconds.
func ceilSeconds(d time.Duration) int64 {
	return int64((d + time.Second - 1) / time.Second)
}

// ceilUnix is t as unix seconds, rounded up.
func ceilUnix(t time.Time) int64 {
	s := t.Unix()
	if t.Nanosecond() > 0 {
		s++
	}
	return s
}

// rateLimit throttles each account and mode per endpoint group (the
// operation's x-rate-limit-group). Every response of a limited operation
// carries X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset (set
// in a Before hook, so no handler can drop them); an empty bucket answers 429
// rate_limited with Retry-After.
// The rate limit headers' canonical names (http.CanonicalHeaderKey of
// X-RateLimit-Limit …), as every answer carries them.
const (
	rateLimitLimit     = "X-Ratelimit-Limit"
	rateLimitRemaining = "X-Ratelimit-Remaining"
	rateLimitReset     = "X-Ratelimit-Reset"
)

func (s *Server) rateLimit(next echo.HandlerFunc) echo.HandlerFunc {
	cfg := s.cfg.RateLimits
	if cfg.Disabled {
		return next
	}
	return func(c echo.Context) error {
		op := s.ops[routeKey(c.Request().Method, c.Path())]
		ctx := c.Request().Context()
		if op == nil || op.rateLimit == "" || !hasCaller(ctx) {
			return next(c)
		}
		p := callerOf(ctx)
		group := op.rateLimit
		now := s.cfg.Now()
		d := cfg.Limiter.Allow(ctx, p.AccountID+"/"+string(p.Mode), group, now)
		if d.Limit > 0 {
			res := c.Response()
			limit, remaining, reset := []string{strconv.Itoa(d.Limit)}, []string{strconv.Itoa(d.Remaining)}, []string{strconv.FormatInt(ceilUnix(d.Reset), 10)}
			set := func() {
				// By their canonical names, as Header.Set would store them,
				// without working each name out again (twice per request).
				h := res.Header()
				h[rateLimitLimit], h[rateLimitRemaining], h[rateLimitReset] = limit, remaining, reset
			}
			set()
			res.Before(set)
		}
		if d.Allowed {
			return next(c)
		}
		wait := max(1, ceilSeconds(d.RetryAfter))
		e := newAPIError(http.StatusTooManyRequests, "rate_limited",
			fmt.Sprintf("too many %s requests for this account and mode; retry after %d second%s", strings.ReplaceAll(string(group), "_", " "), wait, plural(wait)))
		e.RetryAfter = int(wait)
		return e
	}
}

func plural(n int64) string {
	if n == 1 {
		return ""
	}
	return "s"
}

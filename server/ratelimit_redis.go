package server

import (
	"context"
	"log/slog"
	"math"
	"sync/atomic"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
)

// redisKeyPrefix starts every bucket's key, so shipd's buckets are easy to
// find (and to delete) in a Redis shared with other programs. redis_rate
// puts its own "rate:" in front, so a bucket lives at
// rate:shipd:rl:GROUP:ACCOUNT/MODE.
const redisKeyPrefix = "shipd:rl:"

// redisCallTimeout bounds one Redis round trip. The limiter sits in front of
// every authenticated request: a Redis that is slow must cost a request at
// most this much before the limiter gives up and lets it through.
const redisCallTimeout = 100 * time.Millisecond

// redisWarnInterval is the least time between two warnings about a failing
// Redis, so an outage logs a line every few seconds, not one per request.
const redisWarnInterval = 10 * time.Second

// RedisLimiter keeps the token buckets in Redis, so that several shipd
// instances behind a load balancer limit each account and mode as one bucket.
// Each decision is one atomic Lua script (redis_rate's GCRA: the bucket is a
// single "theoretical arrival time"), so concurrent requests on different
// instances can never together take more than the burst.
//
// The buckets run on Redis's clock (the script reads TIME), not on the
// instances' clocks, so instances whose clocks disagree still agree on the
// bucket; the now given to Allow only turns the answer into an absolute
// Reset. A bucket's key expires when the bucket is full again, so Redis
// holds only the buckets in use and needs no sweep.
//
// A rate limiter must not be the reason the API is down: when Redis fails
// (down, slow, unreachable) RedisLimiter allows the request without
// X-RateLimit headers (it cannot tell how many tokens are left), counts the
// failure (Failures) and logs a warning at most once per 10 s.
type RedisLimiter struct {
	limiter *redis_rate.Limiter
	limits  map[Group]redis_rate.Limit
	log     *slog.Logger

	failures atomic.Int64
	lastWarn atomic.Int64 // unix nanoseconds of the last warning, on the requests' clock
}

// NewRedisLimiter returns a limiter with the given buckets per group over
// client. Groups left out of limits, or with a zero Rate or Burst, get the
// built-in bucket, as RateLimitConfig.Limits does: a RedisLimiter built from
// the same overrides as the configuration applies the same limits. A nil log
// logs to slog.Default().
func NewRedisLimiter(client *redis.Client, limits map[Group]RateLimit, log *slog.Logger) *RedisLimiter {
	if log == nil {
		log = slog.Default()
	}
	r := &RedisLimiter{
		// The context's deadline alone does not bound a call: unless the
		// client was made with ContextTimeoutEnabled, go-redis reads and
		// writes with its own timeouts (seconds), and a Redis that accepts
		// connections but never answers would hold every request that long.
		// The clone shares the client's connection pool.
		limiter: redis_rate.NewLimiter(client.WithTimeout(redisCallTimeout)),
		limits:  map[Group]redis_rate.Limit{},
		log:     log,
	}
	for g, l := range withDefaultLimits(limits) {
		r.limits[g] = redisLimit(l)
	}
	r.lastWarn.Store(math.MinInt64)
	return r
}

// redisLimit expresses a bucket as redis_rate's integer requests per period.
// The script computes the emission interval (the time one token takes) as
// period/rate in floating point, so the period is chosen to keep it exact: a
// rate with at most three decimals becomes rate×1000 requests per 1000 s
// (2.5/s is 2500 per 1000 s: 0.4 s a token, not 1/2 or 1/3 of a second as
// rounding the rate to an integer would give). Any other rate (1/3 per
// second, say) becomes one request per emission interval, rounded to the
// nanosecond.
func redisLimit(l RateLimit) redis_rate.Limit {
	const scale = 1000
	if scaled := l.Rate * scale; scaled <= 1<<53 {
		if whole := math.Round(scaled); whole >= 1 && math.Abs(scaled-whole) <= 1e-9*whole {
			return redis_rate.Limit{Rate: int(whole), Burst: l.Burst, Period: scale * time.Second}
		}
	}
	interval := max(time.Nanosecond, time.Duration(math.Round(float64(time.Second)/l.Rate)))
	return redis_rate.Limit{Rate: 1, Burst: l.Burst, Period: interval}
}

// Allow implements Limiter.
func (r *RedisLimiter) Allow(ctx context.Context, key string, group Group, now time.Time) Decision {
	limit, ok := r.limits[group]
	if !ok {
		return Decision{Allowed: true}
	}
	callCtx, cancel := context.WithTimeout(ctx, redisCallTimeout)
	defer cancel()
	res, err := r.limiter.Allow(callCtx, redisKeyPrefix+string(group)+":"+key, limit)
	if err != nil {
		if ctx.Err() != nil {
			// The request itself is gone (client hung up, server stopping):
			// not Redis's failure, and nothing will be served anyway.
			return Decision{Allowed: true}
		}
		r.failed(err, group, now)
		return Decision{Allowed: true} // fail open; Limit 0: no X-RateLimit headers
	}
	d := Decision{
		Allowed: res.Allowed > 0,
		Limit:   limit.Burst,
		Reset:   now.Add(max(0, res.ResetAfter)),
	}
	if d.Allowed {
		d.Remaining = remainingTokens(limit, res.ResetAfter)
	} else {
		d.RetryAfter = max(0, res.RetryAfter) // redis_rate says -1 when allowed
	}
	return d
}

// remainingTokens is the whole tokens left after an allowed request, from
// the time until the bucket is full again (one token per emission interval).
//
// It is not redis_rate's Result.Remaining: the script truncates
// (now - allow_at) / interval, which floating point puts just below the
// whole number whenever the interval is not a binary fraction (0.1 s × 3 is
// 0.30000000000000004), so a fresh 10/s bucket of 3 reports 1 left instead of
// 2, unlike MemoryLimiter. The script's times round by under 0.2 µs, so a
// thousandth of a token of slack absorbs that for any rate up to 5000/s.
func remainingTokens(limit redis_rate.Limit, resetAfter time.Duration) int {
	interval := limit.Period.Seconds() / float64(limit.Rate)
	tokens := float64(limit.Burst) - resetAfter.Seconds()/interval
	return min(limit.Burst-1, max(0, int(math.Floor(tokens+1e-3))))
}

// failed counts a Redis failure and logs it unless a warning was logged
// within redisWarnInterval (on the requests' clock, so tests control it; a
// clock stepped back by more than the interval warns again rather than never).
func (r *RedisLimiter) failed(err error, group Group, now time.Time) {
	n := r.failures.Add(1)
	last, t := r.lastWarn.Load(), now.UnixNano()
	if last != math.MinInt64 {
		if since := time.Duration(t - last); since < redisWarnInterval && since > -redisWarnInterval {
			return
		}
	}
	if !r.lastWarn.CompareAndSwap(last, t) {
		return // another request warns
	}
	r.log.Warn("rate limiter: Redis failed, allowing requests unlimited until it answers",
		"err", err, "group", string(group), "failures", n)
}

// Failures is how many decisions Redis failed to make since the limiter was
// made (each one a request allowed without limit), for metrics and tests.
func (r *RedisLimiter) Failures() int64 {
	return r.failures.Load()
}

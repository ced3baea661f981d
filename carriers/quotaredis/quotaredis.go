// Package quotaredis keeps the carriers' call budgets (carriers.Limiter) in
// Redis, so that every shipd instance draws from one budget per carrier and
// API: USPS's 60 calls an hour are 60 for the whole deployment, not 60 per
// instance.
package quotaredis

import (
	"context"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"

	"github.com/shipd-dev/shipd/carriers"
)

// keyPrefix starts every key, beside the rate limits' shipd:rl: (redis_rate
// puts its own "rate:" before a budget's key).
const keyPrefix = "shipd:cq:"

// callTimeout bounds one Redis round trip: a Redis that does not answer
// costs a carrier call at most this much before the call goes anyway.
const callTimeout = 200 * time.Millisecond

// Limiter is a carriers.Limiter over Redis. A budget is redis_rate's GCRA
// (one atomic script on Redis's clock, so instances whose clocks disagree
// still agree); a reserve is the same bucket with a burst smaller by the
// reserve, so a call that takes it leaves at least the reserve. A pause is
// a key that expires when the pause ends.
type Limiter struct {
	rdb     *redis.Client
	limiter *redis_rate.Limiter
}

// New returns a Limiter over client.
func New(client *redis.Client) *Limiter {
	rdb := client.WithTimeout(callTimeout)
	return &Limiter{rdb: rdb, limiter: redis_rate.NewLimiter(rdb)}
}

var _ carriers.Limiter = (*Limiter)(nil)

func (l *Limiter) Take(ctx context.Context, key string, q carriers.Quota, reserve int) (bool, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	paused, err := l.rdb.PTTL(ctx, keyPrefix+"pause:"+key).Result()
	if err != nil {
		return false, 0, err
	}
	if paused > 0 {
		return false, paused, nil
	}
	if q.Calls <= 0 || q.Per <= 0 {
		return true, 0, nil
	}
	res, err := l.limiter.Allow(ctx, keyPrefix+key, redis_rate.Limit{Rate: q.Calls, Period: q.Per, Burst: max(q.Calls-reserve, 1)})
	if err != nil {
		return false, 0, err
	}
	if res.Allowed > 0 {
		return true, 0, nil
	}
	return false, max(res.RetryAfter, time.Millisecond), nil
}

// PausedFor is how long key stays paused (its pause key's time to live).
func (l *Limiter) PausedFor(ctx context.Context, key string) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	left, err := l.rdb.PTTL(ctx, keyPrefix+"pause:"+key).Result()
	if err != nil || left < 0 {
		return 0, err
	}
	return left, nil
}

// Pause sets the pause unless a longer one is in place.
func (l *Limiter) Pause(ctx context.Context, key string, until time.Time) error {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	k := keyPrefix + "pause:" + key
	left, err := l.rdb.PTTL(ctx, k).Result()
	if err != nil {
		return err
	}
	d := time.Until(until)
	if d <= 0 || left >= d {
		return nil
	}
	return l.rdb.Set(ctx, k, "1", d).Err()
}

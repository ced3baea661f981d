package server

// Effective returns every group's bucket: the configured overrides, with the
// defaults for what they leave out (a zero Rate or Burst keeps the default).
// A limiter built outside the server (RedisLimiter) applies these.
func (c RateLimitConfig) Effective() map[Group]RateLimit { return withDefaultLimits(c.Limits) }

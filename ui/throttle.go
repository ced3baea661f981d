package ui

import (
	"strings"
	"sync"
	"time"
)

// ThrottleConfig limits failed sign-ins: at most PerEmail failures for one
// email and PerIP from one address within Window; beyond, sign-in is
// refused (even with the right password) until the oldest failure is older
// than Window. Zero values get the defaults: 5 per email, 20 per address, 15 minutes.
type ThrottleConfig struct {
	PerEmail, PerIP int
	Window          time.Duration
}

// throttle counts failed sign-ins in memory, per email and per client
// address. It is per process: with several instances an attacker gets each
// instance's allowance (VARIANTS.md: Settings UI). Each key keeps at most
// its limit of timestamps and keys are dropped once their failures age out,
// so memory stays bounded by the attempts of one window.
type throttle struct {
	cfg ThrottleConfig
	now func() time.Time

	mu       sync.Mutex
	failures map[string][]time.Time
	swept    time.Time
}

func newThrottle(cfg ThrottleConfig, now func() time.Time) *throttle {
	if cfg.PerEmail <= 0 {
		cfg.PerEmail = 5
	}
	if cfg.PerIP <= 0 {
		cfg.PerIP = 20
	}
	if cfg.Window <= 0 {
		cfg.Window = 15 * time.Minute
	}
	return &throttle{cfg: cfg, now: now, failures: map[string][]time.Time{}}
}

func emailKey(email string) string { return "email:" + strings.ToLower(strings.TrimSpace(email)) }
func ipKey(ip string) string       { return "ip:" + ip }

// wait reports how long sign-in stays refused for this email and address
// (0: allowed now).
func (t *throttle) wait(email, ip string) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	t.sweep(now)
	return max(t.waitFor(emailKey(email), t.cfg.PerEmail, now), t.waitFor(ipKey(ip), t.cfg.PerIP, now))
}

// waitFor is how long key stays refused: until its limit-th most recent
// failure leaves the window.
func (t *throttle) waitFor(key string, limit int, now time.Time) time.Duration {
	recent := t.recent(key, now)
	if len(recent) < limit {
		return 0
	}
	return recent[len(recent)-limit].Add(t.cfg.Window).Sub(now)
}

// recent drops key's failures older than the window and returns the rest.
func (t *throttle) recent(key string, now time.Time) []time.Time {
	fs := t.failures[key]
	i := 0
	for i < len(fs) && !fs[i].Add(t.cfg.Window).After(now) {
		i++
	}
	fs = fs[i:]
	if len(fs) == 0 {
		delete(t.failures, key)
		return nil
	}
	t.failures[key] = fs
	return fs
}

// failed counts a failed sign-in against the email and the address.
func (t *throttle) failed(email, ip string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	for key, limit := range map[string]int{emailKey(email): t.cfg.PerEmail, ipKey(ip): t.cfg.PerIP} {
		fs := append(t.recent(key, now), now)
		if len(fs) > limit {
			fs = fs[len(fs)-limit:]
		}
		t.failures[key] = fs
	}
}

// succeeded forgets the email's failures: its owner knows the password.
// The address's stay, so one good account does not reset guessing at others.
func (t *throttle) succeeded(email string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.failures, emailKey(email))
}

// sweep drops every aged-out key once a window, so keys never tried again
// do not stay in memory.
func (t *throttle) sweep(now time.Time) {
	if now.Sub(t.swept) < t.cfg.Window {
		return
	}
	t.swept = now
	for key := range t.failures {
		t.recent(key, now)
	}
}

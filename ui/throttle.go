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
// address; an attempt counts from before its password is checked (take). It is per process: with several instances an attacker gets each
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

// attempt is a sign-in's place in the counts, taken before its password
// is checked: it counts as a failure until the outcome says otherwise.
type attempt struct {
	email, ip string
	at        time.Time
}

// take counts a sign-in attempt against the email and the address before
// its password is checked, or reports how long sign-in stays refused for
// them (and counts nothing). Reading the counts and adding to them under
// one lock is what makes the limit hold against concurrent attempts: with
// the limit read before the check and the failure recorded after it, any
// number of attempts in flight at once all passed the read.
func (t *throttle) take(email, ip string) (attempt, time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	t.sweep(now)
	ek, ik := emailKey(email), ipKey(ip)
	if wait := max(t.waitFor(ek, t.cfg.PerEmail, now), t.waitFor(ik, t.cfg.PerIP, now)); wait > 0 {
		return attempt{}, wait
	}
	t.failures[ek] = append(t.failures[ek], now)
	t.failures[ik] = append(t.failures[ik], now)
	return attempt{email: ek, ip: ik, at: now}, 0
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

// succeeded forgets the email's failures: its owner knows the password.
// The address's stay, so one good account does not reset guessing at
// others; only this attempt's own count goes.
func (t *throttle) succeeded(a attempt) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.failures, a.email)
	t.drop(a.ip, a.at)
}

// release takes back an attempt whose password was never judged (the
// checks were busy, the database failed): it is no failure.
func (t *throttle) release(a attempt) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.drop(a.email, a.at)
	t.drop(a.ip, a.at)
}

// drop removes one count taken at at from key (a later one of equal time is
// the same count to the limit).
func (t *throttle) drop(key string, at time.Time) {
	fs := t.failures[key]
	for i := len(fs) - 1; i >= 0; i-- {
		if fs[i].Equal(at) {
			fs = append(fs[:i:i], fs[i+1:]...)
			break
		}
	}
	if len(fs) == 0 {
		delete(t.failures, key)
		return
	}
	t.failures[key] = fs
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

package accounts

import (
	"context"
	"errors"
	"runtime"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// ErrPasswordChecksBusy: every password check slot stayed taken for the
// whole wait. The sign-in was not checked; the UI answers 503 with
// Retry-After, and the attempt counts as no failure.
var ErrPasswordChecksBusy = errors.New("too many sign-ins are being checked; try again in a moment")

// DefaultPasswordCheckWait is how long a sign-in waits for a password check slot.
const DefaultPasswordCheckWait = time.Second

// PasswordChecks bounds the bcrypt work of sign-ins. A bcrypt check at cost
// 12 is about a quarter of a CPU second, so a flood of sign-ins (even ones the
// throttle lets through, from many addresses) would otherwise take every core
// from the API; capped, it takes at most MaxConcurrent cores, and sign-ins
// beyond that are refused after Wait instead of queueing without end.
type PasswordChecks struct {
	// MaxConcurrent is how many passwords are checked at once; default
	// GOMAXPROCS/2 (at least 1), so half the cores stay with the API.
	MaxConcurrent int
	// Wait is how long a sign-in waits for a slot; default 1 s.
	Wait time.Duration
	// Compare checks a password against its hash; default
	// bcrypt.CompareHashAndPassword. Tests count and hold the checks with it.
	Compare func(hash, password []byte) error
}

// passwordChecker runs password checks, at most cap(slots) at once.
type passwordChecker struct {
	slots   chan struct{}
	wait    time.Duration
	compare func(hash, password []byte) error
}

func newPasswordChecker(cfg PasswordChecks) *passwordChecker {
	if cfg.MaxConcurrent <= 0 {
		cfg.MaxConcurrent = max(1, runtime.GOMAXPROCS(0)/2)
	}
	if cfg.Wait <= 0 {
		cfg.Wait = DefaultPasswordCheckWait
	}
	if cfg.Compare == nil {
		cfg.Compare = bcrypt.CompareHashAndPassword
	}
	return &passwordChecker{slots: make(chan struct{}, cfg.MaxConcurrent), wait: cfg.Wait, compare: cfg.Compare}
}

// check compares password with hash once a slot is free: a mismatch is
// ErrBadCredentials, no slot within the wait ErrPasswordChecksBusy.
func (p *passwordChecker) check(ctx context.Context, hash []byte, password string) error {
	timer := time.NewTimer(p.wait)
	defer timer.Stop()
	select {
	case p.slots <- struct{}{}:
	case <-timer.C:
		return ErrPasswordChecksBusy
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-p.slots }()
	if p.compare(hash, []byte(password)) != nil {
		return ErrBadCredentials
	}
	return nil
}

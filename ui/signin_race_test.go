package ui_test

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/crypto/bcrypt"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/app"
)

// postLogin signs in from a goroutine: it reports errors instead of failing
// the test, which only the test's own goroutine may do.
func postLogin(b *bundle, email, pw string) (int, http.Header, error) {
	form := url.Values{"email": {email}, "password": {pw}}
	res, err := http.Post(b.http.URL+"/settings/login", "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	_, err = io.Copy(io.Discard, res.Body)
	return res.StatusCode, res.Header, err
}

// 200 wrong passwords for one email sent at once: only the throttle's
// limit of them (5) is checked against bcrypt, the rest are refused as
// throttled without a check. Each check is held until every request is
// either in a check or answered, so the attempts all overlap: before the
// fix each of the 200 had read the counts before any failure was recorded,
// and all 200 were checked (and answered 401).
func TestConcurrentWrongPasswordsReachBcryptOnlyUpToTheLimit(t *testing.T) {
	t.Parallel()
	const n = 200
	var checks atomic.Int64
	entered := make(chan struct{}, n)
	release := make(chan struct{})
	b := setup(t, func(c *app.Config) {
		c.PasswordChecks = accounts.PasswordChecks{MaxConcurrent: n, Compare: func(hash, pw []byte) error {
			checks.Add(1)
			entered <- struct{}{}
			<-release
			return bcrypt.CompareHashAndPassword(hash, pw)
		}}
	})

	type answer struct {
		status int
		err    error
	}
	answers := make(chan answer, n)
	for range n {
		go func() {
			status, _, err := postLogin(b, b.email, "wrong password")
			answers <- answer{status, err}
		}()
	}
	statuses := map[int]int{}
	inCheck, answered, released := 0, 0, false
	for answered < n {
		if inCheck+answered == n && !released {
			close(release) // every request is in a check or answered
			released = true
		}
		select {
		case <-entered:
			inCheck++
		case a := <-answers:
			if a.err != nil {
				t.Fatal(a.err)
			}
			statuses[a.status]++
			answered++
		}
	}
	want := map[int]int{http.StatusUnauthorized: 5, http.StatusTooManyRequests: n - 5}
	if diff := cmp.Diff(want, statuses); diff != "" {
		t.Errorf("answers by status (-want +got):\n%s", diff)
	}
	if got := checks.Load(); got != 5 {
		t.Errorf("%d password checks for %d concurrent wrong passwords, want the limit, 5", got, n)
	}
	// The email stays throttled, the right password included.
	if status, _, err := postLogin(b, b.email, password); err != nil || status != http.StatusTooManyRequests {
		t.Errorf("the right password after the flood: %d %v, want 429", status, err)
	}
}

// No more than PasswordChecks.MaxConcurrent passwords are checked at once;
// a sign-in that finds no slot within the wait is answered 503 with
// Retry-After, unchecked, and is not counted as a failure. The checks in
// progress are held until every other sign-in has been answered, so the
// result does not depend on timing: a check that runs beyond the cap
// records it and returns at once instead of holding.
func TestPasswordChecksAreCapped(t *testing.T) {
	t.Parallel()
	const limit, n = 2, 10
	var inFlight, most atomic.Int64
	entered := make(chan struct{}, n)
	release := make(chan struct{})
	b := setup(t, func(c *app.Config) {
		c.PasswordChecks = accounts.PasswordChecks{MaxConcurrent: limit, Wait: 10 * time.Millisecond, Compare: func(hash, pw []byte) error {
			now := inFlight.Add(1)
			defer inFlight.Add(-1)
			for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
			}
			if now <= limit {
				entered <- struct{}{}
				<-release
			}
			return bcrypt.CompareHashAndPassword(hash, pw)
		}}
	})

	type answer struct {
		email  string
		status int
		header http.Header
		err    error
	}
	answers := make(chan answer, n)
	for i := range n {
		email := fmt.Sprintf("guess%d@example.com", i)
		go func() {
			status, header, err := postLogin(b, email, "wrong password")
			answers <- answer{email, status, header, err}
		}()
	}
	var got []answer
	held, released := 0, false
	for len(got) < n {
		if held == limit && len(got) == n-limit && !released {
			close(release)
			released = true
		}
		select {
		case <-entered:
			held++
		case a := <-answers:
			if a.err != nil {
				t.Fatal(a.err)
			}
			got = append(got, a)
		}
	}
	if m := most.Load(); m > limit {
		t.Errorf("%d passwords were checked at once, want at most %d", m, limit)
	}
	statuses := map[int]int{}
	var busy []string
	for _, a := range got {
		statuses[a.status]++
		if a.status == http.StatusServiceUnavailable {
			busy = append(busy, a.email)
			if a.header.Get("Retry-After") == "" {
				t.Errorf("503 for %s without Retry-After", a.email)
			}
		}
	}
	want := map[int]int{http.StatusUnauthorized: limit, http.StatusServiceUnavailable: n - limit}
	if diff := cmp.Diff(want, statuses); diff != "" {
		t.Errorf("answers by status (-want +got):\n%s", diff)
	}
	// A refused-as-busy sign-in counted no failure: its email has its five.
	if len(busy) > 0 {
		for i := range 5 {
			status, _, err := postLogin(b, busy[0], "wrong password")
			if err != nil || status != http.StatusUnauthorized {
				t.Fatalf("failure %d for %s after a busy refusal: %d %v, want 401", i+1, busy[0], status, err)
			}
		}
	}
}

package oauth_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/carriers/oauth"
	"github.com/shipd-dev/shipd/internal/fakeclock"
)

// clock is a controllable clock.
// issuer hands out numbered tokens valid for an hour, slowly enough that
// concurrent callers overlap.
type issuer struct {
	clk   *fakeclock.Clock
	calls atomic.Int64
}

func (i *issuer) fetch(ctx context.Context) (oauth.Token, error) {
	n := i.calls.Add(1)
	time.Sleep(20 * time.Millisecond)
	return oauth.Token{AccessToken: fmt.Sprintf("tok-%d", n), ExpiresAt: i.clk.Now().Add(time.Hour)}, nil
}

func TestTokenIsFetchedOnceForConcurrentCallers(t *testing.T) {
	t.Parallel()
	clk := fakeclock.New(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	is := &issuer{clk: clk}
	var refreshes atomic.Int64
	c := oauth.NewCache(is.fetch, oauth.Options{Now: clk.Now, OnRefresh: func() { refreshes.Add(1) }})

	var wg sync.WaitGroup
	tokens := make([]string, 20)
	for i := range tokens {
		wg.Go(func() {
			tok, err := c.Token(context.Background())
			if err != nil {
				t.Error(err)
			}
			tokens[i] = tok
		})
	}
	wg.Wait()
	if n := is.calls.Load(); n != 1 {
		t.Fatalf("20 concurrent callers made %d token requests, want 1", n)
	}
	for _, tok := range tokens {
		if tok != "tok-1" {
			t.Fatalf("a caller got %q, want tok-1", tok)
		}
	}
	if refreshes.Load() != 1 {
		t.Fatalf("OnRefresh called %d times, want 1", refreshes.Load())
	}

	// Cached until shortly before expiry, then fetched anew.
	clk.Advance(58 * time.Minute)
	if tok, _ := c.Token(context.Background()); tok != "tok-1" {
		t.Fatalf("at 58 min: %q, want the cached tok-1", tok)
	}
	clk.Advance(90 * time.Second)
	if tok, _ := c.Token(context.Background()); tok != "tok-2" {
		t.Fatalf("59.5 min into a one-hour token: %q, want a new tok-2", tok)
	}
}

func TestFetchErrorIsReturnedAndNotCached(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	c := oauth.NewCache(func(ctx context.Context) (oauth.Token, error) {
		if calls.Add(1) == 1 {
			return oauth.Token{}, fmt.Errorf("token endpoint down")
		}
		return oauth.Token{AccessToken: "ok", ExpiresAt: time.Now().Add(time.Hour)}, nil
	}, oauth.Options{})
	if _, err := c.Token(context.Background()); err == nil || !strings.Contains(err.Error(), "down") {
		t.Fatalf("first Token: err = %v, want the fetch error", err)
	}
	if tok, err := c.Token(context.Background()); err != nil || tok != "ok" {
		t.Fatalf("second Token = %q, %v; want ok", tok, err)
	}
}

func TestEmptyAccessTokenIsAnError(t *testing.T) {
	t.Parallel()
	c := oauth.NewCache(func(ctx context.Context) (oauth.Token, error) {
		return oauth.Token{ExpiresAt: time.Now().Add(time.Hour)}, nil
	}, oauth.Options{})
	if _, err := c.Token(context.Background()); err == nil {
		t.Fatal("an empty access token was accepted")
	}
}

// TestDoRefreshesOnceAfter401 has a carrier revoke the token early: 20
// concurrent requests meet 401, which causes exactly one refresh and one
// retry each.
func TestDoRefreshesOnceAfter401(t *testing.T) {
	t.Parallel()
	clk := fakeclock.New(time.Now())
	is := &issuer{clk: clk}
	c := oauth.NewCache(is.fetch, oauth.Options{Now: clk.Now})
	var requests atomic.Int64
	var valid atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if r.Header.Get("Authorization") != "Bearer "+valid.Load().(string) {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()
	build := func(ctx context.Context, token string) (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
		if err == nil {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		return req, err
	}

	valid.Store("tok-1")
	res, err := c.Do(context.Background(), srv.Client(), build)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("first request: %v %v", res, err)
	}
	res.Body.Close()

	valid.Store("tok-2") // the carrier expired tok-1 early
	requests.Store(0)
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			res, err := c.Do(context.Background(), srv.Client(), build)
			if err != nil {
				t.Error(err)
				return
			}
			res.Body.Close()
			if res.StatusCode != http.StatusOK {
				t.Errorf("status %d after the refresh", res.StatusCode)
			}
		})
	}
	wg.Wait()
	if n := is.calls.Load(); n != 2 {
		t.Fatalf("token requests = %d, want 2 (the first and one refresh)", n)
	}
	if n := requests.Load(); n > 40 {
		t.Fatalf("%d requests for 20 calls: more than one retry each", n)
	}

	// A token that the carrier keeps refusing is retried once, not forever.
	valid.Store("never")
	requests.Store(0)
	res, err = c.Do(context.Background(), srv.Client(), build)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized || requests.Load() != 2 {
		t.Fatalf("status %d after %d requests; want 401 after 2", res.StatusCode, requests.Load())
	}
}

func TestTokenHonoursCallerContext(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	c := oauth.NewCache(func(ctx context.Context) (oauth.Token, error) {
		<-release
		return oauth.Token{AccessToken: "late", ExpiresAt: time.Now().Add(time.Hour)}, nil
	}, oauth.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := c.Token(ctx); err != context.DeadlineExceeded {
		t.Fatalf("err = %v, want DeadlineExceeded", err)
	}
	close(release)
	if tok, err := c.Token(context.Background()); err != nil || tok != "late" {
		t.Fatalf("after the fetch finished: %q, %v", tok, err)
	}
}

// Package oauth caches the OAuth 2.0 client-credentials tokens that the live
// carrier APIs (UPS, FedEx, USPS) require, and sends requests with them.
//
// Each carrier fetches its token its own way (HTTP Basic, a form, JSON), so a
// Cache is built around the carrier's Fetch function. The Cache keeps the
// token until shortly before it expires, lets one fetch serve every caller
// that asks at the same time, and on a 401 refreshes once and retries once.
package oauth

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"
)

// Token is an access token and when it stops being valid.
type Token struct {
	AccessToken string
	ExpiresAt   time.Time
}

// Fetch asks the carrier's token endpoint for a new token.
type Fetch func(ctx context.Context) (Token, error)

// Options tune a Cache; the zero value is usable.
type Options struct {
	// Early is how long before its expiry a token is replaced, so that a
	// request never leaves with a token that expires in flight. Default 60 s.
	Early time.Duration
	// Now is the clock; default time.Now.
	Now func() time.Time
	// OnRefresh is called after every successful fetch (metrics).
	OnRefresh func()
}

// Cache holds one carrier's token. It is safe for concurrent use.
type Cache struct {
	fetch Fetch
	opts  Options

	mu       sync.Mutex
	token    Token
	inflight *fetchCall
}

// fetchCall is a fetch in progress that several callers wait for.
type fetchCall struct {
	done  chan struct{}
	token Token
	err   error
}

// NewCache returns a cache that fetches tokens with fetch.
func NewCache(fetch Fetch, opts Options) *Cache {
	if opts.Early <= 0 {
		opts.Early = time.Minute
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Cache{fetch: fetch, opts: opts}
}

// Token returns a token valid for at least Options.Early, fetching one when
// the cached token is missing or about to expire. Concurrent callers share one fetch.
func (c *Cache) Token(ctx context.Context) (string, error) {
	c.mu.Lock()
	if c.token.AccessToken != "" && c.opts.Now().Add(c.opts.Early).Before(c.token.ExpiresAt) {
		t := c.token.AccessToken
		c.mu.Unlock()
		return t, nil
	}
	call := c.inflight
	if call == nil {
		call = &fetchCall{done: make(chan struct{})}
		c.inflight = call
		// The fetch outlives a caller that gives up: the others still wait for it.
		go c.run(context.WithoutCancel(ctx), call)
	}
	c.mu.Unlock()
	select {
	case <-call.done:
		if call.err != nil {
			return "", call.err
		}
		return call.token.AccessToken, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

func (c *Cache) run(ctx context.Context, call *fetchCall) {
	// A token endpoint that hangs must not hold every caller forever.
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	tok, err := c.fetch(ctx)
	if err == nil && tok.AccessToken == "" {
		err = errors.New("oauth: the token endpoint answered without an access token")
	}
	c.mu.Lock()
	if err == nil {
		c.token = tok
	}
	c.inflight = nil
	call.token, call.err = tok, err
	c.mu.Unlock()
	// Counted before the callers are released: whoever got the token can
	// see the refresh it caused (metrics scraped right after a call).
	if err == nil && c.opts.OnRefresh != nil {
		c.opts.OnRefresh()
	}
	close(call.done)
}

// Invalidate drops the cached token if it is still used, the token the carrier
// just refused, so that the next Token fetches a new one. A token already
// replaced by another caller's refresh is left alone: many requests refused at
// once cause one refresh, not one each.
func (c *Cache) Invalidate(used string) {
	c.mu.Lock()
	if c.token.AccessToken == used {
		c.token = Token{}
	}
	c.mu.Unlock()
}

// Do sends the request that build makes with a token. When the carrier answers
// 401, the token is refreshed once and the request rebuilt and sent once more;
// the second answer is returned whatever it is.
func (c *Cache) Do(ctx context.Context, client *http.Client, build func(ctx context.Context, token string) (*http.Request, error)) (*http.Response, error) {
	for attempt := 0; ; attempt++ {
		token, err := c.Token(ctx)
		if err != nil {
			return nil, err
		}
		req, err := build(ctx, token)
		if err != nil {
			return nil, err
		}
		res, err := client.Do(req)
		if err != nil {
			return nil, err
		}
		if res.StatusCode != http.StatusUnauthorized || attempt > 0 {
			return res, nil
		}
		res.Body.Close()
		c.Invalidate(token)
	}
}

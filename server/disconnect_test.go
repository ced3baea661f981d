package server_test

// A client that hangs up is not a server error: the access log says 499 and
// nothing is logged at ERROR, so alerts on 5xx keep their meaning.

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/sandbox"
)

// hangingRates answers a quote only when its context ends, as a carrier's
// HTTP client does when the request is cancelled mid-call.
type hangingRates struct {
	carriers.Carrier
	entered chan struct{}
}

func (c hangingRates) Rates(ctx context.Context, _ carriers.Shipment) ([]carriers.Rate, error) {
	c.entered <- struct{}{}
	<-ctx.Done()
	return nil, ctx.Err()
}

func TestClientDisconnectIsNotAServerError(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	entered := make(chan struct{}, 64)
	cs := sandbox.New(sandbox.Config{})
	for i := range cs {
		cs[i] = hangingRates{Carrier: cs[i], entered: entered}
	}
	b := setup(t, withLogs(&logs), withCarriers(cs, nil), withoutRateLimits())

	send := func(ctx context.Context, method, path string, body any) error {
		var buf bytes.Buffer
		if body != nil {
			if err := json.NewEncoder(&buf).Encode(body); err != nil {
				return err
			}
		}
		req, err := http.NewRequestWithContext(ctx, method, b.http.URL+path, &buf)
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+b.token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}

	// A quote abandoned while every carrier is being asked, deterministically.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- send(ctx, "POST", "/api/v1/labels/quote", quoteBody(nil)) }()
	<-entered
	cancel()
	if err := <-done; err == nil {
		t.Fatal("the abandoned quote got an answer")
	}
	waitUntil(t, "the abandoned quote is logged", func() bool { return strings.Contains(logs.String(), "route=/api/v1/labels/quote") })

	// Lists and reads abandoned at random moments, as the adversarial run did.
	var wg sync.WaitGroup
	for i := range 100 {
		path := []string{"/api/v1/labels", "/api/v1/events", "/api/v1/labels?limit=100"}[i%3]
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), time.Duration(rand.IntN(2000))*time.Microsecond)
			defer cancel()
			_ = send(ctx, "GET", path, nil)
		}()
	}
	wg.Wait()
	b.stop(10 * time.Second) // every request is logged before Shutdown returns

	var quote string
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, "level=ERROR") || strings.Contains(line, "status=5") {
			t.Errorf("a client's hang-up is logged as a server error: %s", line)
		}
		if strings.Contains(line, "route=/api/v1/labels/quote") {
			quote = line
		}
	}
	if !strings.Contains(quote, "status=499") {
		t.Errorf("the abandoned quote is logged as %q, want status=499", quote)
	}
}

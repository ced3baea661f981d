package fedex

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/fedex/fedexfake"
)

func TestConcurrentRatesFetchOneToken(t *testing.T) {
	t.Parallel()
	fake := fedexfake.New(t)
	var refreshes atomic.Int64
	c, err := New(Config{
		ClientID: fedexfake.ClientID, ClientSecret: fedexfake.ClientSecret, AccountNumber: fedexfake.AccountNumber,
		BaseURL: fake.URL(), OnTokenRefresh: func() { refreshes.Add(1) },
	})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			if _, err := c.Rates(context.Background(), domestic()); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := fake.TokenRequests(); n != 1 {
		t.Errorf("20 concurrent Rates made %d token requests, want 1", n)
	}
	if n := fake.Requests(fedexfake.OpRate); n != 20 {
		t.Errorf("rate requests = %d, want 20", n)
	}
	if n := refreshes.Load(); n != 1 {
		t.Errorf("OnTokenRefresh called %d times, want 1", n)
	}
}

func TestExpiredTokenIsRefreshedOnceAndRetried(t *testing.T) {
	t.Parallel()
	c, fake := newTestCarrier(t)
	ctx := context.Background()
	if _, err := c.Rates(ctx, domestic()); err != nil {
		t.Fatal(err)
	}
	fake.ExpireTokens()
	if _, err := c.Rates(ctx, domestic()); err != nil {
		t.Fatalf("Rates after the token expired: %v", err)
	}
	// The second call: 401 with the old token, one refresh, one retry.
	if n := fake.TokenRequests(); n != 2 {
		t.Errorf("token requests = %d, want 2", n)
	}
	if n := fake.Requests(fedexfake.OpRate); n != 3 {
		t.Errorf("rate requests = %d, want 3 (1 + a refused one + its retry)", n)
	}

	// Ten calls refused at once share one refresh.
	fake.ExpireTokens()
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			if _, err := c.Rates(ctx, domestic()); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := fake.TokenRequests(); n != 3 {
		t.Errorf("token requests after 10 concurrent refused calls = %d, want 3", n)
	}
}

func TestCredentialsRefusedAfterOneRefresh(t *testing.T) {
	t.Parallel()
	c, fake := newTestCarrier(t)
	body := fedexfake.ErrorBody("NOT.AUTHORIZED.ERROR", "Access token expired. Please modify your request and try again.")
	fake.FailNext(fedexfake.OpRate, http.StatusUnauthorized, body)
	fake.FailNext(fedexfake.OpRate, http.StatusUnauthorized, body)
	_, err := c.Rates(context.Background(), domestic())
	if !errors.Is(err, carriers.ErrFailed) {
		t.Fatalf("error = %v, want ErrFailed", err)
	}
	ce := asCarrierError(t, err)
	if ce.Message != "the carrier refused the credentials" || ce.HTTPStatus != 401 || ce.Code != "NOT.AUTHORIZED.ERROR" {
		t.Errorf("error = %+v", ce)
	}
	if n := fake.Requests(fedexfake.OpRate); n != 2 {
		t.Errorf("rate requests = %d, want 2: one retry after the refresh, no more", n)
	}
	if n := fake.TokenRequests(); n != 2 {
		t.Errorf("token requests = %d, want 2", n)
	}
}

func TestTokenEndpointRefusesCredentials(t *testing.T) {
	t.Parallel()
	fake := fedexfake.New(t)
	c, err := New(Config{ClientID: "someone-else", ClientSecret: "wrong-secret", AccountNumber: fedexfake.AccountNumber, BaseURL: fake.URL()})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Rates(context.Background(), domestic())
	if !errors.Is(err, carriers.ErrFailed) {
		t.Fatalf("error = %v, want ErrFailed", err)
	}
	ce := asCarrierError(t, err)
	if ce.Operation != "token" || ce.Message != "the carrier refused the credentials" {
		t.Errorf("error = %+v, want the token operation and the refused-credentials message", ce)
	}
	if n := fake.Requests(fedexfake.OpRate); n != 0 {
		t.Errorf("rate requests = %d, want 0 without a token", n)
	}
}

func TestTokenEndpointUnavailable(t *testing.T) {
	t.Parallel()
	c, fake := newTestCarrier(t)
	fake.FailNext(fedexfake.OpToken, http.StatusServiceUnavailable, fedexfake.ErrorBody("SERVICE.UNAVAILABLE.ERROR", "The service is currently unavailable."))
	_, err := c.Rates(context.Background(), domestic())
	if !errors.Is(err, carriers.ErrUnavailable) {
		t.Fatalf("error = %v, want ErrUnavailable", err)
	}
	if ce := asCarrierError(t, err); ce.RetryAfter != 7*time.Second {
		t.Errorf("RetryAfter = %v, want 7s", ce.RetryAfter)
	}
	// The failed fetch is not cached: the next call gets a token.
	if _, err := c.Rates(context.Background(), domestic()); err != nil {
		t.Errorf("Rates after the token endpoint recovered: %v", err)
	}
}

func TestTokenExpiresInAsString(t *testing.T) {
	t.Parallel()
	c, fake := newTestCarrier(t)
	fake.SetExpiresInAsString(true)
	if _, err := c.Rates(context.Background(), domestic()); err != nil {
		t.Fatalf("Rates with expires_in as a string: %v", err)
	}
}

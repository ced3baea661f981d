package webhooks_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/idempotency"
	"github.com/shipd-dev/shipd/seal"
	"github.com/shipd-dev/shipd/store"
	"github.com/shipd-dev/shipd/webhooks"
)

func newService(t *testing.T) (*webhooks.Service, *accounts.Service, accounts.Caller) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "shipd.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	cipher, err := seal.NewCipher(bytes.Repeat([]byte{5}, 32))
	if err != nil {
		t.Fatal(err)
	}
	acc := accounts.New(st, accounts.Config{})
	wh := webhooks.New(st, acc, idempotency.New(st, cipher, idempotency.Config{}), cipher, webhooks.Config{})
	a, err := acc.CreateAccount(ctx, "Acme", true)
	if err != nil {
		t.Fatal(err)
	}
	_, secret, err := acc.CreateToken(ctx, accounts.NewToken{AccountID: a.ID, Mode: accounts.Test, Scopes: accounts.Scopes()})
	if err != nil {
		t.Fatal(err)
	}
	c, err := acc.Authenticate(ctx, secret, "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	return wh, acc, c
}

// TestSubscriptionLimitRace creates 40 subscriptions at once: exactly 25
// succeed. The account row is locked between the count and the insert, so
// this holds on any database, not only one that serialises writers.
func TestSubscriptionLimitRace(t *testing.T) {
	t.Parallel()
	wh, _, c := newService(t)
	var created, limited atomic.Int64
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Go(func() {
			_, _, err := wh.Create(context.Background(), c, webhooks.NewSubscription{URL: fmt.Sprintf("https://example.com/hook/%d", i), Events: []string{"*"}})
			switch {
			case err == nil:
				created.Add(1)
			case errors.Is(err, webhooks.ErrSubscriptionLimit):
				limited.Add(1)
			default:
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if created.Load() != webhooks.MaxActiveSubscriptions || limited.Load() != 40-webhooks.MaxActiveSubscriptions {
		t.Fatalf("created %d, limited %d; want 25 and 15", created.Load(), limited.Load())
	}
}

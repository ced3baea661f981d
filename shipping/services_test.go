package shipping

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/connectors"
	"github.com/shipd-dev/shipd/carriers/sandbox"
	"github.com/shipd-dev/shipd/idempotency"
	"github.com/shipd-dev/shipd/seal"
	"github.com/shipd-dev/shipd/store"
	"github.com/shipd-dev/shipd/store/storetest"
	"github.com/shipd-dev/shipd/webhooks"
)

// TestServices are the domain services over a fresh database, without
// HTTP, and a caller of one account with every scope: what every domain
// test of this package (inside it and from shipping_test) starts from.
type TestServices struct {
	Store    *store.Store
	Accounts *accounts.Service
	Shipping *Service
	Caller   accounts.Caller
}

// NewTestServices builds them for a caller in mode. cfg is the shipping
// service's configuration; what it leaves out gets the sandbox carriers,
// label documents in memory and shipments as JSON for event data, and its
// Now (when set) is every service's clock.
func NewTestServices(t *testing.T, mode accounts.Mode, cfg Config) *TestServices {
	t.Helper()
	ctx := context.Background()
	st := storetest.Open(t)
	cipher, err := seal.NewCipher(bytes.Repeat([]byte{5}, 32))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Documents == nil {
		docs, err := store.OpenBlobs(ctx, "mem://")
		if err != nil {
			t.Fatal(err)
		}
		cfg.Documents = docs
	}
	if cfg.Carriers == nil {
		cfg.Carriers = carriers.NewRegistry(sandbox.New(sandbox.Config{}), nil)
	}
	if cfg.Catalog == nil {
		cfg.Catalog = connectors.Catalog()
	}
	if cfg.EventData == nil {
		cfg.EventData = func(s Shipment) (json.RawMessage, error) { return json.Marshal(s) }
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	acc := accounts.New(st, accounts.Config{Now: now})
	idem := idempotency.New(st, cipher, idempotency.Config{Now: now})
	wh := webhooks.New(st, acc, idem, cipher, webhooks.Config{Now: now, JobNow: cfg.JobNow})
	svc, err := New(st, acc, wh, idem, cfg)
	if err != nil {
		t.Fatal(err)
	}
	a, err := acc.CreateAccount(ctx, "Acme", true)
	if err != nil {
		t.Fatal(err)
	}
	_, secret, err := acc.CreateToken(ctx, accounts.NewToken{AccountID: a.ID, Mode: mode, Scopes: accounts.Scopes()})
	if err != nil {
		t.Fatal(err)
	}
	c, err := acc.Authenticate(ctx, secret, "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	return &TestServices{Store: st, Accounts: acc, Shipping: svc, Caller: c}
}

package carrieraccounts

import (
	"context"
	"time"

	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/store"
)

// Storage is what carrier accounts need of the database: reads on its pool and
// the transactions they open (Tx). The domain declares it and *store.Store
// implements it; the conformance suite (store/storetest, group "carrier accounts")
// proves each method on SQLite, SQLite with caches and PostgreSQL.
type Storage interface {
	CarrierAccount(ctx context.Context, accountID string, id string) (store.CarrierAccount, error)
	ListCarrierAccounts(ctx context.Context, accountID string, mode string, p paging.Request) ([]store.CarrierAccount, bool, error)
	Tx(ctx context.Context, fn func(tx *store.Tx) error) (err error)
}

// TxStorage is what carrier accounts read and write inside a transaction
// (*store.Tx implements it).
type TxStorage interface {
	CarrierAccount(ctx context.Context, accountID string, id string) (store.CarrierAccount, error)
	DeleteCarrierAccount(ctx context.Context, accountID string, id string, now time.Time) error
	InsertCarrierAccount(ctx context.Context, a *store.CarrierAccount) error
	UpdateCarrierAccount(ctx context.Context, a *store.CarrierAccount) error
}

var (
	_ Storage   = (*store.Store)(nil)
	_ TxStorage = (*store.Tx)(nil)
)

package pickups

import (
	"context"
	"time"

	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/store"
)

// Storage is what pickups need of the database: reads on its pool and
// the transactions they open (Tx). The domain declares it and *store.Store
// implements it; the conformance suite (store/storetest, group "pickups")
// proves each method on SQLite, SQLite with caches and PostgreSQL.
type Storage interface {
	EnabledCarrierAccounts(ctx context.Context, accountID string, mode string) ([]store.CarrierAccount, error)
	ListPickups(ctx context.Context, accountID string, mode string, p paging.Request) ([]store.Pickup, bool, error)
	Pickup(ctx context.Context, accountID string, id string) (store.Pickup, error)
	RequestingPickupByKey(ctx context.Context, accountID string, mode string, key string) (store.Pickup, error)
	Shipment(ctx context.Context, accountID string, id string) (store.Shipment, error)
	Tx(ctx context.Context, fn func(tx *store.Tx) error) (err error)
}

// TxStorage is what pickups read and write inside a transaction
// (*store.Tx implements it).
type TxStorage interface {
	CancelPickup(ctx context.Context, id string, now time.Time) error
	ConfirmPickup(ctx context.Context, id string, confirmation string, location string, now time.Time) error
	DeletePickup(ctx context.Context, id string) error
	InsertAudit(ctx context.Context, e *store.AuditEntry) error
	InsertPickup(ctx context.Context, p *store.Pickup) error
	LockPickup(ctx context.Context, id string) (store.Pickup, error)
}

var (
	_ Storage   = (*store.Store)(nil)
	_ TxStorage = (*store.Tx)(nil)
)

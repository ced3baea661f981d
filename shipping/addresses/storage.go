package addresses

import (
	"context"

	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/store"
)

// Storage is what the address book needs of the database: reads on its
// pool (its writes run in idempotency's transactions). The domain declares
// it and *store.Store implements it; the conformance suite
// (store/storetest, group "shipments and ledger") proves each method on
// SQLite, SQLite with caches and PostgreSQL.
type Storage interface {
	ListAddresses(ctx context.Context, accountID string, mode string, p paging.Request) ([]store.Address, bool, error)
}

// TxStorage is what the address book writes inside a transaction
// (*store.Tx implements it).
type TxStorage interface {
	InsertAddress(ctx context.Context, a *store.Address) error
}

var (
	_ Storage   = (*store.Store)(nil)
	_ TxStorage = (*store.Tx)(nil)
)

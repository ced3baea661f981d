package idempotency

import (
	"context"
	"time"

	"github.com/shipd-dev/shipd/store"
)

// Storage is what idempotency keys need of the database: reads on its pool and
// the transactions they open (Tx). The domain declares it and *store.Store
// implements it; the conformance suite (store/storetest, group "idempotency")
// proves each method on SQLite, SQLite with caches and PostgreSQL.
type Storage interface {
	PurgeIdempotencyKeys(ctx context.Context, cutoff time.Time) (int64, error)
	Tx(ctx context.Context, fn func(tx *store.Tx) error) (err error)
}

// TxStorage is what idempotency keys read and write inside a transaction
// (*store.Tx implements it).
type TxStorage interface {
	ClaimIdempotencyKey(ctx context.Context, sc store.IdempotencyScope, fingerprint []byte, owner string, now time.Time, expiredBefore time.Time) (bool, error)
	CompleteIdempotencyKey(ctx context.Context, sc store.IdempotencyScope, owner string, sealedResult string, now time.Time) error
	IdempotencyKey(ctx context.Context, sc store.IdempotencyScope, expiredBefore time.Time) (store.IdempotencyRecord, error)
	ReleaseIdempotencyKey(ctx context.Context, sc store.IdempotencyScope, owner string) error
	TakeOverIdempotencyKey(ctx context.Context, sc store.IdempotencyScope, oldOwner string, newOwner string, now time.Time) error
}

var (
	_ Storage   = (*store.Store)(nil)
	_ TxStorage = (*store.Tx)(nil)
)

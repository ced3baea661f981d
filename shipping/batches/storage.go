package batches

import (
	"context"
	"time"

	"github.com/riverqueue/river"

	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/store"
)

// Storage is what batches need of the database: reads on its pool and
// the transactions they open (Tx). The domain declares it and *store.Store
// implements it; the conformance suite (store/storetest, group "batches")
// proves each method on SQLite, SQLite with caches and PostgreSQL.
type Storage interface {
	Account(ctx context.Context, id string) (store.Account, error)
	Batch(ctx context.Context, accountID string, id string) (store.Batch, error)
	BatchCounts(ctx context.Context, batchID string) (map[string]int, error)
	BatchLabels(ctx context.Context, batchID string, after int64, limit int) ([]store.BatchLabel, error)
	BatchShipments(ctx context.Context, batchID string, p paging.Request) ([]store.Shipment, bool, error)
	ListBatches(ctx context.Context, accountID string, mode string, p paging.Request) ([]store.Batch, bool, error)
}

// TxStorage is what batches read and write inside a transaction
// (*store.Tx implements it).
type TxStorage interface {
	Batch(ctx context.Context, accountID string, id string) (store.Batch, error)
	BatchCounts(ctx context.Context, batchID string) (map[string]int, error)
	CompleteBatch(ctx context.Context, batchID string, unfinished []string, now time.Time) (done bool, err error)
	EnqueueNew(ctx context.Context, jobs ...river.InsertManyParams) error
	InsertBatch(ctx context.Context, b *store.Batch) error
	InsertShipment(ctx context.Context, s *store.Shipment) error
	LockBalance(ctx context.Context, accountID string, mode string) (int64, error)
	LockBatch(ctx context.Context, batchID string) error
}

var (
	_ Storage   = (*store.Store)(nil)
	_ TxStorage = (*store.Tx)(nil)
)

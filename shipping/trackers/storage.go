package trackers

import (
	"context"

	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/store"
)

// Storage is what standalone trackers need of the database: reads on its pool and
// the transactions they open (Tx). The domain declares it and *store.Store
// implements it; the conformance suite (store/storetest, group "trackers")
// proves each method on SQLite, SQLite with caches and PostgreSQL.
type Storage interface {
	CachedTrackingEvents(ctx context.Context, trackerID string, limit int) ([]store.TrackingEvent, error)
	EnabledCarrierAccounts(ctx context.Context, accountID string, mode string) ([]store.CarrierAccount, error)
	ListTrackers(ctx context.Context, accountID string, mode string, status string, p paging.Request) ([]store.Tracker, bool, error)
	Tx(ctx context.Context, fn func(tx *store.Tx) error) (err error)
}

// TxStorage is what standalone trackers read and write inside a transaction
// (*store.Tx implements it).
type TxStorage interface {
	DeleteStandaloneTracker(ctx context.Context, id string) error
	InsertStandaloneTracker(ctx context.Context, tr *store.Tracker) (inserted bool, err error)
	InsertStandaloneTrackerWithin(ctx context.Context, tr *store.Tracker, limit store.ActiveTrackers) (inserted bool, err error)
	LockAccount(ctx context.Context, id string) (store.Account, error)
	LockTracker(ctx context.Context, id string) (store.Tracker, error)
	Tracker(ctx context.Context, accountID string, id string) (store.Tracker, error)
	TrackerByNumber(ctx context.Context, accountID string, mode string, carrier string, number string) (store.Tracker, error)
	TrackingEvents(ctx context.Context, trackerID string, limit int) ([]store.TrackingEvent, error)
}

var (
	_ Storage   = (*store.Store)(nil)
	_ TxStorage = (*store.Tx)(nil)
)

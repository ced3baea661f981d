package shipping

import (
	"context"
	"time"

	"github.com/riverqueue/river"

	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/store"
)

// Storage is what shipments, the ledger, addresses, trackers' reads and carrier accounts' clients need of the database: reads on its pool and
// the transactions they open (Tx). The domain declares it and *store.Store
// implements it; the conformance suite (store/storetest, groups "shipments and ledger" and "trackers")
// proves each method on SQLite, SQLite with caches and PostgreSQL.
type Storage interface {
	Account(ctx context.Context, id string) (store.Account, error)
	Balance(ctx context.Context, accountID string, mode string) (int64, error)
	CachedShipment(ctx context.Context, accountID string, id string) (store.Shipment, error)
	CachedTrackingEvents(ctx context.Context, trackerID string, limit int) ([]store.TrackingEvent, error)
	CachedScans(ctx context.Context, trackerID string, limit int) ([]store.TrackingEvent, uint64, error)
	CarrierAccount(ctx context.Context, accountID string, id string) (store.CarrierAccount, error)
	CarrierAccountByID(ctx context.Context, id string) (store.CarrierAccount, error)
	CarrierAccountRateSheet(ctx context.Context, accountID string, id string) (string, error)
	DueJobs(ctx context.Context, queue string) (int, error)
	EnabledCarrierAccounts(ctx context.Context, accountID string, mode string) ([]store.CarrierAccount, error)
	LedgerEntries(ctx context.Context, accountID string, mode string) ([]store.LedgerEntry, error)
	ListAddresses(ctx context.Context, accountID string, mode string, p paging.Request) ([]store.Address, bool, error)
	ListShipments(ctx context.Context, accountID string, mode string, status string, p paging.Request) ([]store.Shipment, bool, error)
	Tracker(ctx context.Context, accountID string, id string) (store.Tracker, error)
}

// TxStorage is what shipments, the ledger, addresses, trackers' reads and carrier accounts' clients read and write inside a transaction
// (*store.Tx implements it).
type TxStorage interface {
	AddLedgerEntry(ctx context.Context, e store.LedgerEntry) (bool, error)
	EndTracker(ctx context.Context, id string, reason string, now time.Time) error
	Enqueue(ctx context.Context, jobs ...river.InsertManyParams) error
	EnqueueNew(ctx context.Context, jobs ...river.InsertManyParams) error
	InsertAddress(ctx context.Context, a *store.Address) error
	InsertShipment(ctx context.Context, s *store.Shipment) error
	LockBalance(ctx context.Context, accountID string, mode string) (int64, error)
	LockShipment(ctx context.Context, id string) (store.Shipment, error)
	Shipment(ctx context.Context, accountID string, id string) (store.Shipment, error)
	TrackerByID(ctx context.Context, id string) (store.Tracker, error)
	TrackingEvents(ctx context.Context, trackerID string, limit int) ([]store.TrackingEvent, error)
	UpdateShipment(ctx context.Context, s *store.Shipment) error
}

var (
	_ Storage   = (*store.Store)(nil)
	_ TxStorage = (*store.Tx)(nil)
)

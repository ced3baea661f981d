package labeljobs

import (
	"context"
	"time"

	"github.com/riverqueue/river"

	"github.com/shipd-dev/shipd/store"
)

// Storage is what the jobs of a label (purchase, void, tracking) need of the database: reads on its pool and
// the transactions they open (Tx). The domain declares it and *store.Store
// implements it; the conformance suite (store/storetest, groups "shipments and ledger" and "trackers")
// proves each method on SQLite, SQLite with caches and PostgreSQL.
type Storage interface {
	CarrierAccountByID(ctx context.Context, id string) (store.CarrierAccount, error)
	ShipmentByID(ctx context.Context, id string) (store.Shipment, error)
	TrackerByID(ctx context.Context, id string) (store.Tracker, error)
	Tx(ctx context.Context, fn func(tx *store.Tx) error) (err error)
}

// TxStorage is what the jobs of a label (purchase, void, tracking) read and write inside a transaction
// (*store.Tx implements it).
type TxStorage interface {
	Enqueue(ctx context.Context, jobs ...river.InsertManyParams) error
	EnqueueNew(ctx context.Context, jobs ...river.InsertManyParams) error
	InsertAudit(ctx context.Context, e *store.AuditEntry) error
	InsertTracker(ctx context.Context, tr *store.Tracker) error
	InsertTrackingEvent(ctx context.Context, e *store.TrackingEvent) (bool, error)
	LockShipment(ctx context.Context, id string) (store.Shipment, error)
	LockTracker(ctx context.Context, id string) (store.Tracker, error)
	RecordPurchaseRecovery(ctx context.Context, shipmentID string, recovery string) error
	StartPurchaseAttempt(ctx context.Context, shipmentID string, now time.Time) (store.PurchaseAttempt, error)
	TrackerByID(ctx context.Context, id string) (store.Tracker, error)
	UpdateShipment(ctx context.Context, s *store.Shipment) error
	UpdateTrackerEstimate(ctx context.Context, id string, eta time.Time, now time.Time) error
	UpdateTrackerStatus(ctx context.Context, id string, status string, now time.Time) error
}

var (
	_ Storage   = (*store.Store)(nil)
	_ TxStorage = (*store.Tx)(nil)
)

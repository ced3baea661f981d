package manifests

import (
	"context"

	"github.com/riverqueue/river"

	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/store"
)

// Storage is what manifests need of the database: reads on its pool and
// the transactions they open (Tx). The domain declares it and *store.Store
// implements it; the conformance suite (store/storetest, group "manifests")
// proves each method on SQLite, SQLite with caches and PostgreSQL.
type Storage interface {
	CarrierAccountByID(ctx context.Context, id string) (store.CarrierAccount, error)
	EnabledCarrierAccounts(ctx context.Context, accountID string, mode string) ([]store.CarrierAccount, error)
	ListManifests(ctx context.Context, accountID string, mode string, p paging.Request) ([]store.Manifest, bool, error)
	Manifest(ctx context.Context, accountID string, id string) (store.Manifest, error)
	ManifestByID(ctx context.Context, id string) (store.Manifest, error)
	ManifestLabels(ctx context.Context, manifestID string) ([]store.Shipment, error)
	Tx(ctx context.Context, fn func(tx *store.Tx) error) (err error)
	UnmanifestedCounts(ctx context.Context, accountID string, mode string) ([]store.WaitingGroup, error)
}

// TxStorage is what manifests read and write inside a transaction
// (*store.Tx implements it).
type TxStorage interface {
	ClaimForManifest(ctx context.Context, manifestID string, ids []string) (int64, error)
	Enqueue(ctx context.Context, jobs ...river.InsertManyParams) error
	FinishManifest(ctx context.Context, m store.Manifest) (done bool, err error)
	InsertAudit(ctx context.Context, e *store.AuditEntry) error
	InsertManifest(ctx context.Context, m *store.Manifest) error
	ManifestByID(ctx context.Context, id string) (store.Manifest, error)
	ManifestShipmentIDs(ctx context.Context, manifestID string) ([]string, error)
	ReleaseManifest(ctx context.Context, manifestID string, ids []string) error
	SetManifestShipments(ctx context.Context, id string, shipmentIDs string) error
	ShipmentsByIDs(ctx context.Context, accountID string, ids []string) ([]store.Shipment, error)
	UnmanifestedLabels(ctx context.Context, accountID string, mode string, carrier string, limit int) ([]store.Shipment, error)
}

var (
	_ Storage   = (*store.Store)(nil)
	_ TxStorage = (*store.Tx)(nil)
)

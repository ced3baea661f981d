// Package manifests puts a day's labels on one carrier form (POST
// /manifests): which labels a manifest takes, their claim by one manifest
// only, and the job that asks the carrier for the form and records what
// came of it. It stands on the shipments domain (package shipping) for
// labels, carriers and carrier accounts.
package manifests

import (
	"log/slog"
	"time"

	"github.com/riverqueue/river"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/idempotency"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/webhooks"
)

// Config is what manifests need beyond the shipments domain's.
type Config struct {
	// EventData renders manifests for manifest.created and manifest.failed;
	// nil: the domain's JSON.
	EventData ManifestEncoder
}

// Service makes manifests. Its caller is explicit and it owns its transactions.
type Service struct {
	store    Storage
	ship     *shipping.Service
	accounts *accounts.Service
	webhooks *webhooks.Service
	idem     *idempotency.Service
	// cfg is the shipments domain's configuration (carriers, documents,
	// retries); events render with eventData.
	cfg       shipping.Config
	eventData ManifestEncoder
	now       func() time.Time
	jobNow    func() time.Time
	log       *slog.Logger
}

// New returns the manifests service on top of ship.
func New(st Storage, ship *shipping.Service, acc *accounts.Service, wh *webhooks.Service, idem *idempotency.Service, cfg Config) *Service {
	return &Service{store: st, ship: ship, accounts: acc, webhooks: wh, idem: idem, cfg: ship.Config(), eventData: cfg.EventData,
		now: ship.Now, jobNow: ship.JobNow, log: ship.Logger()}
}

// RegisterWorkers adds the manifest job's worker.
func (s *Service) RegisterWorkers(w *river.Workers) {
	river.AddWorker(w, &manifestWorker{s: s})
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// Package labeljobs carries a label through its life after the shipments
// domain (package shipping) accepted it, in River jobs: the purchase, which
// calls the carrier outside any transaction and records what it sold (or
// defers, or fails) guarded by the shipment's status, an attempt cut off
// mid-call settled with the carrier before anything is bought again, a
// label sold but unusable failed once and voided; the void of a refund; and
// tracking, by the scans of a sandbox label's plan or the polls of a live
// carrier, for labels and for standalone trackers alike.
package labeljobs

import (
	"log/slog"
	"time"

	"github.com/riverqueue/river"

	"github.com/shipd-dev/shipd/shipping"
)

// Service works a label's jobs.
type Service struct {
	store Storage
	ship  *shipping.Service
	// cfg is the shipments domain's configuration (documents, retries,
	// the PDF budget).
	cfg    shipping.Config
	now    func() time.Time
	jobNow func() time.Time
	log    *slog.Logger
}

// New returns the label jobs of ship.
func New(st Storage, ship *shipping.Service) *Service {
	return &Service{store: st, ship: ship, cfg: ship.Config(), now: ship.Now, jobNow: ship.JobNow, log: ship.Logger()}
}

// RegisterWorkers adds the workers of the purchase, of the void of a
// refund or of an unusable label, and of tracking.
func (s *Service) RegisterWorkers(w *river.Workers) {
	river.AddWorker(w, &purchaseWorker{s: s})
	river.AddWorker(w, &purchaseBatchWorker{s: s})
	river.AddWorker(w, &voidWorker{s: s})
	river.AddWorker(w, &voidUnusableWorker{s: s}) // unusable.go
	river.AddWorker(w, &scanWorker{s: s})
	river.AddWorker(w, &pollWorker{s: s})
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// optional is nil for "", else a pointer to s (a nullable column).
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

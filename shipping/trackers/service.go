// Package trackers follows packages shipd did not sell (POST /trackers):
// which carrier a number names, the carrier account that asks for it, one
// tracker per number and account, and deletion. The scans and polls of a
// tracker are the shipments domain's tracking (package shipping), which
// follows labels the same way.
package trackers

import (
	"context"
	"log/slog"
	"time"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/idempotency"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/store"
)

// Service creates, lists and deletes standalone trackers. Its caller is
// explicit and it owns its transactions.
type Service struct {
	store    Storage
	ship     *shipping.Service
	jobs     Follower
	accounts *accounts.Service
	idem     *idempotency.Service
	// cfg is the shipments domain's configuration (carriers, catalog).
	cfg shipping.Config
	now func() time.Time
	log *slog.Logger
}

// Follower queues a new tracker's first scan or poll: the label jobs
// (shipping/labeljobs), which scan and poll standalone trackers as they do
// labels'.
type Follower interface {
	FollowTracker(ctx context.Context, tx *store.Tx, trackerID string, plan []carriers.TrackingScan, planned, polled bool, since time.Time) error
}

// New returns the trackers service on top of ship, whose trackers jobs follows.
func New(st Storage, ship *shipping.Service, jobs Follower, acc *accounts.Service, idem *idempotency.Service) *Service {
	return &Service{store: st, ship: ship, jobs: jobs, accounts: acc, idem: idem, cfg: ship.Config(), now: ship.Now, log: ship.Logger()}
}

// Package trackers follows packages shipd did not sell (POST /trackers):
// which carrier a number names, the carrier account that asks for it, one
// tracker per number and account, and deletion. The scans and polls of a
// tracker are the shipments domain's tracking (package shipping), which
// follows labels the same way.
package trackers

import (
	"log/slog"
	"time"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/idempotency"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/shipping/labeljobs"
)

// Service creates, lists and deletes standalone trackers. Its caller is
// explicit and it owns its transactions.
type Service struct {
	store    Storage
	ship     *shipping.Service
	jobs     *labeljobs.Service
	accounts *accounts.Service
	idem     *idempotency.Service
	// cfg is the shipments domain's configuration (carriers, catalog).
	cfg shipping.Config
	now func() time.Time
	log *slog.Logger
}

// New returns the trackers service on top of ship, whose label jobs
// (jobs) scan and poll the trackers as they do labels'.
func New(st Storage, ship *shipping.Service, jobs *labeljobs.Service, acc *accounts.Service, idem *idempotency.Service) *Service {
	return &Service{store: st, ship: ship, jobs: jobs, accounts: acc, idem: idem, cfg: ship.Config(), now: ship.Now, log: ship.Logger()}
}

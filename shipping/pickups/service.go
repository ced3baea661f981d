// Package pickups books carrier pickups of purchased labels (POST
// /pickups): the checks of a request, the carrier account that books it,
// the record made before the carrier is asked (so a call cut off leaves a
// pickup the account sees), a retry that adopts what the carrier booked, and
// cancellation. It stands on the shipments domain (package shipping) for
// labels, carriers and carrier accounts.
package pickups

import (
	"log/slog"
	"time"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/idempotency"
	"github.com/shipd-dev/shipd/shipping"
)

// Service books and cancels pickups. Its caller is explicit and it owns its
// transactions.
type Service struct {
	store    Storage
	ship     *shipping.Service
	accounts *accounts.Service
	idem     *idempotency.Service
	// cfg is the shipments domain's configuration (carriers, carrier accounts).
	cfg shipping.Config
	now func() time.Time
	log *slog.Logger
}

// New returns the pickups service on top of ship.
func New(st Storage, ship *shipping.Service, acc *accounts.Service, idem *idempotency.Service) *Service {
	return &Service{store: st, ship: ship, accounts: acc, idem: idem, cfg: ship.Config(), now: ship.Now, log: ship.Logger()}
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

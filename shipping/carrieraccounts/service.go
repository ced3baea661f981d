// Package carrieraccounts connects an account's own carrier contracts for
// live mode (POST /carrier-accounts): the credentials each carrier's
// descriptor asks for, proven with the carrier before anything is stored,
// sealed at rest, updated, disabled and deleted, every change audited. The
// shipments domain (package shipping) quotes, buys, voids and tracks
// through them.
package carrieraccounts

import (
	"log/slog"
	"time"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/idempotency"
	"github.com/shipd-dev/shipd/shipping"
)

// Service manages carrier accounts. Its caller is explicit and it owns its
// transactions.
type Service struct {
	store    Storage
	ship     *shipping.Service
	accounts *accounts.Service
	idem     *idempotency.Service
	// cfg is the shipments domain's configuration: the catalog of
	// carriers, the carrier-account factory, the cipher, the timeout.
	cfg shipping.Config
	now func() time.Time
	log *slog.Logger
}

// New returns the carrier accounts service, configured as ship.
func New(st Storage, ship *shipping.Service, acc *accounts.Service, idem *idempotency.Service) *Service {
	return &Service{store: st, ship: ship, accounts: acc, idem: idem, cfg: ship.Config(), now: ship.Now, log: ship.Logger()}
}

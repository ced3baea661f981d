// Package addresses is the address book (POST /addresses, GET /addresses)
// and address verification (POST /addresses/verify) with the mode's
// verifier. What a valid address is belongs to the shipments domain
// (package shipping), whose rules it applies.
package addresses

import (
	"time"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/idempotency"
	"github.com/shipd-dev/shipd/shipping"
)

// Service keeps the address book and verifies addresses. Its caller is
// explicit and it owns its transactions.
type Service struct {
	store    Storage
	accounts *accounts.Service
	idem     *idempotency.Service
	// cfg is the shipments domain's configuration (the verifiers).
	cfg shipping.Config
	now func() time.Time
}

// New returns the address book of ship's accounts.
func New(st Storage, ship *shipping.Service, acc *accounts.Service, idem *idempotency.Service) *Service {
	return &Service{store: st, accounts: acc, idem: idem, cfg: ship.Config(), now: ship.Now}
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

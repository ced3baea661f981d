// Package customs is the paperwork of labels that cross a border with a
// declaration: the carrier's customs document when it returns one, else the
// commercial invoice shipd renders (internal/paperwork), stored beside the
// label when it is bought and served on its own (GET
// /labels/{id}/customs.pdf) or merged for a batch. What a declaration must
// hold is the shipments domain's input rules (package shipping).
package customs

import (
	"context"

	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/store"
)

// Storage is what customs read of the database; *store.Store implements it
// (the conformance suite's "shipments and ledger" group proves it).
type Storage interface {
	CachedShipment(ctx context.Context, accountID, id string) (store.Shipment, error)
}

var _ Storage = (*store.Store)(nil)

// Service serves customs documents.
type Service struct {
	store Storage
	ship  *shipping.Service
	// cfg is the shipments domain's configuration (documents).
	cfg shipping.Config
}

// New returns the customs service of ship's labels.
func New(st Storage, ship *shipping.Service) *Service {
	return &Service{store: st, ship: ship, cfg: ship.Config()}
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

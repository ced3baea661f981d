// Package batches buys many labels at once (POST /batches): every item
// checked and quoted before anything is stored, all accepted in one
// transaction or none, the batch completed when its last item is bought or
// fails (batch.completed), and its labels and customs documents merged into
// one document each. It stands on the shipments domain (package shipping),
// which prices, reserves and buys each item as it would a single create.
package batches

import (
	"encoding/json"
	"log/slog"
	"time"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/idempotency"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/shipping/customs"
	"github.com/shipd-dev/shipd/webhooks"
)

// Config is what batches need beyond the shipments domain's.
type Config struct {
	// EventData renders batches for batch.completed; nil: the domain's JSON.
	EventData BatchEncoder
}

// Service creates and reads batches. Its caller is explicit and it owns its
// transactions.
type Service struct {
	store    Storage
	ship     *shipping.Service
	customs  *customs.Service
	accounts *accounts.Service
	webhooks *webhooks.Service
	idem     *idempotency.Service
	// cfg is the shipments domain's configuration (documents, PDF budget).
	cfg       shipping.Config
	eventData BatchEncoder
	now       func() time.Time
	log       *slog.Logger
}

// New returns the batches service on top of ship, and gives ship's
// purchase path its hook for the items of a batch (BatchItemFinished).
func New(st Storage, ship *shipping.Service, docs *customs.Service, acc *accounts.Service, wh *webhooks.Service, idem *idempotency.Service, cfg Config) *Service {
	s := &Service{store: st, ship: ship, customs: docs, accounts: acc, webhooks: wh, idem: idem, cfg: ship.Config(), eventData: cfg.EventData,
		now: ship.Now, log: ship.Logger()}
	ship.SetBatchItemFinisher(s)
	return s
}

func (s *Service) batchEventData(b Batch) (json.RawMessage, error) {
	if s.eventData != nil {
		return s.eventData(b)
	}
	return json.Marshal(b)
}

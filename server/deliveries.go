package server

import (
	"context"

	"github.com/jmoiron/sqlx"
	"github.com/riverqueue/river"

	"github.com/shipd-dev/shipd/store"
)

// WebhookDeliveryConfig tunes webhook delivery.
type WebhookDeliveryConfig struct{}

func (c *WebhookDeliveryConfig) setDefaults() {}

func (s *Server) registerDeliveryWorkers(workers *river.Workers) {}

// enqueueDeliveries queues one delivery of ev per matching subscription, in the event's transaction.
func (s *Server) enqueueDeliveries(ctx context.Context, tx *sqlx.Tx, ev store.Event) error {
	return nil
}

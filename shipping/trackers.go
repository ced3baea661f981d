package shipping

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/store"
	"github.com/shipd-dev/shipd/webhooks"
)

// Trackers of any package: POST /trackers follows a tracking number that was
// not bought through shipd (a standalone tracker, without a shipment). It is
// tracked as labels are (tracking.go): in test mode by the sandbox's plan for
// the number (carriers.CapNumberPlan), in live mode by polling the carrier's
// tracking API on the labels' schedule. Each new scan records tracker.updated
// with the tracker as its data; a standalone tracker has no shipment events.
// UnknownNumberGiveUpAfter is how long a standalone tracker's number that
// the carrier does not know is polled before polling stops.
const UnknownNumberGiveUpAfter = 24 * time.Hour

// UnknownNumberScan is the scan index of the event that says the carrier
// does not know the number: before every carrier scan (they count from 0).
const UnknownNumberScan = -1

// UnknownNumberMessage is the event a standalone tracker gets when the
// carrier does not know its number.
const UnknownNumberMessage = "The carrier does not know this tracking number yet; it is asked again for a day"

// TrackerEncoder renders a tracker as event data: the same shape the API's
// GET /trackers/{id} returns, which is the API layer's to define.
type TrackerEncoder func(Tracker) (json.RawMessage, error)

func TrackerDetail(ctx context.Context, scans scansReader, t store.Tracker) (Tracker, error) {
	events, err := scans(ctx, t.ID, MaxTrackingEvents)
	if err != nil {
		return Tracker{}, err
	}
	return TrackerOf(t, events), nil
}

func TrackerOf(t store.Tracker, events []store.TrackingEvent) Tracker {
	return Tracker{
		ID: t.ID, Mode: accounts.Mode(t.Mode), ShipmentID: t.ShipmentID, Carrier: t.Carrier, TrackingNumber: t.TrackingNumber,
		Status: t.Status, EstimatedDeliveryAt: t.EstimatedDeliveryAt, Events: trackingEventsOf(events),
		CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt,
	}
}

// RecordTracker records tracker.updated for a standalone tracker, n times
// (once per new scan), with the tracker as it is now as the data.
func (s *Service) RecordTracker(ctx context.Context, tx *store.Tx, id string, n int) error {
	tr, err := tx.TrackerByID(ctx, id)
	if err != nil {
		return err
	}
	t, err := TrackerDetail(ctx, tx.TrackingEvents, tr)
	if err != nil {
		return err
	}
	data, err := s.trackerEventData(t)
	if err != nil {
		return fmt.Errorf("event data: %w", err)
	}
	for range n {
		if _, err := s.webhooks.Record(ctx, tx, tr.AccountID, tr.Mode, webhooks.EventTrackerUpdated, data); err != nil {
			return err
		}
	}
	return nil
}

func (s *Service) trackerEventData(t Tracker) (json.RawMessage, error) {
	if s.cfg.TrackerEventData != nil {
		return s.cfg.TrackerEventData(t)
	}
	return json.Marshal(t)
}

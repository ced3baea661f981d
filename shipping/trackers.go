package shipping

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/store"
	"github.com/shipd-dev/shipd/webhooks"
)

// Trackers of any package: POST /trackers follows a tracking number that was
// not bought through shipd (a standalone tracker, without a shipment). It is
// tracked as labels are (shipping/labeljobs/tracking.go): in test mode by the sandbox's plan for
// the number (carriers.CapNumberPlan), in live mode by polling the carrier's
// tracking API on the labels' schedule. Each new scan records tracker.updated
// with the tracker as its data; a standalone tracker has no shipment events.
// DefaultTrackerLimit is how many active standalone trackers an account
// may have in each mode unless the operator says otherwise: on the live
// schedule a tracker costs about 4 tracking calls an hour in its first 6
// hours and one a day after 3 days, so 500 young ones would take about
// 2,000 calls an hour, past any default carrier budget (USPS: 60).
const DefaultTrackerLimit = 500

// Why shipd stopped following a standalone tracker's package (its
// endReason): those trackers no longer count against the limit.
const (
	// EndFinalStatus: delivered, returned to sender or cancelled; in test
	// mode, the sandbox's last scan.
	EndFinalStatus = "final_status"
	// EndUnknownNumber: the carrier had no information on the number after
	// UnknownNumberAttempts polls.
	EndUnknownNumber = "unknown_number"
	// EndExpired: 30 days (PollGiveUpAfter) after the tracker was made.
	EndExpired = "expired"
)

// UnknownNumberAttempts is how many times the carrier is asked about a
// standalone tracker's number while it has no information on it. The
// first poll is due 15 minutes after the tracker was made, and each answer
// of no information doubles the wait for the next (30 minutes, 1, 2, 4, 8
// hours), so the last is about 16 hours after the tracker was made; then
// the tracker ends (EndUnknownNumber). Carriers know a number from the
// moment its label is made, so a number still unknown after that is most
// likely mistyped.
const UnknownNumberAttempts = 6

// UnknownNumberScan is the scan index of the event that says the carrier
// does not know the number: before every carrier scan (they count from 0).
const UnknownNumberScan = -1

// UnknownNumberMessage is the event a standalone tracker gets when the
// carrier does not know its number.
const UnknownNumberMessage = "The carrier does not know this tracking number yet; it is asked again 5 more times, the last about 16 hours after the tracker was made"

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
	out := Tracker{
		ID: t.ID, Mode: accounts.Mode(t.Mode), ShipmentID: t.ShipmentID, Carrier: t.Carrier, TrackingNumber: t.TrackingNumber,
		Status: t.Status, EstimatedDeliveryAt: t.EstimatedDeliveryAt, Events: trackingEventsOf(events),
		CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt, EndedAt: t.EndedAt,
	}
	if t.EndReason != nil {
		out.EndReason = *t.EndReason
	}
	return out
}

// EndTracker stops following a standalone tracker's package, for reason.
// Its caller records the tracker.updated that says so (with the tracker's
// new status, when there is one).
func (s *Service) EndTracker(ctx context.Context, tx *store.Tx, id, reason string) error {
	s.log.InfoContext(ctx, "tracker ended", slog.String("tracker_id", id), slog.String("reason", reason))
	return tx.EndTracker(ctx, id, reason, s.now())
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

package labeljobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/store"
)

// The tracking of standalone trackers (shipping/trackers): the scan and poll jobs
// of tracking.go branch here for a tracker without a shipment. There is no
// shipment to move nor shipment event to record: the tracker's status and
// scans change, and each new scan records tracker.updated with the tracker.

// scanStandalone applies scan i of a standalone tracker's plan (the sandbox).
func (s *Service) scanStandalone(ctx context.Context, tx *store.Tx, id string, i int, plan []carriers.TrackingScan) error {
	// Locked so that a delete and a scan of the tracker take turns.
	if _, err := tx.LockTracker(ctx, id); errors.Is(err, store.ErrNotFound) {
		return nil
	} else if err != nil {
		return err
	}
	scan, now := plan[i], s.now()
	inserted, err := tx.InsertTrackingEvent(ctx, &store.TrackingEvent{TrackerID: id, ScanIndex: i,
		Status: scan.Status, Message: scan.Message, Location: scan.Location, OccurredAt: now})
	if err != nil || !inserted {
		return err
	}
	if err := tx.UpdateTrackerStatus(ctx, id, scan.Status, now); err != nil {
		return err
	}
	if i == len(plan)-1 {
		// The plan's last scan: nothing more will come.
		if err := s.ship.EndTracker(ctx, tx, id, shipping.EndFinalStatus); err != nil {
			return err
		}
	}
	if err := s.ship.RecordTracker(ctx, tx, id, 1); err != nil {
		return err
	}
	return s.ScheduleScan(ctx, tx, id, i+1, plan, false)
}

// pollStandalone asks a live carrier about a standalone tracker's number, on
// the labels' schedule counted from the tracker's creation, until its
// status is final or it is PollGiveUpAfter old. A number the carrier has no
// information on leaves the tracker unknown, with one event saying so, and
// is asked about shipping.UnknownNumberAttempts times, each wait twice the one
// before; then the tracker ends. Every end records tracker.updated.
func (s *Service) pollStandalone(ctx context.Context, tr store.Tracker, args pollArgs) error {
	end := func(tx *store.Tx, reason string) error {
		if _, err := tx.LockTracker(ctx, tr.ID); errors.Is(err, store.ErrNotFound) {
			return nil // deleted since the poll began
		} else if err != nil {
			return err
		}
		if err := s.ship.EndTracker(ctx, tx, tr.ID, reason); err != nil {
			return err
		}
		return s.ship.RecordTracker(ctx, tx, tr.ID, 1)
	}
	// next queues the next poll, after unknown answers of no information
	// in a row, or ends the tracker when it has had its polls.
	next := func(tx *store.Tx, unknown int) error {
		age := s.now().Sub(tr.CreatedAt)
		switch {
		case unknown >= shipping.UnknownNumberAttempts:
			return end(tx, shipping.EndUnknownNumber)
		case age > shipping.PollGiveUpAfter:
			return end(tx, shipping.EndExpired)
		}
		delay := s.pollDelay(age)
		if unknown > 0 {
			delay = s.pollDelay(0) << unknown
		}
		return s.enqueuePoll(ctx, tx, pollArgs{TrackerID: tr.ID, Poll: args.Poll + 1, Unknown: unknown}, delay)
	}
	if tr.EndedAt != nil {
		return nil // a poll run again after the tracker ended
	}
	carrier, err := s.trackerCarrierOf(ctx, tr)
	if err != nil {
		return nil // the carrier is no longer configured: nothing to ask
	}
	if !carrier.Capabilities().Has(carriers.CapTrack) {
		return nil
	}
	// A standalone tracker's poll draws on its account's share of the
	// carrier's tracking budget, after the account's labels'.
	upd, err := carrier.Track(carriers.WithTrackingClaim(ctx, carriers.TrackingClaim{Account: tr.AccountID}), tr.TrackingNumber)
	if snooze := s.budgetSnooze(err, tr.CreatedAt); snooze != nil {
		return snooze
	}
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		// No answer is not an answer of no information: asked again at the
		// next poll, counting as before.
		s.log.WarnContext(ctx, "tracking poll failed", "tracker_id", tr.ID, "carrier", tr.Carrier, "error", err)
		return s.store.Tx(ctx, func(tx *store.Tx) error { return next(tx, args.Unknown) })
	}
	return s.store.Tx(ctx, func(tx *store.Tx) error {
		cur, err := tx.LockTracker(ctx, tr.ID)
		if errors.Is(err, store.ErrNotFound) {
			return nil // deleted since the poll began
		}
		if err != nil {
			return err
		}
		if cur.EndedAt != nil {
			return nil
		}
		now := s.now()
		if len(upd.Events) == 0 && (upd.Status == "" || upd.Status == carriers.StatusUnknown) {
			if cur.Status != carriers.StatusUnknown {
				return next(tx, 0) // it knew the number before: asked again on schedule
			}
			// The carrier does not know the number (yet): say so once.
			inserted, err := tx.InsertTrackingEvent(ctx, &store.TrackingEvent{TrackerID: cur.ID, ScanIndex: shipping.UnknownNumberScan,
				Status: carriers.StatusUnknown, Message: shipping.UnknownNumberMessage, OccurredAt: now})
			if err != nil {
				return err
			}
			if inserted {
				if err := tx.UpdateTrackerStatus(ctx, cur.ID, carriers.StatusUnknown, now); err != nil {
					return err
				}
				if err := s.ship.RecordTracker(ctx, tx, cur.ID, 1); err != nil {
					return err
				}
			}
			return next(tx, args.Unknown+1)
		}
		added, err := recordUpdate(ctx, tx, cur.ID, upd, now)
		if err != nil {
			return err
		}
		status := upd.Status
		if status == "" {
			status = cur.Status
		}
		ends := shipping.TrackerStatus(status).Final()
		if ends {
			if err := s.ship.EndTracker(ctx, tx, cur.ID, shipping.EndFinalStatus); err != nil {
				return err
			}
		}
		if added > 0 || status != cur.Status || ends {
			if err := tx.UpdateTrackerStatus(ctx, cur.ID, status, now); err != nil {
				return err
			}
			if err := s.ship.RecordTracker(ctx, tx, cur.ID, max(added, 1)); err != nil {
				return err
			}
		}
		if ends {
			return nil
		}
		return next(tx, 0)
	})
}

// trackerCarrierOf is the carrier a standalone tracker asks: its carrier
// account's client, whatever became of that account since, or the mode's
// carrier of its name.
func (s *Service) trackerCarrierOf(ctx context.Context, tr store.Tracker) (carriers.Carrier, error) {
	if tr.CarrierAccountID != nil && *tr.CarrierAccountID != "" {
		ca, err := s.store.CarrierAccountByID(ctx, *tr.CarrierAccountID)
		if err != nil {
			return nil, fmt.Errorf("carrier account %s of %s: %w", *tr.CarrierAccountID, tr.ID, err)
		}
		return s.ship.AccountCarrier(ca)
	}
	return s.cfg.Carriers.Lookup(accounts.Mode(tr.Mode) == accounts.Test, tr.Carrier)
}

// FollowTracker queues the first step of a new standalone tracker in tx: the
// first scan of its plan (a sandbox carrier's) when planned, else its first
// poll of the carrier when polled; nothing when neither (a carrier shipd
// cannot ask).
func (s *Service) FollowTracker(ctx context.Context, tx *store.Tx, trackerID string, plan []carriers.TrackingScan, planned, polled bool, since time.Time) error {
	switch {
	case planned:
		return s.ScheduleScan(ctx, tx, trackerID, 0, plan, true)
	case polled:
		return s.SchedulePoll(ctx, tx, trackerID, 1, since)
	}
	return nil
}

package shipping

import (
	"context"
	"errors"
	"fmt"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/store"
)

// The tracking of standalone trackers (trackers.go): the scan and poll jobs
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
	if err := s.recordTracker(ctx, tx, id, 1); err != nil {
		return err
	}
	return s.scheduleScan(ctx, tx, id, i+1, plan, false)
}

// pollStandalone asks a live carrier about a standalone tracker's number, on
// the labels' schedule counted from the tracker's creation. A number the
// carrier does not know leaves the tracker unknown, with one event saying
// so, and is asked about for UnknownNumberGiveUpAfter.
func (s *Service) pollStandalone(ctx context.Context, tr store.Tracker, poll int) error {
	next := func(tx *store.Tx, known bool) error {
		if !known && s.now().Sub(tr.CreatedAt) > UnknownNumberGiveUpAfter {
			s.log.InfoContext(ctx, "tracking polls given up: the carrier does not know the number", "tracker_id", tr.ID)
			return nil
		}
		return s.schedulePoll(ctx, tx, tr.ID, poll+1, tr.CreatedAt)
	}
	known := tr.Status != carriers.StatusUnknown
	carrier, err := s.trackerCarrierOf(ctx, tr)
	if err != nil {
		return nil // the carrier is no longer configured: nothing to ask
	}
	if !carrier.Capabilities().Has(carriers.CapTrack) {
		return nil
	}
	upd, err := carrier.Track(carriers.WithTrackingClaim(ctx, carriers.TrackingClaim{Account: tr.AccountID}), tr.TrackingNumber)
	if snooze := s.budgetSnooze(err, tr.CreatedAt); snooze != nil {
		return snooze
	}
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		s.log.WarnContext(ctx, "tracking poll failed", "tracker_id", tr.ID, "carrier", tr.Carrier, "error", err)
		return s.store.Tx(ctx, func(tx *store.Tx) error { return next(tx, known) })
	}
	return s.store.Tx(ctx, func(tx *store.Tx) error {
		cur, err := tx.LockTracker(ctx, tr.ID)
		if errors.Is(err, store.ErrNotFound) {
			return nil // deleted since the poll began
		}
		if err != nil {
			return err
		}
		now := s.now()
		if len(upd.Events) == 0 && (upd.Status == "" || upd.Status == carriers.StatusUnknown) {
			// The carrier does not know the number (yet): say so once.
			inserted, err := tx.InsertTrackingEvent(ctx, &store.TrackingEvent{TrackerID: cur.ID, ScanIndex: unknownNumberScan,
				Status: carriers.StatusUnknown, Message: UnknownNumberMessage, OccurredAt: now})
			if err != nil {
				return err
			}
			if inserted {
				if err := tx.UpdateTrackerStatus(ctx, cur.ID, carriers.StatusUnknown, now); err != nil {
					return err
				}
				if err := s.recordTracker(ctx, tx, cur.ID, 1); err != nil {
					return err
				}
			}
			return next(tx, cur.Status != carriers.StatusUnknown)
		}
		added, err := recordUpdate(ctx, tx, cur.ID, upd, now)
		if err != nil {
			return err
		}
		status := upd.Status
		if status == "" {
			status = cur.Status
		}
		if added > 0 || status != cur.Status {
			if err := tx.UpdateTrackerStatus(ctx, cur.ID, status, now); err != nil {
				return err
			}
			if err := s.recordTracker(ctx, tx, cur.ID, max(added, 1)); err != nil {
				return err
			}
		}
		if pollEnds(status) {
			return nil
		}
		return next(tx, true)
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
		return s.accountCarrier(ca)
	}
	return s.cfg.Carriers.Lookup(accounts.Mode(tr.Mode) == accounts.Test, tr.Carrier)
}

package labeljobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/riverqueue/river"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/store"
	"github.com/shipd-dev/shipd/webhooks"
)

// Tracking. A carrier that knows a label's scans in advance (the sandbox, a
// carriers.CapTrackingPlan) gives a plan at purchase; each scan is a job scheduled
// after the one before. A live carrier (carriers.CapTrack) is polled: often
// soon after the purchase, less often as the label ages (pollDelay), until the
// label is delivered or returned. Either way, applying a scan records the
// tracking event, moves the tracker's and the shipment's tracking status, and
// records tracker.updated and, when the status becomes a final one, the
// matching shipment event, once, in one transaction.
//
// A live poll asks the carrier through the carrier's budget
// (carriers.Limit), shared fairly between accounts, a label's poll before
// the account's standalone trackers' (carriers.WithTrackingClaim): when it
// is spent, the poll job snoozes until a call may go. Polls of a carrier
// that answers for many labels at once (carriers.CapTrackMany, FedEx) that
// run together are sent as one call (carriers.Batch); each poll still
// applies its own tracker's answer in its own transaction.

// scanArgs applies scan Index of a tracker's plan.
type scanArgs struct {
	TrackerID string `json:"tracker_id"`
	Index     int    `json:"index"`
}

func (scanArgs) Kind() string { return "tracking_scan" }

// InsertOpts makes each scan a unique job, so a scan is never applied twice.
func (scanArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// finalEvents are the shipment events a final tracking status records, once.
var finalEvents = map[string]string{
	carriers.StatusDelivered:      webhooks.EventShipmentDelivered,
	carriers.StatusFailure:        webhooks.EventShipmentException,
	carriers.StatusReturnToSender: webhooks.EventShipmentReturnToSender,
}

// ScheduleScan queues scan index of the plan after its delay. newTracker:
// the tracker was inserted by this transaction, so no scan job of it can
// exist and the insert skips the unique lookup (EnqueueNew).
func (s *Service) ScheduleScan(ctx context.Context, tx *store.Tx, trackerID string, index int, plan []carriers.TrackingScan, newTracker bool) error {
	if index >= len(plan) {
		return nil
	}
	job := river.InsertManyParams{Args: scanArgs{TrackerID: trackerID, Index: index},
		InsertOpts: &river.InsertOpts{ScheduledAt: s.jobNow().Add(plan[index].After)}}
	if newTracker {
		return tx.EnqueueNew(ctx, job)
	}
	return tx.Enqueue(ctx, job)
}

type scanWorker struct {
	river.WorkerDefaults[scanArgs]
	s *Service
}

func (w *scanWorker) Work(ctx context.Context, job *river.Job[scanArgs]) error {
	s := w.s
	return s.store.Tx(ctx, func(tx *store.Tx) error {
		tr, err := tx.TrackerByID(ctx, job.Args.TrackerID)
		if errors.Is(err, store.ErrNotFound) {
			return nil // a standalone tracker deleted since: nothing to scan
		}
		if err != nil {
			return err
		}
		var plan []carriers.TrackingScan
		if err := json.Unmarshal([]byte(tr.Plan), &plan); err != nil {
			return fmt.Errorf("tracker %s plan: %w", tr.ID, err)
		}
		i := job.Args.Index
		if i >= len(plan) {
			return nil
		}
		if tr.ShipmentID == nil {
			return s.scanStandalone(ctx, tx, tr.ID, i, plan)
		}
		row, err := tx.LockShipment(ctx, *tr.ShipmentID)
		if err != nil {
			return err
		}
		switch shipping.Status(row.Status).OnScan() {
		case shipping.ScanDrop:
			return nil
		case shipping.ScanHold:
			return river.JobSnooze(max(plan[i].After, time.Second))
		}
		scan := plan[i]
		now := s.now()
		inserted, err := tx.InsertTrackingEvent(ctx, &store.TrackingEvent{TrackerID: tr.ID, ScanIndex: i,
			Status: scan.Status, Message: scan.Message, Location: scan.Location, OccurredAt: now, TrackingNumber: optional(scan.TrackingNumber)})
		if err != nil || !inserted {
			return err
		}
		if err := tx.UpdateTrackerStatus(ctx, tr.ID, scan.Status, now); err != nil {
			return err
		}
		row.TrackingStatus, row.UpdatedAt = &scan.Status, now
		if err := s.ship.ChargeOnUse(ctx, tx, &row, shipping.Used(scan.Status), now); err != nil {
			return err
		}
		if err := tx.UpdateShipment(ctx, &row); err != nil {
			return err
		}
		events := []string{webhooks.EventTrackerUpdated}
		if ev, ok := finalEvents[scan.Status]; ok {
			events = append(events, ev)
		}
		if err := s.ship.Record(ctx, tx, row, events...); err != nil {
			return err
		}
		return s.ScheduleScan(ctx, tx, tr.ID, i+1, plan, false)
	})
}

// pollArgs asks a live carrier about a tracker; Poll numbers the polls
// (from 1). Unknown counts the answers of no information on a standalone
// tracker's number so far (UnknownNumberAttempts).
type pollArgs struct {
	TrackerID string `json:"tracker_id"`
	Poll      int    `json:"poll"`
	Unknown   int    `json:"unknown,omitempty"`
}

func (pollArgs) Kind() string { return "tracking_poll" }

// InsertOpts makes each poll a unique job, so a retried insert never doubles one.
func (pollArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// The live tracking schedule: every 15 minutes for the first 6 hours after
// the purchase (labels are scanned at pickup), hourly until 3 days, every 6
// hours until 30 days, then no more polls (shipping.PollGiveUpAfter).

// pollDelay is the wait before the next poll of a label purchased age ago.
func (s *Service) pollDelay(age time.Duration) time.Duration {
	switch {
	case s.cfg.TrackingPollInterval > 0:
		return s.cfg.TrackingPollInterval
	case age < 6*time.Hour:
		return 15 * time.Minute
	case age < 3*24*time.Hour:
		return time.Hour
	}
	return 6 * time.Hour
}

// SchedulePoll queues poll n of a tracker, after the delay its age calls for.
func (s *Service) SchedulePoll(ctx context.Context, tx *store.Tx, trackerID string, n int, purchasedAt time.Time) error {
	age := s.now().Sub(purchasedAt)
	if age > shipping.PollGiveUpAfter {
		s.log.InfoContext(ctx, "tracking polls given up", "tracker_id", trackerID, "age", age.String())
		return nil
	}
	return s.enqueuePoll(ctx, tx, pollArgs{TrackerID: trackerID, Poll: n}, s.pollDelay(age))
}

// enqueuePoll queues a poll due after delay.
func (s *Service) enqueuePoll(ctx context.Context, tx *store.Tx, args pollArgs, delay time.Duration) error {
	return tx.Enqueue(ctx, river.InsertManyParams{Args: args, InsertOpts: &river.InsertOpts{ScheduledAt: s.jobNow().Add(delay)}})
}

type pollWorker struct {
	river.WorkerDefaults[pollArgs]
	s *Service
}

func (w *pollWorker) Work(ctx context.Context, job *river.Job[pollArgs]) error {
	s := w.s
	tr, err := s.store.TrackerByID(ctx, job.Args.TrackerID)
	if errors.Is(err, store.ErrNotFound) {
		return nil // a standalone tracker deleted since: nothing to ask
	}
	if err != nil {
		return err
	}
	if tr.ShipmentID == nil {
		return s.pollStandalone(ctx, tr, job.Args)
	}
	row, err := s.store.ShipmentByID(ctx, *tr.ShipmentID)
	if err != nil {
		return err
	}
	purchasedAt := tr.CreatedAt
	if row.PurchasedAt != nil {
		purchasedAt = *row.PurchasedAt
	}
	next := func() error {
		return s.store.Tx(ctx, func(tx *store.Tx) error { return s.SchedulePoll(ctx, tx, tr.ID, job.Args.Poll+1, purchasedAt) })
	}
	switch shipping.Status(row.Status).OnScan() {
	case shipping.ScanDrop:
		return nil
	case shipping.ScanHold:
		return next()
	}
	carrier, err := s.ship.CarrierOf(ctx, row)
	if err != nil {
		return nil // the carrier is no longer configured: nothing to ask
	}
	if !carrier.Capabilities().Has(carriers.CapTrack) {
		return nil
	}
	// A label's poll draws on its account's share of the carrier's
	// tracking budget, before the account's standalone trackers.
	upd, err := carrier.Track(carriers.WithTrackingClaim(ctx, carriers.TrackingClaim{Account: row.AccountID, Label: true}), tr.TrackingNumber)
	if snooze := s.budgetSnooze(err, purchasedAt); snooze != nil {
		return snooze
	}
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		// A carrier that cannot answer now is asked again at the next poll.
		s.log.WarnContext(ctx, "tracking poll failed", "tracker_id", tr.ID, "carrier", row.Carrier, "error", err)
		return next()
	}
	return s.store.Tx(ctx, func(tx *store.Tx) error {
		row, err := tx.LockShipment(ctx, *tr.ShipmentID)
		if err != nil {
			return err
		}
		if shipping.Status(row.Status).OnScan() != shipping.ScanApply {
			return s.SchedulePoll(ctx, tx, tr.ID, job.Args.Poll+1, purchasedAt)
		}
		tr, err := tx.TrackerByID(ctx, tr.ID)
		if err != nil {
			return err
		}
		now := s.now()
		added, err := recordUpdate(ctx, tx, tr.ID, upd, now)
		if err != nil {
			return err
		}
		status := upd.Status
		if status == "" || status == carriers.StatusUnknown && len(upd.Events) == 0 {
			status = tr.Status
		}
		if added > 0 || status != tr.Status {
			if err := tx.UpdateTrackerStatus(ctx, tr.ID, status, now); err != nil {
				return err
			}
			row.TrackingStatus, row.UpdatedAt = &status, now
			if err := s.ship.ChargeOnUse(ctx, tx, &row, shipping.UsedBy(status, upd.Events), now); err != nil {
				return err
			}
			if err := tx.UpdateShipment(ctx, &row); err != nil {
				return err
			}
			var events []string
			for range max(added, 1) {
				events = append(events, webhooks.EventTrackerUpdated)
			}
			if ev, ok := finalEvents[status]; ok && status != tr.Status {
				events = append(events, ev)
			}
			if err := s.ship.Record(ctx, tx, row, events...); err != nil {
				return err
			}
		}
		if shipping.TrackerStatus(status).Final() {
			return nil
		}
		return s.SchedulePoll(ctx, tx, tr.ID, job.Args.Poll+1, purchasedAt)
	})
}

// budgetSnooze is the snooze of a poll whose carrier refused the call for
// its budget (or asked us to wait), nil for any other outcome: the poll
// waits until a call may go, without counting as a failure. The jitter, a
// half of the poll interval of a tracker that age, spreads the polls that
// waited together, so they do not all ask for the one call that becomes free.
func (s *Service) budgetSnooze(err error, since time.Time) error {
	if !errors.Is(err, carriers.ErrOverQuota) {
		return nil
	}
	var ce *carriers.Error
	wait := time.Minute
	if errors.As(err, &ce) && ce.RetryAfter > 0 {
		wait = ce.RetryAfter
	}
	spread := s.pollDelay(s.now().Sub(since)) / 2
	return river.JobSnooze(wait + rand.N(spread+1))
}

// recordUpdate stores what a carrier's tracking says of a tracker: the scans
// it has not stored yet (carriers list scans oldest first and only ever add
// to them, so a scan's position is its identity) and the estimated
// delivery; added counts the new scans.
func recordUpdate(ctx context.Context, tx *store.Tx, trackerID string, upd carriers.TrackingUpdate, now time.Time) (added int, err error) {
	for i, ev := range upd.Events {
		at := ev.OccurredAt
		if at.IsZero() {
			at = now
		}
		inserted, err := tx.InsertTrackingEvent(ctx, &store.TrackingEvent{TrackerID: trackerID, ScanIndex: i,
			Status: ev.Status, Message: ev.Message, Location: ev.Location, OccurredAt: at.UTC(), TrackingNumber: optional(ev.TrackingNumber)})
		if err != nil {
			return added, err
		}
		if inserted {
			added++
		}
	}
	if upd.EstimatedDeliveryAt != nil {
		if err := tx.UpdateTrackerEstimate(ctx, trackerID, *upd.EstimatedDeliveryAt, now); err != nil {
			return added, err
		}
	}
	return added, nil
}

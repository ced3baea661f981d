package shipping

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/store"
	"github.com/shipd-dev/shipd/webhooks"
)

// Tracking. A carrier that knows a label's scans in advance (the sandbox, a
// carriers.Planner) gives a plan at purchase; each scan is a job scheduled
// after the one before. Applying a scan records the tracking event, moves the
// tracker's and the shipment's tracking status, and records tracker.updated
// and, for a final status, the matching shipment event, once, in one
// transaction.

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

// scheduleScan queues scan index of the plan after its delay.
func (s *Service) scheduleScan(ctx context.Context, tx *store.Tx, trackerID string, index int, plan []carriers.TrackingScan) error {
	if index >= len(plan) {
		return nil
	}
	return tx.Enqueue(ctx, river.InsertManyParams{Args: scanArgs{TrackerID: trackerID, Index: index},
		InsertOpts: &river.InsertOpts{ScheduledAt: time.Now().Add(plan[index].After)}})
}

type scanWorker struct {
	river.WorkerDefaults[scanArgs]
	s *Service
}

func (w *scanWorker) Work(ctx context.Context, job *river.Job[scanArgs]) error {
	s := w.s
	return s.store.Tx(ctx, func(tx *store.Tx) error {
		tr, err := tx.TrackerByID(ctx, job.Args.TrackerID)
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
		row, err := tx.LockShipment(ctx, tr.ShipmentID)
		if err != nil {
			return err
		}
		switch Status(row.Status).OnScan() {
		case ScanDrop:
			return nil
		case ScanHold:
			return river.JobSnooze(max(plan[i].After, time.Second))
		}
		scan := plan[i]
		now := s.now()
		inserted, err := tx.InsertTrackingEvent(ctx, &store.TrackingEvent{TrackerID: tr.ID, ScanIndex: i,
			Status: scan.Status, Message: scan.Message, Location: scan.Location, OccurredAt: now})
		if err != nil || !inserted {
			return err
		}
		if err := tx.UpdateTrackerStatus(ctx, tr.ID, scan.Status, now); err != nil {
			return err
		}
		row.TrackingStatus, row.UpdatedAt = &scan.Status, now
		if err := tx.UpdateShipment(ctx, &row); err != nil {
			return err
		}
		events := []string{webhooks.EventTrackerUpdated}
		if ev, ok := finalEvents[scan.Status]; ok {
			events = append(events, ev)
		}
		if err := s.record(ctx, tx, row, events...); err != nil {
			return err
		}
		return s.scheduleScan(ctx, tx, tr.ID, i+1, plan)
	})
}

// RegisterWorkers adds the purchase, void and tracking workers.
func (s *Service) RegisterWorkers(w *river.Workers) {
	river.AddWorker(w, &purchaseWorker{s: s})
	river.AddWorker(w, &voidWorker{s: s})
	river.AddWorker(w, &scanWorker{s: s})
}

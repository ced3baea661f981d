package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/riverqueue/river"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/store"
)

// purchaseArgs buys a shipment's selected rate. A carrier that is
// temporarily unavailable gets a new job with the next Attempt, inserted with
// the shipment's move to pending, rather than a River retry: the schedule is
// then ours, and the attempt count survives restarts in the job itself.
type purchaseArgs struct {
	ShipmentID string `json:"shipment_id"`
	Attempt    int    `json:"attempt,omitempty"`
}

func (purchaseArgs) Kind() string { return "purchase_label" }

// InsertOpts makes each attempt unique, so a retried insert never doubles a purchase attempt.
func (purchaseArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// refundArgs voids a shipment's label with the carrier.
type refundArgs struct {
	ShipmentID string `json:"shipment_id"`
}

func (refundArgs) Kind() string { return "refund_label" }

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

func (s *Server) registerWorkers(workers *river.Workers) bool {
	river.AddWorker(workers, &purchaseWorker{s: s})
	river.AddWorker(workers, &refundWorker{s: s})
	river.AddWorker(workers, &scanWorker{s: s})
	s.registerDeliveryWorkers(workers)
	s.registerIdempotencyWorkers(workers)
	return true
}

// retryDelay backs off exponentially from base, capped at 5 minutes.
func retryDelay(base time.Duration, attempt int) time.Duration {
	d := base
	for i := 1; i < attempt && d < 5*time.Minute; i++ {
		d *= 2
	}
	return min(d, 5*time.Minute)
}

type purchaseWorker struct {
	river.WorkerDefaults[purchaseArgs]
	s *Server
}

func (w *purchaseWorker) NextRetry(job *river.Job[purchaseArgs]) time.Time {
	return time.Now().Add(retryDelay(w.s.cfg.PurchaseRetryBase, job.Attempt))
}

// Work buys the label. The carrier purchase is idempotent per shipment id and
// the state change is guarded by the shipment's status, so a job retried
// after a crash buys once and records once.
func (w *purchaseWorker) Work(ctx context.Context, job *river.Job[purchaseArgs]) error {
	s := w.s
	sh, err := store.ShipmentByID(ctx, s.store.R, job.Args.ShipmentID)
	if err != nil {
		return err
	}
	if sh.Status != "paying" && sh.Status != "pending" {
		return nil
	}
	testMode := sh.Mode == "test"
	in := decodeInput(sh)
	carrier, err := s.cfg.Carriers.Lookup(testMode, sh.Carrier)
	if err != nil {
		return s.failPurchase(ctx, sh, "the carrier "+sh.Carrier+" is not available for this mode")
	}
	rate := carriers.Rate{Carrier: sh.Carrier, Service: sh.Service, ServiceCategory: sh.ServiceCategory,
		CarrierRateCents: sh.CarrierRateCents, Currency: sh.Currency, EstimatedDays: sh.EstimatedDays}
	label, err := carrier.Buy(ctx, carriers.BuyRequest{Reference: sh.ID, Shipment: in.carrierShipment(), Rate: rate, TestMode: testMode})
	if errors.Is(err, carriers.ErrUnavailable) {
		attempt := job.Args.Attempt + 1
		if attempt >= s.cfg.PurchaseAttempts {
			return s.failPurchase(ctx, sh, fmt.Sprintf("the carrier stayed unavailable after %d attempts", attempt))
		}
		s.log.InfoContext(ctx, "purchase deferred", slog.String("shipment_id", sh.ID), slog.Int("attempt", attempt), slog.Any("error", err))
		return s.deferPurchase(ctx, sh.ID, attempt)
	}
	if err != nil {
		return s.failPurchase(ctx, sh, err.Error())
	}
	var plan []carriers.TrackingScan
	if planner, ok := carrier.(carriers.Planner); ok {
		plan, err = planner.TrackingPlan(ctx, in.carrierShipment(), label.TrackingNumber)
	}
	if err != nil {
		return fmt.Errorf("tracking plan: %w", err)
	}
	key := "labels/" + sh.ID + ".pdf"
	if err := s.cfg.Labels.Put(ctx, key, label.PDF); err != nil {
		return fmt.Errorf("store label: %w", err)
	}
	planJSON, err := json.Marshal(plan)
	if err != nil {
		return err
	}
	return s.store.Tx(ctx, func(tx *sqlx.Tx) error {
		sh, err := store.ShipmentByID(ctx, tx, sh.ID)
		if err != nil {
			return err
		}
		if sh.Status != "paying" && sh.Status != "pending" {
			return nil
		}
		now := s.now()
		eta := now.Add(time.Duration(sh.EstimatedDays) * 24 * time.Hour)
		tr := store.Tracker{ID: store.NewID("trk"), AccountID: sh.AccountID, Mode: sh.Mode, ShipmentID: sh.ID,
			Carrier: sh.Carrier, TrackingNumber: label.TrackingNumber, Status: carriers.StatusUnknown,
			EstimatedDeliveryAt: &eta, Plan: string(planJSON), CreatedAt: now, UpdatedAt: now}
		if err := store.InsertTracker(ctx, tx, &tr); err != nil {
			return err
		}
		sh.Status, sh.UpdatedAt, sh.PurchasedAt = "purchased", now, &now
		sh.TrackingNumber, sh.LabelKey, sh.TrackerID = &label.TrackingNumber, &key, &tr.ID
		status := carriers.StatusUnknown
		sh.TrackingStatus = &status
		if err := store.UpdateShipment(ctx, tx, &sh); err != nil {
			return err
		}
		// Test mode never charges: it keeps its own balance, and no card is involved.
		if sh.Mode == "live" && sh.ChargeAmountCents > 0 {
			if _, err := store.AddLedgerEntry(ctx, tx, store.LedgerEntry{AccountID: sh.AccountID, Mode: sh.Mode, ShipmentID: sh.ID,
				Kind: store.LedgerCardCharge, AmountCents: sh.ChargeAmountCents, CreatedAt: now}); err != nil {
				return err
			}
		}
		detail, err := s.shipmentDetail(ctx, tx, sh)
		if err != nil {
			return err
		}
		if _, err := s.recordEvent(ctx, tx, sh.AccountID, sh.Mode, "shipment.purchased", detail); err != nil {
			return err
		}
		return s.scheduleScan(ctx, tx, tr.ID, 0, plan)
	})
}

// deferPurchase moves the shipment to pending and queues the next attempt after a backoff, together.
func (s *Server) deferPurchase(ctx context.Context, id string, attempt int) error {
	return s.store.Tx(ctx, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE shipments SET status = 'pending', updated_at = ? WHERE id = ? AND status IN ('paying', 'pending')`, s.now(), id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		_, err = s.jobs.InsertTx(ctx, tx.Tx, purchaseArgs{ShipmentID: id, Attempt: attempt},
			&river.InsertOpts{ScheduledAt: time.Now().Add(retryDelay(s.cfg.PurchaseRetryBase, attempt))})
		return err
	})
}

// failPurchase ends a purchase as failed: the balance credit reserved for it
// is released and shipment.failed is recorded with the reason.
func (s *Server) failPurchase(ctx context.Context, sh store.Shipment, reason string) error {
	s.log.InfoContext(ctx, "purchase failed", slog.String("shipment_id", sh.ID), slog.String("reason", reason))
	return s.store.Tx(ctx, func(tx *sqlx.Tx) error {
		sh, err := store.ShipmentByID(ctx, tx, sh.ID)
		if err != nil {
			return err
		}
		if sh.Status != "paying" && sh.Status != "pending" {
			return nil
		}
		now := s.now()
		if sh.BalanceAppliedCents > 0 {
			if _, err := store.AddLedgerEntry(ctx, tx, store.LedgerEntry{AccountID: sh.AccountID, Mode: sh.Mode, ShipmentID: sh.ID,
				Kind: store.LedgerBalanceReleased, AmountCents: sh.BalanceAppliedCents, CreatedAt: now}); err != nil {
				return err
			}
		}
		sh.Status, sh.UpdatedAt, sh.ErrorMessage = "failed", now, &reason
		if err := store.UpdateShipment(ctx, tx, &sh); err != nil {
			return err
		}
		detail, err := s.shipmentDetail(ctx, tx, sh)
		if err != nil {
			return err
		}
		_, err = s.recordEvent(ctx, tx, sh.AccountID, sh.Mode, "shipment.failed", detail)
		return err
	})
}

type refundWorker struct {
	river.WorkerDefaults[refundArgs]
	s *Server
}

func (w *refundWorker) NextRetry(job *river.Job[refundArgs]) time.Time {
	return time.Now().Add(retryDelay(w.s.cfg.PurchaseRetryBase, job.Attempt))
}

// Work confirms the void with the carrier, then in one transaction moves the
// shipment to voided, credits the balance and records shipment.voided.
func (w *refundWorker) Work(ctx context.Context, job *river.Job[refundArgs]) error {
	s := w.s
	sh, err := store.ShipmentByID(ctx, s.store.R, job.Args.ShipmentID)
	if err != nil {
		return err
	}
	if sh.Status != "void_requested" {
		return nil
	}
	carrier, err := s.cfg.Carriers.Lookup(sh.Mode == "test", sh.Carrier)
	if err != nil {
		return err
	}
	if _, err := carrier.Void(ctx, carriers.VoidRequest{TrackingNumber: deref(sh.TrackingNumber), Reference: sh.ID}); err != nil {
		if errors.Is(err, carriers.ErrRejected) || job.Attempt >= job.MaxAttempts {
			return s.rejectVoid(ctx, sh.ID, err)
		}
		return fmt.Errorf("void: %w", err)
	}
	return s.store.Tx(ctx, func(tx *sqlx.Tx) error {
		sh, err := store.ShipmentByID(ctx, tx, sh.ID)
		if err != nil {
			return err
		}
		if sh.Status != "void_requested" {
			return nil
		}
		now := s.now()
		sh.Status, sh.UpdatedAt, sh.VoidedAt = "voided", now, &now
		if err := store.UpdateShipment(ctx, tx, &sh); err != nil {
			return err
		}
		if _, err := store.AddLedgerEntry(ctx, tx, store.LedgerEntry{AccountID: sh.AccountID, Mode: sh.Mode, ShipmentID: sh.ID,
			Kind: store.LedgerRefundCredit, AmountCents: sh.CustomerPriceCents, CreatedAt: now}); err != nil {
			return err
		}
		detail, err := s.shipmentDetail(ctx, tx, sh)
		if err != nil {
			return err
		}
		_, err = s.recordEvent(ctx, tx, sh.AccountID, sh.Mode, "shipment.voided", detail)
		return err
	})
}

// rejectVoid returns a label whose void the carrier refused to purchased, with the reason.
func (s *Server) rejectVoid(ctx context.Context, id string, cause error) error {
	return s.store.Tx(ctx, func(tx *sqlx.Tx) error {
		msg := "void rejected by the carrier: " + cause.Error()
		_, err := tx.ExecContext(ctx, `UPDATE shipments SET status = 'purchased', error_message = ?, updated_at = ? WHERE id = ? AND status = 'void_requested'`, msg, s.now(), id)
		return err
	})
}

type scanWorker struct {
	river.WorkerDefaults[scanArgs]
	s *Server
}

// scheduleScan queues scan index of the plan after its delay.
func (s *Server) scheduleScan(ctx context.Context, tx *sqlx.Tx, trackerID string, index int, plan []carriers.TrackingScan) error {
	if index >= len(plan) {
		return nil
	}
	_, err := s.jobs.InsertTx(ctx, tx.Tx, scanArgs{TrackerID: trackerID, Index: index},
		&river.InsertOpts{ScheduledAt: time.Now().Add(plan[index].After)})
	return err
}

// terminalEvents are the shipment events a final tracking status records, once.
var terminalEvents = map[string]string{
	carriers.StatusDelivered:      "shipment.delivered",
	carriers.StatusFailure:        "shipment.exception",
	carriers.StatusReturnToSender: "shipment.return_to_sender",
}

// Work applies one scan: the tracking event, the tracker and shipment status,
// tracker.updated, and the shipment event of a final status, in one transaction.
func (w *scanWorker) Work(ctx context.Context, job *river.Job[scanArgs]) error {
	s := w.s
	return s.store.Tx(ctx, func(tx *sqlx.Tx) error {
		tr, err := store.TrackerByID(ctx, tx, job.Args.TrackerID)
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
		sh, err := store.ShipmentByID(ctx, tx, tr.ShipmentID)
		if err != nil {
			return err
		}
		switch sh.Status {
		case "voided":
			return nil // a voided label never moves
		case "void_requested":
			// Hold the scan until the void settles: a rejected void puts the
			// label back to purchased, and its tracking must go on.
			return river.JobSnooze(max(plan[i].After, time.Second))
		}
		scan := plan[i]
		now := s.now()
		inserted, err := store.InsertTrackingEvent(ctx, tx, &store.TrackingEvent{TrackerID: tr.ID, ScanIndex: i,
			Status: scan.Status, Message: scan.Message, Location: scan.Location, OccurredAt: now})
		if err != nil || !inserted {
			return err
		}
		if err := store.UpdateTrackerStatus(ctx, tx, tr.ID, scan.Status, now); err != nil {
			return err
		}
		sh.TrackingStatus, sh.UpdatedAt = &scan.Status, now
		if err := store.UpdateShipment(ctx, tx, &sh); err != nil {
			return err
		}
		detail, err := s.shipmentDetail(ctx, tx, sh)
		if err != nil {
			return err
		}
		if _, err := s.recordEvent(ctx, tx, sh.AccountID, sh.Mode, "tracker.updated", detail); err != nil {
			return err
		}
		if ev, ok := terminalEvents[scan.Status]; ok {
			if _, err := s.recordEvent(ctx, tx, sh.AccountID, sh.Mode, ev, detail); err != nil {
				return err
			}
		}
		return s.scheduleScan(ctx, tx, tr.ID, i+1, plan)
	})
}

package labeljobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/riverqueue/river"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/shipping/customs"
	"github.com/shipd-dev/shipd/store"
	"github.com/shipd-dev/shipd/webhooks"
)

// What a purchase does. The purchase job buys the selected rate from the
// carrier, outside any transaction; stores the label document; then in one
// transaction moves the shipment to purchased, creates its tracker, records
// the card charge (live mode) and shipment.purchased with its deliveries, and
// schedules tracking (a sandbox plan, or polls of a live carrier's tracking).
// The carrier treats the shipment id as the purchase's
// idempotency key and the state change is guarded by the shipment's status,
// so a job retried after a crash buys once and records once.
//
// A carrier that is temporarily unavailable moves the shipment to pending and
// queues the next attempt with backoff, together; after PurchaseAttempts
// attempts, or when the carrier refuses, the purchase fails: the reserved
// balance is released and shipment.failed records the reason.
type purchaseWorker struct {
	river.WorkerDefaults[shipping.PurchaseArgs]
	s *Service
}

func (w *purchaseWorker) NextRetry(job *river.Job[shipping.PurchaseArgs]) time.Time {
	return w.s.purchaseRetryAt(job.Attempt)
}

// purchaseRetryAt is when River runs a purchase job again after its run
// number attempt returned an error.
func (s *Service) purchaseRetryAt(attempt int) time.Time {
	return s.jobNow().Add(shipping.RetryDelay(s.cfg.PurchaseRetryBase, attempt))
}

func (w *purchaseWorker) Work(ctx context.Context, job *river.Job[shipping.PurchaseArgs]) error {
	return w.s.purchase(ctx, job.Args.ShipmentID, job.Args.Attempt)
}

// purchaseBatchWorker buys the labels of a shipping.PurchaseBatchArgs job in
// turn; see there for what it buys and how it fails.
type purchaseBatchWorker struct {
	river.WorkerDefaults[shipping.PurchaseBatchArgs]
	s *Service
}

func (w *purchaseBatchWorker) NextRetry(job *river.Job[shipping.PurchaseBatchArgs]) time.Time {
	return w.s.purchaseRetryAt(job.Attempt)
}

func (w *purchaseBatchWorker) Work(ctx context.Context, job *river.Job[shipping.PurchaseBatchArgs]) error {
	for _, id := range job.Args.ShipmentIDs {
		row, err := w.s.store.ShipmentByID(ctx, id)
		if err != nil {
			return err
		}
		// Paying: its first attempt is this job's. Pending: the carrier was
		// unavailable, and the next attempt is a job of its own.
		if shipping.Status(row.Status) != shipping.Paying {
			continue
		}
		if err := w.s.buy(ctx, row, 0); err != nil {
			return err
		}
	}
	return nil
}

func (s *Service) purchase(ctx context.Context, id string, attempt int) error {
	row, err := s.store.ShipmentByID(ctx, id)
	if err != nil {
		return err
	}
	if !shipping.Status(row.Status).Purchasing() {
		return nil
	}
	return s.buy(ctx, row, attempt)
}

// buy makes attempt (0: the first) at buying row's label, read by the
// caller with its purchase still to be made.
func (s *Service) buy(ctx context.Context, row store.Shipment, attempt int) error {
	id := row.ID
	in, err := shipping.DecodeInput(row.Request)
	if err != nil {
		return s.failPurchase(ctx, id, "the stored shipment cannot be read; contact support")
	}
	carrier, err := s.ship.CarrierOf(ctx, row)
	if err != nil {
		return s.failPurchase(ctx, id, "the carrier "+row.Carrier+" is not available for this mode")
	}
	req := buyRequestOf(row, in)
	shipment := req.Shipment
	// The attempt is on record before the carrier is called: if this
	// process dies with the call in flight, the next attempt knows that the
	// carrier may have sold a label whose answer nobody read. Only for a
	// carrier that can be asked what it sold; the others' Buy is idempotent
	// by reference (USPS's idempotency key, the sandbox), and the record
	// would cost every purchase a transaction for nothing.
	var prev store.PurchaseAttempt
	if carrier.Capabilities().Has(carriers.CapFindPurchase) {
		if err := s.store.Tx(ctx, func(tx *store.Tx) error {
			var err error
			prev, err = tx.StartPurchaseAttempt(ctx, id, s.now())
			return err
		}); err != nil {
			return fmt.Errorf("record the purchase attempt: %w", err)
		}
	}
	var label carriers.Label
	adopted := false
	if prev.Attempts > 0 {
		label, adopted, err = s.recoverPurchase(ctx, carrier, row, req, prev)
	}
	if err == nil && !adopted {
		label, err = carrier.Buy(ctx, req)
	}
	if wait, ok := shipping.OverQuotaWait(err); ok {
		// shipd did not call the carrier: its call budget is spent, or the
		// carrier asked for a pause. Not an attempt: the job waits until a
		// call may go, however long the budget stays short.
		s.log.InfoContext(ctx, "purchase waits for the carrier's call budget", slog.String("shipment_id", id), slog.Duration("wait", wait))
		return river.JobSnooze(wait)
	}
	if errors.Is(err, carriers.ErrUnavailable) {
		next := attempt + 1
		if next >= s.cfg.PurchaseAttempts {
			return s.failPurchase(ctx, id, fmt.Sprintf("the carrier stayed unavailable after %d attempts", next))
		}
		s.log.InfoContext(ctx, "purchase deferred", slog.String("shipment_id", id), slog.Int("attempt", next), slog.Any("error", err))
		return s.deferPurchase(ctx, id, next)
	}
	if err != nil {
		if ctx.Err() != nil {
			return err // shutting down: River runs the job again
		}
		if sold, ok := carriers.SoldUnusable(err); ok {
			return s.failUnusable(ctx, row, sold, err) // unusable.go
		}
		return s.failPurchase(ctx, id, err.Error())
	}
	// Sold: the documents are checked now, as a merge will read them, so
	// that one that cannot be read fails the purchase (and is voided)
	// instead of failing every retry of it.
	label, err = s.acceptDocuments(ctx, id, label) // unusable.go
	if errors.Is(err, errUnusable) {
		return s.failUnusable(ctx, row, label, err)
	}
	if err != nil {
		return err // the context's, waiting for the PDF budget
	}
	packages, err := shipping.PackagesOf(in, label)
	if err != nil {
		// Sold, but not as asked: kept as bought for the operator to
		// settle, the pieces unrecorded rather than misnumbered.
		s.log.ErrorContext(ctx, "multi-piece purchase answered another number of labels", slog.String("shipment_id", id), slog.Any("error", err))
	}
	packagesJSON, err := shipping.EncodePackages(packages)
	if err != nil {
		return err
	}
	var plan []carriers.TrackingScan
	caps := carrier.Capabilities()
	planned, polled := caps.Has(carriers.CapTrackingPlan), caps.Has(carriers.CapTrack)
	if planned {
		if plan, err = carrier.TrackingPlan(ctx, shipment, label.TrackingNumber); err != nil {
			return fmt.Errorf("tracking plan: %w", err)
		}
	}
	planJSON, err := json.Marshal(plan)
	if err != nil {
		return err
	}
	// A purchased label always has its document: in the database, it is
	// written by the transaction of the state change; elsewhere, before it,
	// and a crash in between only writes it again.
	doc, format := label.Doc()
	if format != req.Format() {
		// An adapter that ignored the format asked for: the label is sold,
		// so it is kept, and the shipment says what it is.
		s.log.ErrorContext(ctx, "the carrier answered another label format than asked", slog.String("shipment_id", id),
			slog.String("asked", string(req.Format())), slog.String("answered", string(format)))
	}
	key := shipping.LabelKeyIn(id, format)
	customsDoc, err := customs.Paperwork(row, shipment, label, s.now())
	if err != nil {
		return err
	}
	inTx, _ := s.cfg.Documents.(shipping.TxDocuments)
	if inTx == nil {
		if err := s.cfg.Documents.Put(ctx, key, doc); err != nil {
			return fmt.Errorf("store label: %w", err)
		}
		if customsDoc != nil {
			if err := s.cfg.Documents.Put(ctx, customs.Key(id), customsDoc); err != nil {
				return fmt.Errorf("store customs document: %w", err)
			}
		}
		s.ship.Observer().LabelStored()
	}
	purchased := false // this run moved the shipment to purchased
	var sinceCreate time.Duration
	err = s.store.Tx(ctx, func(tx *store.Tx) error {
		row, err := tx.LockShipment(ctx, id)
		if err != nil {
			return err
		}
		to, ok := shipping.Status(row.Status).Next(shipping.PurchaseSucceeded)
		if !ok {
			return nil
		}
		if inTx != nil {
			if err := inTx.PutTx(ctx, tx, key, doc); err != nil {
				return fmt.Errorf("store label: %w", err)
			}
			if customsDoc != nil {
				if err := inTx.PutTx(ctx, tx, customs.Key(id), customsDoc); err != nil {
					return fmt.Errorf("store customs document: %w", err)
				}
			}
		}
		now := s.now()
		purchased, sinceCreate = true, now.Sub(row.CreatedAt)
		eta := now.Add(time.Duration(row.EstimatedDays) * 24 * time.Hour)
		tr := store.Tracker{ID: store.NewID("trk"), AccountID: row.AccountID, Mode: row.Mode, ShipmentID: &row.ID,
			Carrier: row.Carrier, TrackingNumber: label.TrackingNumber, Status: carriers.StatusUnknown,
			EstimatedDeliveryAt: &eta, Plan: string(planJSON), CreatedAt: now, UpdatedAt: now}
		if err := tx.InsertTracker(ctx, &tr); err != nil {
			return err
		}
		status := carriers.StatusUnknown
		row.Status, row.UpdatedAt, row.PurchasedAt = string(to), now, &now
		row.TrackingNumber, row.LabelKey, row.TrackerID, row.TrackingStatus = &label.TrackingNumber, &key, &tr.ID, &status
		row.LabelFormat = string(format)
		row.Packages = packagesJSON
		if label.CarrierShipmentID != "" {
			row.CarrierShipmentID = &label.CarrierShipmentID
		}
		if err := tx.UpdateShipment(ctx, &row); err != nil {
			return err
		}
		if err := s.ship.Charge(ctx, tx, row, now); err != nil {
			return err
		}
		if err := s.ship.FinishBatchItem(ctx, tx, row); err != nil { // shipping/batches
			return err
		}
		// The tracker was inserted above: it has no tracking events yet.
		if err := s.ship.RecordShipment(ctx, tx, row, shipping.ShipmentOf(row, in, nil, true), webhooks.EventShipmentPurchased); err != nil {
			return err
		}
		if !planned && polled {
			return s.SchedulePoll(ctx, tx, tr.ID, 1, now)
		}
		return s.ScheduleScan(ctx, tx, tr.ID, 0, plan, true)
	})
	if err == nil && purchased {
		if inTx != nil {
			s.ship.Observer().LabelStored()
		}
		s.ship.Observer().PurchaseFinished(row.Carrier, shipping.PurchaseOutcomePurchased, sinceCreate)
	}
	return err
}

// buyRequestOf is what a purchase of row asks its carrier for.
func buyRequestOf(row store.Shipment, in shipping.Input) carriers.BuyRequest {
	amount, currency := shipping.CarrierFigure(row) // the carrier's own, before any conversion
	rate := carriers.Rate{Carrier: row.Carrier, Service: row.Service, ServiceCategory: row.ServiceCategory,
		CarrierRateCents: amount, Currency: currency, EstimatedDays: row.EstimatedDays}
	shipment := in.CarrierShipment()
	shipment.Return = row.IsReturn
	return carriers.BuyRequest{Reference: row.ID, Shipment: shipment, Rate: rate, TestMode: accounts.Mode(row.Mode) == accounts.Test,
		LabelFormat: shipping.RowLabelFormat(row), LabelSize: shipping.RowLabelSize(row)}
}

// deferPurchase moves the shipment to pending and queues the next attempt after a backoff, together.
func (s *Service) deferPurchase(ctx context.Context, id string, attempt int) error {
	carrier := "" // set when this run deferred the purchase
	err := s.store.Tx(ctx, func(tx *store.Tx) error {
		row, err := tx.LockShipment(ctx, id)
		if err != nil {
			return err
		}
		to, ok := shipping.Status(row.Status).Next(shipping.PurchaseDeferred)
		if !ok {
			return nil
		}
		carrier = row.Carrier
		row.Status, row.UpdatedAt = string(to), s.now()
		if err := tx.UpdateShipment(ctx, &row); err != nil {
			return err
		}
		return tx.Enqueue(ctx, river.InsertManyParams{Args: shipping.PurchaseArgs{ShipmentID: id, Attempt: attempt},
			InsertOpts: &river.InsertOpts{ScheduledAt: s.jobNow().Add(shipping.RetryDelay(s.cfg.PurchaseRetryBase, attempt))}})
	})
	if err == nil && carrier != "" {
		s.ship.Observer().PurchaseFinished(carrier, shipping.PurchaseOutcomeDeferred, 0)
	}
	return err
}

// failPurchase ends a purchase as failed: the balance reserved for it is
// released and shipment.failed records the reason.
func (s *Service) failPurchase(ctx context.Context, id string, reason string) error {
	s.log.InfoContext(ctx, "purchase failed", slog.String("shipment_id", id), slog.String("reason", reason))
	return s.endPurchase(ctx, id, reason, nil)
}

// endPurchase is failPurchase without its log; then, when not nil, runs in
// the same transaction once the shipment has failed (a void to queue).
func (s *Service) endPurchase(ctx context.Context, id, reason string, then func(context.Context, *store.Tx) error) error {
	carrier := "" // set when this run failed the purchase
	err := s.store.Tx(ctx, func(tx *store.Tx) error {
		row, err := tx.LockShipment(ctx, id)
		if err != nil {
			return err
		}
		to, ok := shipping.Status(row.Status).Next(shipping.PurchaseFailed)
		if !ok {
			return nil
		}
		carrier = row.Carrier
		now := s.now()
		if err := s.ship.Release(ctx, tx, row, now); err != nil {
			return err
		}
		row.Status, row.UpdatedAt, row.ErrorMessage = string(to), now, &reason
		if err := tx.UpdateShipment(ctx, &row); err != nil {
			return err
		}
		if err := s.ship.FinishBatchItem(ctx, tx, row); err != nil { // shipping/batches
			return err
		}
		if then != nil {
			if err := then(ctx, tx); err != nil {
				return err
			}
		}
		return s.ship.Record(ctx, tx, row, webhooks.EventShipmentFailed)
	})
	if err == nil && carrier != "" {
		s.ship.Observer().PurchaseFinished(carrier, shipping.PurchaseOutcomeFailed, 0)
	}
	return err
}

// errLookup marks a failure to ask the carrier what an interrupted attempt
// bought, or to void what it found.
var errLookup = errors.New("could not settle what an interrupted purchase attempt bought")

// lookupFailed is err as the purchase treats it: like an unavailable
// carrier (the attempt is deferred, and fails after PurchaseAttempts),
// since buying now could sell a second label.
func lookupFailed(err error) error {
	return fmt.Errorf("%w (%w): %w", errLookup, carriers.ErrUnavailable, err)
}

// Audit actions of a rescued purchase (store.AuditEntry.Action), with the
// shipment id and the tracking number of the label concerned as target.
const (
	// AuditPurchaseAdopted: an interrupted attempt had bought a label; the
	// purchase kept it (its document fetched again) instead of buying another.
	AuditPurchaseAdopted = "purchase.label_adopted"
	// AuditPurchaseOrphanVoided: an interrupted attempt had bought a label
	// whose document the carrier cannot give again; it was voided and the
	// label bought again.
	AuditPurchaseOrphanVoided = "purchase.orphan_voided"
	// AuditPurchaseOrphanKept: as above, but the carrier refused the void:
	// the operator settles that label with the carrier.
	AuditPurchaseOrphanKept = "purchase.orphan_not_voided"
)

// recoverPurchase is the start of an attempt that follows an earlier one
// which did not record its outcome (the process died with the carrier's
// answer in flight, a time-out, a deferral): UPS and FedEx have no
// idempotency key, so the carrier is asked what it sold under the shipment's
// reference before anything is bought. A label found with its document is
// adopted (adopted true); one whose document the carrier cannot give again
// (FedEx) is voided and the caller buys again. A carrier that cannot be
// asked (carriers.ErrNoLookup: USPS, whose idempotency key makes the next
// Buy return the same label, and the sandbox) leaves the caller to buy.
// Whatever was found is logged, kept with the attempt record, and, when a
// label was sold, written to the account's audit log.
func (s *Service) recoverPurchase(ctx context.Context, carrier carriers.Carrier, row store.Shipment,
	req carriers.BuyRequest, prev store.PurchaseAttempt) (carriers.Label, bool, error) {
	log := s.log.With(slog.String("shipment_id", row.ID), slog.String("carrier", row.Carrier),
		slog.Int("previous_attempts", prev.Attempts), slog.Time("previous_attempt_at", prev.StartedAt))
	var found carriers.Label
	sold, err := false, error(carriers.ErrNoLookup)
	if carrier.Capabilities().Has(carriers.CapFindPurchase) {
		found, sold, err = carrier.FindPurchase(ctx, req)
	}
	if errors.Is(err, carriers.ErrNoLookup) {
		log.InfoContext(ctx, "purchase resumed: the carrier cannot be asked what an earlier attempt bought; its purchase is idempotent by reference")
		return carriers.Label{}, false, nil
	}
	if err != nil {
		if ctx.Err() != nil {
			return carriers.Label{}, false, err
		}
		log.WarnContext(ctx, "purchase resumed: the carrier could not say what an earlier attempt bought", slog.Any("error", err))
		return carriers.Label{}, false, lookupFailed(err)
	}
	if !sold {
		log.InfoContext(ctx, "purchase resumed: the carrier sold nothing under the shipment's reference; buying")
		return carriers.Label{}, false, s.noteRecovery(ctx, row, "", "", "attempt "+fmt.Sprint(prev.Attempts+1)+": nothing sold before; bought")
	}
	if doc, _ := found.Doc(); doc != nil && wholeLabel(req, found) { // pieces.go
		note := fmt.Sprintf("attempt %d: adopted label %s sold to an earlier attempt", prev.Attempts+1, found.TrackingNumber)
		log.WarnContext(ctx, "purchase recovered: adopting the label an earlier attempt bought", slog.String("tracking_number", found.TrackingNumber))
		return found, true, s.noteRecovery(ctx, row, AuditPurchaseAdopted, found.TrackingNumber, note)
	}
	// The carrier sold a label but cannot give its document again (or not
	// every piece's): void it now, so it is not billed, and buy again.
	st, err := carrier.Void(ctx, carriers.VoidRequest{TrackingNumber: found.TrackingNumber,
		CarrierShipmentID: found.CarrierShipmentID, Reference: row.ID})
	switch {
	case err == nil:
		note := fmt.Sprintf("attempt %d: voided label %s sold to an earlier attempt (%s; its document cannot be fetched again) and bought again",
			prev.Attempts+1, found.TrackingNumber, st)
		log.WarnContext(ctx, "purchase recovered: voided the label an earlier attempt bought, buying again",
			slog.String("orphan_tracking_number", found.TrackingNumber), slog.String("void", string(st)))
		return carriers.Label{}, false, s.noteRecovery(ctx, row, AuditPurchaseOrphanVoided, found.TrackingNumber, note)
	case errors.Is(err, carriers.ErrRejected):
		note := fmt.Sprintf("attempt %d: label %s sold to an earlier attempt could not be voided (%s): settle it with the carrier; bought again",
			prev.Attempts+1, found.TrackingNumber, err)
		log.ErrorContext(ctx, "purchase recovered: the carrier refused to void the label an earlier attempt bought; settle it with the carrier",
			slog.String("orphan_tracking_number", found.TrackingNumber), slog.Any("error", err))
		return carriers.Label{}, false, s.noteRecovery(ctx, row, AuditPurchaseOrphanKept, found.TrackingNumber, note)
	default:
		// Unavailable or failing: the next attempt finds the label again.
		log.WarnContext(ctx, "purchase resumed: could not void the label an earlier attempt bought; will ask again",
			slog.String("orphan_tracking_number", found.TrackingNumber), slog.Any("error", err))
		return carriers.Label{}, false, lookupFailed(fmt.Errorf("void %s: %w", found.TrackingNumber, err))
	}
}

// noteRecovery keeps what a rescued attempt found with the attempt record
// and, for a label sold (action not ""), in the account's audit log.
func (s *Service) noteRecovery(ctx context.Context, row store.Shipment, action, trackingNumber, note string) error {
	return s.store.Tx(ctx, func(tx *store.Tx) error {
		if err := tx.RecordPurchaseRecovery(ctx, row.ID, note); err != nil {
			return err
		}
		if action == "" {
			return nil
		}
		return tx.InsertAudit(ctx, &store.AuditEntry{AccountID: row.AccountID, Mode: row.Mode, Actor: shipping.AuditActor,
			Action: action, Target: row.ID + " " + trackingNumber, CreatedAt: s.now()})
	})
}

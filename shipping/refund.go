package shipping

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/riverqueue/river"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/store"
	"github.com/shipd-dev/shipd/webhooks"
)

// When a label may be refunded: only when purchased and not yet scanned by
// the carrier (CanRefundLabel gives the reason otherwise). Refund moves it to void_requested and queues the
// void job in one transaction; the void job asks the carrier:
//
//   - confirmed: in one transaction the label becomes voided, the whole price
//     is credited to the balance and shipment.voided is recorded, once;
//   - requested (the carrier settles refunds later, USPS): the label stays
//     void_requested and the job asks again once a day, for VoidRecheckDays;
//   - refused (outside the void window, already scanned), or still
//     unavailable after the job's attempts: the label is purchased again, with
//     the carrier's reason in errorMessage, shipment.void_rejected is
//     recorded, and tracking goes on.

// voidArgs voids a shipment's label with the carrier.
type voidArgs struct {
	ShipmentID string `json:"shipment_id"`
	// Recheck counts the days a void the carrier only accepted was asked about again.
	Recheck int `json:"recheck,omitempty"`
}

func (voidArgs) Kind() string { return "refund_label" }

// InsertOpts makes each recheck unique, so a retried insert never doubles one.
func (voidArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// A void the carrier has only accepted (VoidRequested) is asked about again
// every VoidRecheckInterval, VoidRecheckDays times; after that the label stays
// void_requested and the operator settles it with the carrier.
const (
	VoidRecheckInterval = 24 * time.Hour
	VoidRecheckDays     = 30
)

type voidWorker struct {
	river.WorkerDefaults[voidArgs]
	s *Service
}

func (w *voidWorker) NextRetry(job *river.Job[voidArgs]) time.Time {
	return w.s.jobNow().Add(RetryDelay(w.s.cfg.PurchaseRetryBase, job.Attempt))
}

func (w *voidWorker) Work(ctx context.Context, job *river.Job[voidArgs]) error {
	s := w.s
	row, err := s.store.ShipmentByID(ctx, job.Args.ShipmentID)
	if err != nil {
		return err
	}
	if _, ok := Status(row.Status).Next(VoidConfirmed); !ok {
		return nil
	}
	carrier, err := s.carrierOf(ctx, row)
	if err != nil {
		return s.rejectVoid(ctx, row.ID, err)
	}
	status, err := carrier.Void(ctx, carriers.VoidRequest{TrackingNumber: deref(row.TrackingNumber),
		CarrierShipmentID: deref(row.CarrierShipmentID), Reference: row.ID, Pieces: pieceNumbers(row.Packages)})
	switch {
	case err != nil && ctx.Err() != nil:
		return err
	case errors.Is(err, carriers.ErrRejected) || err != nil && job.Attempt >= job.MaxAttempts:
		return s.rejectVoid(ctx, row.ID, err)
	case err != nil:
		s.observer().RefundFinished(row.Carrier, RefundOutcomeError)
		return fmt.Errorf("void: %w", err)
	case status == carriers.VoidRequested:
		s.log.InfoContext(ctx, "void accepted by the carrier, not yet confirmed", slog.String("shipment_id", row.ID), slog.Int("recheck", job.Args.Recheck))
		if job.Args.Recheck >= VoidRecheckDays {
			s.observer().RefundFinished(row.Carrier, RefundOutcomeRequested)
			return nil
		}
		err := s.store.Tx(ctx, func(tx *store.Tx) error {
			return tx.Enqueue(ctx, river.InsertManyParams{Args: voidArgs{ShipmentID: row.ID, Recheck: job.Args.Recheck + 1},
				InsertOpts: &river.InsertOpts{ScheduledAt: s.jobNow().Add(VoidRecheckInterval)}})
		})
		if err == nil {
			s.observer().RefundFinished(row.Carrier, RefundOutcomeRequested)
		}
		return err
	}
	voided := false
	err = s.store.Tx(ctx, func(tx *store.Tx) error {
		row, err := tx.LockShipment(ctx, row.ID)
		if err != nil {
			return err
		}
		to, ok := Status(row.Status).Next(VoidConfirmed)
		if !ok {
			return nil
		}
		voided = true
		now := s.now()
		row.Status, row.UpdatedAt, row.VoidedAt = string(to), now, &now
		if err := tx.UpdateShipment(ctx, &row); err != nil {
			return err
		}
		if err := s.credit(ctx, tx, row, now); err != nil {
			return err
		}
		return s.record(ctx, tx, row, webhooks.EventShipmentVoided)
	})
	if err == nil && voided {
		s.observer().RefundFinished(row.Carrier, RefundOutcomeVoided)
	}
	return err
}

// rejectVoid returns a label whose void the carrier refused to purchased, with the reason.
func (s *Service) rejectVoid(ctx context.Context, id string, cause error) error {
	rejected := ""
	err := s.store.Tx(ctx, func(tx *store.Tx) error {
		row, err := tx.LockShipment(ctx, id)
		if err != nil {
			return err
		}
		to, ok := Status(row.Status).Next(VoidRejected)
		if !ok {
			return nil
		}
		rejected = row.Carrier
		msg := "void rejected by the carrier: " + cause.Error()
		row.Status, row.UpdatedAt, row.ErrorMessage = string(to), s.now(), &msg
		if err := tx.UpdateShipment(ctx, &row); err != nil {
			return err
		}
		return s.record(ctx, tx, row, webhooks.EventShipmentVoidRejected)
	})
	if err == nil && rejected != "" {
		s.observer().RefundFinished(rejected, RefundOutcomeRejected)
	}
	return err
}

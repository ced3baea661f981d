package labeljobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/riverqueue/river"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/shipping"
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

// A void the carrier has only accepted (VoidRequested) is asked about again
// every VoidRecheckInterval, VoidRecheckDays times; after that the label stays
// void_requested and the operator settles it with the carrier.
const (
	VoidRecheckInterval = 24 * time.Hour
	VoidRecheckDays     = 30
)

type voidWorker struct {
	river.WorkerDefaults[shipping.VoidArgs]
	s *Service
}

func (w *voidWorker) NextRetry(job *river.Job[shipping.VoidArgs]) time.Time {
	return w.s.jobNow().Add(shipping.RetryDelay(w.s.cfg.PurchaseRetryBase, job.Attempt))
}

func (w *voidWorker) Work(ctx context.Context, job *river.Job[shipping.VoidArgs]) error {
	s := w.s
	row, err := s.store.ShipmentByID(ctx, job.Args.ShipmentID)
	if err != nil {
		return err
	}
	if _, ok := shipping.Status(row.Status).Next(shipping.VoidConfirmed); !ok {
		return nil
	}
	carrier, err := s.ship.CarrierOf(ctx, row)
	if err != nil {
		return s.rejectVoid(ctx, row.ID, err)
	}
	status, err := carrier.Void(ctx, carriers.VoidRequest{TrackingNumber: deref(row.TrackingNumber),
		CarrierShipmentID: deref(row.CarrierShipmentID), Reference: row.ID, Pieces: shipping.PieceNumbers(row.Packages)})
	switch {
	case err != nil && ctx.Err() != nil:
		return err
	case errors.Is(err, carriers.ErrRejected) || err != nil && job.Attempt >= job.MaxAttempts:
		return s.rejectVoid(ctx, row.ID, err)
	case err != nil:
		s.ship.Observer().RefundFinished(row.Carrier, shipping.RefundOutcomeError)
		return fmt.Errorf("void: %w", err)
	case status == carriers.VoidRequested:
		s.log.InfoContext(ctx, "void accepted by the carrier, not yet confirmed", slog.String("shipment_id", row.ID), slog.Int("recheck", job.Args.Recheck))
		if job.Args.Recheck >= VoidRecheckDays {
			s.ship.Observer().RefundFinished(row.Carrier, shipping.RefundOutcomeRequested)
			return nil
		}
		err := s.store.Tx(ctx, func(tx *store.Tx) error {
			return tx.Enqueue(ctx, river.InsertManyParams{Args: shipping.VoidArgs{ShipmentID: row.ID, Recheck: job.Args.Recheck + 1},
				InsertOpts: &river.InsertOpts{ScheduledAt: s.jobNow().Add(VoidRecheckInterval)}})
		})
		if err == nil {
			s.ship.Observer().RefundFinished(row.Carrier, shipping.RefundOutcomeRequested)
		}
		return err
	}
	voided := false
	err = s.store.Tx(ctx, func(tx *store.Tx) error {
		row, err := tx.LockShipment(ctx, row.ID)
		if err != nil {
			return err
		}
		to, ok := shipping.Status(row.Status).Next(shipping.VoidConfirmed)
		if !ok {
			return nil
		}
		voided = true
		now := s.now()
		row.Status, row.UpdatedAt, row.VoidedAt = string(to), now, &now
		if err := tx.UpdateShipment(ctx, &row); err != nil {
			return err
		}
		if err := s.ship.Credit(ctx, tx, row, now); err != nil {
			return err
		}
		return s.ship.Record(ctx, tx, row, webhooks.EventShipmentVoided)
	})
	if err == nil && voided {
		s.ship.Observer().RefundFinished(row.Carrier, shipping.RefundOutcomeVoided)
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
		to, ok := shipping.Status(row.Status).Next(shipping.VoidRejected)
		if !ok {
			return nil
		}
		rejected = row.Carrier
		msg := "void rejected by the carrier: " + cause.Error()
		row.Status, row.UpdatedAt, row.ErrorMessage = string(to), s.now(), &msg
		if err := tx.UpdateShipment(ctx, &row); err != nil {
			return err
		}
		return s.ship.Record(ctx, tx, row, webhooks.EventShipmentVoidRejected)
	})
	if err == nil && rejected != "" {
		s.ship.Observer().RefundFinished(rejected, shipping.RefundOutcomeRejected)
	}
	return err
}

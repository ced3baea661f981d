package carriers

import (
	"context"
	"errors"
	"time"
)

// Carrier operations of pickups, as an Observe function is told them.
const (
	OpSchedulePickup = "schedule_pickup"
	OpCancelPickup   = "cancel_pickup"
)

// ErrPickupsNotSupported means the carrier has no pickup API here.
var ErrPickupsNotSupported = errors.New("this carrier cannot schedule pickups")

// PickupRequest asks a carrier to collect packages at an address.
type PickupRequest struct {
	// Reference is the shipd pickup id. A carrier that takes a reference
	// (or a key) gets it, so that a retried schedule can be told apart.
	Reference string
	Address   Address
	// ReadyAt and CloseAt are in the pickup address's offset, as given: the
	// carriers take a local date and local times.
	ReadyAt, CloseAt time.Time
	PackageCount     int
	// TotalWeightOz is 0 when not given.
	TotalWeightOz float64
	Instructions  string
	// TrackingNumbers are the labels collected, when the caller named them.
	TrackingNumbers []string
}

// PickupConfirmation is a carrier's answer to a scheduled pickup.
type PickupConfirmation struct {
	ConfirmationNumber string
	// Location is the carrier's own location code where it gives one
	// (FedEx), needed again to cancel.
	Location string
}

// PickupCancelRequest asks a carrier to cancel a pickup it confirmed.
type PickupCancelRequest struct {
	Reference          string
	ConfirmationNumber string
	Location           string
	Address            Address
	ReadyAt            time.Time
	Instructions       string
}

// PickupScheduler is a carrier that schedules and cancels pickups. Errors
// wrap ErrRejected when the carrier refuses (no service at that address,
// a window too short) and ErrUnavailable when it cannot answer now.
type PickupScheduler interface {
	SchedulePickup(ctx context.Context, req PickupRequest) (PickupConfirmation, error)
	CancelPickup(ctx context.Context, req PickupCancelRequest) error
}

// SchedulesPickups reports whether c, through its wrappers, schedules pickups.
func SchedulesPickups(c Carrier) bool {
	for c != nil {
		if w, ok := c.(*wrapped); ok {
			c = w.c
			continue
		}
		if b, ok := c.(*batched); ok {
			c = b.batchCarrier
			continue
		}
		if u, ok := c.(interface{ Unwrap() Carrier }); ok {
			c = u.Unwrap()
			continue
		}
		_, ok := c.(PickupScheduler)
		return ok
	}
	return false
}

// SchedulePickup makes every wrapped carrier a PickupScheduler: it forwards
// to the carrier's own, observed and limited like its other calls, and
// answers ErrPickupsNotSupported for a carrier that has none.
func (w *wrapped) SchedulePickup(ctx context.Context, req PickupRequest) (pc PickupConfirmation, err error) {
	p, ok := w.c.(PickupScheduler)
	if !ok {
		return PickupConfirmation{}, ErrPickupsNotSupported
	}
	err = w.around(ctx, OpSchedulePickup, func(ctx context.Context) error {
		pc, err = p.SchedulePickup(ctx, req)
		return err
	})
	return pc, err
}

// CancelPickup forwards as SchedulePickup does.
func (w *wrapped) CancelPickup(ctx context.Context, req PickupCancelRequest) error {
	p, ok := w.c.(PickupScheduler)
	if !ok {
		return ErrPickupsNotSupported
	}
	return w.around(ctx, OpCancelPickup, func(ctx context.Context) error {
		return p.CancelPickup(ctx, req)
	})
}

// SchedulePickup keeps a batching carrier a PickupScheduler.
func (b *batched) SchedulePickup(ctx context.Context, req PickupRequest) (PickupConfirmation, error) {
	p, ok := b.batchCarrier.(PickupScheduler)
	if !ok {
		return PickupConfirmation{}, ErrPickupsNotSupported
	}
	return p.SchedulePickup(ctx, req)
}

// CancelPickup keeps a batching carrier a PickupScheduler.
func (b *batched) CancelPickup(ctx context.Context, req PickupCancelRequest) error {
	p, ok := b.batchCarrier.(PickupScheduler)
	if !ok {
		return ErrPickupsNotSupported
	}
	return p.CancelPickup(ctx, req)
}

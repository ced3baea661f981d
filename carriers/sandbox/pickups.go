package sandbox

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"net/http"
	"time"

	"github.com/shipd-dev/shipd/carriers"
)

// Pickup triggers: typed as a pickup's instructions (POST /pickups).
const (
	TriggerPickupRejected    = "Pickup Rejected"
	TriggerPickupUnavailable = "Pickup Unavailable"
	TriggerPickupError       = "Pickup Error"
	TriggerCancelRejected    = "Cancel Rejected"
	TriggerCancelUnavailable = "Cancel Unavailable"
	TriggerCancelError       = "Cancel Error"
)

// SchedulePickup confirms a pickup with a number derived from its
// reference (a retried schedule gets the same number), and refuses what a
// carrier refuses: a Sunday, or a window that closes before it opens (the
// API checks both first; the sandbox answers for itself as a carrier does).
func (c *carrier) SchedulePickup(ctx context.Context, req carriers.PickupRequest) (carriers.PickupConfirmation, error) {
	if err := ctx.Err(); err != nil {
		return carriers.PickupConfirmation{}, err
	}
	switch {
	case matches(req.Instructions, TriggerPickupRejected):
		return carriers.PickupConfirmation{}, c.pickupError("schedule", 0, "no pickup service at this address (trigger: instructions '"+TriggerPickupRejected+"')", carriers.ErrRejected)
	case matches(req.Instructions, TriggerPickupUnavailable):
		return carriers.PickupConfirmation{}, c.pickupError("schedule", 30*time.Second, "pickup scheduling is temporarily unavailable (trigger: instructions '"+TriggerPickupUnavailable+"')", carriers.ErrUnavailable)
	case matches(req.Instructions, TriggerPickupError):
		return carriers.PickupConfirmation{}, c.pickupError("schedule", 0, "pickup scheduling failed (trigger: instructions '"+TriggerPickupError+"')", carriers.ErrFailed)
	case req.ReadyAt.Weekday() == time.Sunday:
		return carriers.PickupConfirmation{}, c.pickupError("schedule", 0, "no pickups on Sundays", carriers.ErrRejected)
	case !req.CloseAt.After(req.ReadyAt):
		return carriers.PickupConfirmation{}, c.pickupError("schedule", 0, "the close time must be after the ready time", carriers.ErrRejected)
	}
	sum := sha256.Sum256([]byte(c.name + "\x00pickup\x00" + req.Reference))
	n := binary.BigEndian.Uint64(sum[:8]) % 1e8
	prefix := c.t.PickupPrefix
	if prefix == "" {
		prefix = "SBX"
	}
	return carriers.PickupConfirmation{ConfirmationNumber: fmt.Sprintf("%s%08d", prefix, n), Location: c.t.PickupLocation}, nil
}

// CancelPickup cancels any pickup, unless its instructions name a cancel trigger.
func (c *carrier) CancelPickup(ctx context.Context, req carriers.PickupCancelRequest) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	switch {
	case matches(req.Instructions, TriggerCancelRejected):
		return c.pickupError("cancel", 0, "the driver is already on the way (trigger: instructions '"+TriggerCancelRejected+"')", carriers.ErrRejected)
	case matches(req.Instructions, TriggerCancelUnavailable):
		return c.pickupError("cancel", 30*time.Second, "pickup cancellation is temporarily unavailable (trigger: instructions '"+TriggerCancelUnavailable+"')", carriers.ErrUnavailable)
	case matches(req.Instructions, TriggerCancelError):
		return c.pickupError("cancel", 0, "pickup cancellation failed (trigger: instructions '"+TriggerCancelError+"')", carriers.ErrFailed)
	}
	return nil
}

// pickupError is the sandbox's answer as a live carrier's would be: with
// the HTTP status that carries it (a refusal 400, an outage 503, a failure 500).
func (c *carrier) pickupError(op string, retryAfter time.Duration, msg string, kind error) error {
	status := http.StatusInternalServerError
	switch kind {
	case carriers.ErrRejected:
		status = http.StatusBadRequest
	case carriers.ErrUnavailable:
		status = http.StatusServiceUnavailable
	}
	return &carriers.Error{Carrier: c.name, Operation: op + "_pickup", HTTPStatus: status, Message: "sandbox: " + msg, RetryAfter: retryAfter, Kind: kind}
}

// FindPickup is the sandbox UPS's pickup lookup, as UPS's Pickup Pending
// Status is the live one: the sandbox books every pickup it confirms, with
// a number derived from the reference, so the pickup found is the one a
// schedule confirms (none for one it refuses or fails); like UPS, it lists
// the pickups of today and tomorrow only. The sandbox USPS and FedEx, like
// theirs, cannot look pickups up: a lost schedule is not booked again in
// test mode either.
func (c *carrier) FindPickup(ctx context.Context, req carriers.PickupRequest) (carriers.PickupConfirmation, bool, error) {
	if !c.Capabilities().Has(carriers.CapFindPickup) {
		return carriers.Unsupported{}.FindPickup(ctx, req)
	}
	day := req.ReadyAt.Format(time.DateOnly)
	if tomorrow := c.cfg.Now().In(req.ReadyAt.Location()).AddDate(0, 0, 1).Format(time.DateOnly); day > tomorrow {
		return carriers.PickupConfirmation{}, false, fmt.Errorf("sandbox: the pickup is on %s, and %s lists the pending pickups of today and tomorrow only: %w",
			day, c.name, carriers.ErrNoPickupLookup)
	}
	pc, err := c.SchedulePickup(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			return carriers.PickupConfirmation{}, false, err
		}
		return carriers.PickupConfirmation{}, false, nil
	}
	return pc, true, nil
}

package store

import (
	"context"
	"time"

	"github.com/shipd-dev/shipd/paging"
)

// Pickup is a carrier's visit to collect packages. Address and ShipmentIDs
// are JSON; ReadyAt and CloseAt RFC 3339 text in the offset given.
type Pickup struct {
	Seq                int64      `db:"seq"`
	ID                 string     `db:"id"`
	AccountID          string     `db:"account_id"`
	Mode               string     `db:"mode"`
	Carrier            string     `db:"carrier"`
	Status             string     `db:"status"`
	ConfirmationNumber *string    `db:"confirmation_number"`
	CarrierLocation    string     `db:"carrier_location"`
	Address            string     `db:"address"`
	ReadyAt            string     `db:"ready_at"`
	CloseAt            string     `db:"close_at"`
	PackageCount       int        `db:"package_count"`
	TotalWeightOz      *float64   `db:"total_weight_oz"`
	Instructions       string     `db:"instructions"`
	ShipmentIDs        string     `db:"shipment_ids"`
	IdempotencyKey     *string    `db:"idempotency_key"`
	CreatedAt          time.Time  `db:"created_at"`
	UpdatedAt          time.Time  `db:"updated_at"`
	CancelledAt        *time.Time `db:"cancelled_at"`
	// CarrierAccountID is the carrier account that booked the pickup, and
	// cancels it; nil: the operator's carriers (or the sandbox).
	CarrierAccountID *string `db:"carrier_account_id"`
}

const pickupColumns = `seq, id, account_id, mode, carrier, status, confirmation_number, carrier_location, address, ready_at, close_at,
	package_count, total_weight_oz, instructions, shipment_ids, idempotency_key, created_at, updated_at, cancelled_at, carrier_account_id`

// InsertPickup stores a new pickup.
func (t *Tx) InsertPickup(ctx context.Context, p *Pickup) error {
	seq, err := t.insertSeq(ctx, `INSERT INTO pickups (id, account_id, mode, carrier, status, confirmation_number, carrier_location,
		address, ready_at, close_at, package_count, total_weight_oz, instructions, shipment_ids, idempotency_key, created_at, updated_at, carrier_account_id)
		VALUES (:id, :account_id, :mode, :carrier, :status, :confirmation_number, :carrier_location,
		:address, :ready_at, :close_at, :package_count, :total_weight_oz, :instructions, :shipment_ids, :idempotency_key, :created_at, :updated_at, :carrier_account_id)
		RETURNING seq`, p)
	p.Seq = seq
	return err
}

// Pickup reads a pickup of an account, in either mode (callers check the mode).
func (r reader) Pickup(ctx context.Context, accountID, id string) (Pickup, error) {
	var p Pickup
	err := r.get(ctx, &p, `SELECT `+pickupColumns+` FROM pickups WHERE account_id = ? AND id = ?`, accountID, id)
	return p, err
}

// RequestingPickupByKey reads the pickup an earlier request under the same
// idempotency key left 'requesting' (its server stopped before recording the
// carrier's answer); ErrNotFound when there is none.
func (r reader) RequestingPickupByKey(ctx context.Context, accountID, mode, key string) (Pickup, error) {
	var p Pickup
	err := r.get(ctx, &p, `SELECT `+pickupColumns+` FROM pickups
		WHERE account_id = ? AND mode = ? AND idempotency_key = ? AND status = 'requesting' ORDER BY seq DESC LIMIT 1`, accountID, mode, key)
	return p, err
}

// ListPickups pages through an account's pickups in one mode, newest first.
func (r reader) ListPickups(ctx context.Context, accountID, mode string, p paging.Request) ([]Pickup, bool, error) {
	return modePage[Pickup](ctx, r, p, "pickups", pickupColumns, "", accountID, mode)
}

// LockPickup reads a pickup for update.
func (t *Tx) LockPickup(ctx context.Context, id string) (Pickup, error) {
	var p Pickup
	err := t.get(ctx, &p, `SELECT `+pickupColumns+` FROM pickups WHERE id = ?`+t.forUpdate(), id)
	return p, err
}

// ConfirmPickup records the carrier's confirmation of a 'requesting'
// pickup; ErrNotFound when it is no longer requesting.
func (t *Tx) ConfirmPickup(ctx context.Context, id, confirmation, location string, now time.Time) error {
	return t.execOne(ctx, `UPDATE pickups SET status = 'scheduled', confirmation_number = ?, carrier_location = ?, updated_at = ?
		WHERE id = ? AND status = 'requesting'`, confirmation, location, now, id)
}

// DeletePickup deletes a pickup the carrier did not schedule.
func (t *Tx) DeletePickup(ctx context.Context, id string) error {
	return t.execOne(ctx, `DELETE FROM pickups WHERE id = ? AND status = 'requesting'`, id)
}

// CancelPickup marks a scheduled pickup cancelled; ErrNotFound when it is
// no longer scheduled (cancelled meanwhile).
func (t *Tx) CancelPickup(ctx context.Context, id string, now time.Time) error {
	return t.execOne(ctx, `UPDATE pickups SET status = 'cancelled', cancelled_at = ?, updated_at = ?
		WHERE id = ? AND status = 'scheduled'`, now, now, id)
}

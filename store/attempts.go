package store

import (
	"context"
	"time"
)

// PurchaseAttempt is the record of a shipment's purchase attempts: how many
// were started, when the last one started, and what the last rescue of an
// attempt found at the carrier (Recovery, "" before any).
type PurchaseAttempt struct {
	ShipmentID string    `db:"shipment_id"`
	Attempts   int       `db:"attempts"`
	StartedAt  time.Time `db:"started_at"`
	Recovery   string    `db:"recovery"`
}

// StartPurchaseAttempt records that an attempt to buy the shipment's label
// starts now and returns the record as it was before (Attempts 0 when this
// is the first). It is meant to commit before the carrier is called, so an
// attempt the process did not live to finish is seen by the next one.
func (t *Tx) StartPurchaseAttempt(ctx context.Context, shipmentID string, now time.Time) (PurchaseAttempt, error) {
	prev := PurchaseAttempt{ShipmentID: shipmentID}
	var rows []PurchaseAttempt
	if err := t.sel(ctx, &rows, `SELECT shipment_id, attempts, started_at, recovery FROM purchase_attempts
		WHERE shipment_id = ?`+t.forUpdate(), shipmentID); err != nil {
		return prev, err
	}
	if len(rows) > 0 {
		prev = rows[0]
	}
	_, err := t.exec(ctx, `INSERT INTO purchase_attempts (shipment_id, attempts, started_at) VALUES (?, 1, ?)
		ON CONFLICT (shipment_id) DO UPDATE SET attempts = purchase_attempts.attempts + 1, started_at = excluded.started_at`,
		shipmentID, now.UTC())
	return prev, err
}

// RecordPurchaseRecovery keeps what the rescue of an interrupted attempt
// found at the carrier and did about it.
func (t *Tx) RecordPurchaseRecovery(ctx context.Context, shipmentID, recovery string) error {
	_, err := t.exec(ctx, `UPDATE purchase_attempts SET recovery = ? WHERE shipment_id = ?`, recovery, shipmentID)
	return err
}

// PurchaseAttempt reads a shipment's attempt record; Attempts 0 when none was started.
func (r reader) PurchaseAttempt(ctx context.Context, shipmentID string) (PurchaseAttempt, error) {
	var rows []PurchaseAttempt
	err := r.sel(ctx, &rows, `SELECT shipment_id, attempts, started_at, recovery FROM purchase_attempts
		WHERE shipment_id = ?`, shipmentID)
	if err != nil || len(rows) == 0 {
		return PurchaseAttempt{ShipmentID: shipmentID}, err
	}
	return rows[0], nil
}

package store

import (
	"context"
	"time"

	"github.com/jmoiron/sqlx"
)

// Tracker follows one purchased label; Plan is the carrier's scan schedule (JSON).
type Tracker struct {
	ID                  string     `db:"id"`
	AccountID           string     `db:"account_id"`
	Mode                string     `db:"mode"`
	ShipmentID          string     `db:"shipment_id"`
	Carrier             string     `db:"carrier"`
	TrackingNumber      string     `db:"tracking_number"`
	Status              string     `db:"status"`
	EstimatedDeliveryAt *time.Time `db:"estimated_delivery_at"`
	Plan                string     `db:"plan"`
	CreatedAt           time.Time  `db:"created_at"`
	UpdatedAt           time.Time  `db:"updated_at"`
}

// TrackingEvent is one carrier scan.
type TrackingEvent struct {
	Seq        int64     `db:"seq"`
	TrackerID  string    `db:"tracker_id"`
	ScanIndex  int       `db:"scan_index"`
	Status     string    `db:"status"`
	Message    string    `db:"message"`
	Location   string    `db:"location"`
	OccurredAt time.Time `db:"occurred_at"`
}

const trackerColumns = `id, account_id, mode, shipment_id, carrier, tracking_number, status, estimated_delivery_at, plan, created_at, updated_at`

// InsertTracker stores a tracker.
func InsertTracker(ctx context.Context, tx *sqlx.Tx, t *Tracker) error {
	_, err := tx.NamedExecContext(ctx, `INSERT INTO trackers (`+trackerColumns+`)
		VALUES (:id, :account_id, :mode, :shipment_id, :carrier, :tracking_number, :status, :estimated_delivery_at, :plan, :created_at, :updated_at)`, t)
	return err
}

// UpdateTrackerStatus sets a tracker's status.
func UpdateTrackerStatus(ctx context.Context, tx *sqlx.Tx, id, status string, now time.Time) error {
	_, err := tx.ExecContext(ctx, `UPDATE trackers SET status = ?, updated_at = ? WHERE id = ?`, status, now, id)
	return err
}

// GetTracker reads a tracker of an account, in either mode.
func GetTracker(ctx context.Context, q sqlx.QueryerContext, accountID, id string) (Tracker, error) {
	var t Tracker
	err := sqlx.GetContext(ctx, q, &t, `SELECT `+trackerColumns+` FROM trackers WHERE account_id = ? AND id = ?`, accountID, id)
	return t, notFound(err)
}

// TrackerByID reads a tracker by id alone, for background jobs.
func TrackerByID(ctx context.Context, q sqlx.QueryerContext, id string) (Tracker, error) {
	var t Tracker
	err := sqlx.GetContext(ctx, q, &t, `SELECT `+trackerColumns+` FROM trackers WHERE id = ?`, id)
	return t, notFound(err)
}

// InsertTrackingEvent records a scan; false when that scan was already recorded.
func InsertTrackingEvent(ctx context.Context, tx *sqlx.Tx, e *TrackingEvent) (bool, error) {
	res, err := tx.NamedExecContext(ctx, `INSERT INTO tracking_events (tracker_id, scan_index, status, message, location, occurred_at)
		VALUES (:tracker_id, :scan_index, :status, :message, :location, :occurred_at) ON CONFLICT (tracker_id, scan_index) DO NOTHING`, e)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// TrackingEvents returns a tracker's latest scans, newest first, at most limit.
func TrackingEvents(ctx context.Context, q sqlx.QueryerContext, trackerID string, limit int) ([]TrackingEvent, error) {
	var evs []TrackingEvent
	err := sqlx.SelectContext(ctx, q, &evs, `SELECT seq, tracker_id, scan_index, status, message, location, occurred_at
		FROM tracking_events WHERE tracker_id = ? ORDER BY scan_index DESC LIMIT ?`, trackerID, limit)
	return evs, err
}

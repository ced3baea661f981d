package store

import (
	"context"
	"time"
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
func (t *Tx) InsertTracker(ctx context.Context, tr *Tracker) error {
	_, err := t.tx.NamedExecContext(ctx, `INSERT INTO trackers (`+trackerColumns+`)
		VALUES (:id, :account_id, :mode, :shipment_id, :carrier, :tracking_number, :status, :estimated_delivery_at, :plan, :created_at, :updated_at)`, tr)
	return err
}

// UpdateTrackerStatus sets a tracker's status.
func (t *Tx) UpdateTrackerStatus(ctx context.Context, id, status string, now time.Time) error {
	_, err := t.exec(ctx, `UPDATE trackers SET status = ?, updated_at = ? WHERE id = ?`, status, now, id)
	return err
}

// UpdateTrackerEstimate sets a tracker's estimated delivery.
func (t *Tx) UpdateTrackerEstimate(ctx context.Context, id string, eta time.Time, now time.Time) error {
	_, err := t.exec(ctx, `UPDATE trackers SET estimated_delivery_at = ?, updated_at = ? WHERE id = ?`, eta.UTC(), now, id)
	return err
}

// Tracker reads a tracker of an account, in either mode.
func (r reader) Tracker(ctx context.Context, accountID, id string) (Tracker, error) {
	var t Tracker
	err := r.get(ctx, &t, `SELECT `+trackerColumns+` FROM trackers WHERE account_id = ? AND id = ?`, accountID, id)
	return t, err
}

// TrackerByID reads a tracker by id alone, for background jobs.
func (r reader) TrackerByID(ctx context.Context, id string) (Tracker, error) {
	var t Tracker
	err := r.get(ctx, &t, `SELECT `+trackerColumns+` FROM trackers WHERE id = ?`, id)
	return t, err
}

// InsertTrackingEvent records a scan; false when that scan was already recorded.
func (t *Tx) InsertTrackingEvent(ctx context.Context, e *TrackingEvent) (bool, error) {
	t.touch(detailKey{scansDetail, e.TrackerID})
	res, err := t.tx.NamedExecContext(ctx, `INSERT INTO tracking_events (tracker_id, scan_index, status, message, location, occurred_at)
		VALUES (:tracker_id, :scan_index, :status, :message, :location, :occurred_at) ON CONFLICT (tracker_id, scan_index) DO NOTHING`, e)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// TrackingEvents returns a tracker's latest scans, newest first, at most limit.
func (r reader) TrackingEvents(ctx context.Context, trackerID string, limit int) ([]TrackingEvent, error) {
	var evs []TrackingEvent
	err := r.sel(ctx, &evs, `SELECT seq, tracker_id, scan_index, status, message, location, occurred_at
		FROM tracking_events WHERE tracker_id = ? ORDER BY scan_index DESC LIMIT ?`, trackerID, limit)
	return evs, err
}

package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/shipd-dev/shipd/paging"
)

// Tracker follows one purchased label, or any package (ShipmentID nil: a
// standalone tracker); Plan is the carrier's scan schedule (JSON).
type Tracker struct {
	Seq        int64   `db:"seq"`
	ID         string  `db:"id"`
	AccountID  string  `db:"account_id"`
	Mode       string  `db:"mode"`
	ShipmentID *string `db:"shipment_id"`
	// CarrierAccountID is the carrier account a standalone tracker asks
	// through; nil: the operator's carriers (or the sandbox).
	CarrierAccountID    *string    `db:"carrier_account_id"`
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
	// TrackingNumber is the piece a scan is of (multi-piece), nil for the
	// shipment as a whole.
	TrackingNumber *string `db:"tracking_number"`
}

const trackerColumns = `seq, id, account_id, mode, shipment_id, carrier_account_id, carrier, tracking_number, status, estimated_delivery_at, plan, created_at, updated_at`

const trackerInsert = `INSERT INTO trackers (id, account_id, mode, shipment_id, carrier_account_id, carrier, tracking_number, status, estimated_delivery_at, plan, created_at, updated_at)
		VALUES (:id, :account_id, :mode, :shipment_id, :carrier_account_id, :carrier, :tracking_number, :status, :estimated_delivery_at, :plan, :created_at, :updated_at)`

// InsertTracker stores a tracker.
func (t *Tx) InsertTracker(ctx context.Context, tr *Tracker) error {
	seq, err := t.insertSeq(ctx, trackerInsert+` RETURNING seq`, tr)
	tr.Seq = seq
	return err
}

// InsertStandaloneTracker stores a tracker without a shipment unless the
// account already has one of that carrier and number in that mode: the
// unique index decides, so two inserts at once store one. inserted says
// whether tr was stored; when not, the caller reads the one that was.
func (t *Tx) InsertStandaloneTracker(ctx context.Context, tr *Tracker) (inserted bool, err error) {
	if tr.ShipmentID != nil {
		return false, errors.New("insert standalone tracker: it has a shipment")
	}
	seq, err := t.insertSeq(ctx, trackerInsert+`
		ON CONFLICT (account_id, mode, carrier, tracking_number) WHERE shipment_id IS NULL DO NOTHING RETURNING seq`, tr)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("insert tracker: %w", err)
	}
	tr.Seq = seq
	return true, nil
}

// TrackerByNumber reads the tracker of a carrier's number in an account and
// mode: the standalone one if there is one, else the newest label's.
func (r reader) TrackerByNumber(ctx context.Context, accountID, mode, carrier, number string) (Tracker, error) {
	var t Tracker
	err := r.get(ctx, &t, `SELECT `+trackerColumns+` FROM trackers
		WHERE account_id = ? AND mode = ? AND tracking_number = ? AND carrier = ?
		ORDER BY CASE WHEN shipment_id IS NULL THEN 0 ELSE 1 END, seq DESC LIMIT 1`, accountID, mode, number, carrier)
	return t, err
}

// ListTrackers pages through an account's trackers in one mode, standalone
// and of labels, newest first, optionally in one status.
func (r reader) ListTrackers(ctx context.Context, accountID, mode, status string, p paging.Request) ([]Tracker, bool, error) {
	before, n, err := r.pageArgs(ctx, p, `SELECT seq FROM trackers WHERE id = ? AND account_id = ? AND mode = ?`, accountID, mode)
	if err != nil {
		return nil, false, err
	}
	var rows []Tracker
	if status == "" {
		err = r.sel(ctx, &rows, `SELECT `+trackerColumns+` FROM trackers
			WHERE account_id = ? AND mode = ? AND seq < ? ORDER BY seq DESC LIMIT ?`, accountID, mode, before, n)
	} else {
		err = r.sel(ctx, &rows, `SELECT `+trackerColumns+` FROM trackers
			WHERE account_id = ? AND mode = ? AND status = ? AND seq < ? ORDER BY seq DESC LIMIT ?`, accountID, mode, status, before, n)
	}
	if err != nil {
		return nil, false, err
	}
	rows, more := trimPage(rows, p.Limit)
	return rows, more, nil
}

// DeleteStandaloneTracker deletes a tracker without a shipment and its
// scans; ErrNotFound when there is no such standalone tracker.
func (t *Tx) DeleteStandaloneTracker(ctx context.Context, id string) error {
	t.touch(detailKey{scansDetail, id})
	if _, err := t.exec(ctx, `DELETE FROM tracking_events WHERE tracker_id = (SELECT id FROM trackers WHERE id = ? AND shipment_id IS NULL)`, id); err != nil {
		return err
	}
	return t.execOne(ctx, `DELETE FROM trackers WHERE id = ? AND shipment_id IS NULL`, id)
}

// LockTracker reads a tracker for update, so that a scan and a delete of
// the same tracker take turns.
func (t *Tx) LockTracker(ctx context.Context, id string) (Tracker, error) {
	var tr Tracker
	err := t.get(ctx, &tr, `SELECT `+trackerColumns+` FROM trackers WHERE id = ?`+t.forUpdate(), id)
	return tr, err
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
	res, err := t.tx.NamedExecContext(ctx, `INSERT INTO tracking_events (tracker_id, scan_index, status, message, location, occurred_at, tracking_number)
		VALUES (:tracker_id, :scan_index, :status, :message, :location, :occurred_at, :tracking_number) ON CONFLICT (tracker_id, scan_index) DO NOTHING`, e)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// TrackingEvents returns a tracker's latest scans, newest first, at most limit.
func (r reader) TrackingEvents(ctx context.Context, trackerID string, limit int) ([]TrackingEvent, error) {
	var evs []TrackingEvent
	err := r.sel(ctx, &evs, `SELECT seq, tracker_id, scan_index, status, message, location, occurred_at, tracking_number
		FROM tracking_events WHERE tracker_id = ? ORDER BY scan_index DESC LIMIT ?`, trackerID, limit)
	return evs, err
}

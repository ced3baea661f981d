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
	// EndedAt and EndReason: when and why shipd stopped following a
	// standalone tracker's package (EndTracker); nil while it does.
	EndedAt   *time.Time `db:"ended_at"`
	EndReason *string    `db:"end_reason"`
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

const trackerColumns = `seq, id, account_id, mode, shipment_id, carrier_account_id, carrier, tracking_number, status, estimated_delivery_at, plan, created_at, updated_at, ended_at, end_reason`

const trackerInsert = `INSERT INTO trackers (id, account_id, mode, shipment_id, carrier_account_id, carrier, tracking_number, status, estimated_delivery_at, plan, created_at, updated_at)
		VALUES (:id, :account_id, :mode, :shipment_id, :carrier_account_id, :carrier, :tracking_number, :status, :estimated_delivery_at, :plan, :created_at, :updated_at)`

// InsertTracker stores a tracker.
func (t *Tx) InsertTracker(ctx context.Context, tr *Tracker) error {
	seq, err := t.insertSeq(ctx, trackerInsert+` RETURNING seq`, tr)
	tr.Seq = seq
	return err
}

// ErrActiveTrackersLimit: the account already has as many active
// standalone trackers in the mode as ActiveTrackers allows.
var ErrActiveTrackersLimit = errors.New("the account has its limit of active trackers")

// ActiveTrackers bounds an account's active standalone trackers in a mode:
// those not ended (EndTracker) and made after Since, at most Max of them
// (0: no bound).
type ActiveTrackers struct {
	Max   int
	Since time.Time
}

// InsertStandaloneTracker stores a tracker without a shipment unless the
// account already has one of that carrier and number in that mode: the
// unique index decides, so two inserts at once store one. inserted says
// whether tr was stored; when not, the caller reads the one that was.
func (t *Tx) InsertStandaloneTracker(ctx context.Context, tr *Tracker) (inserted bool, err error) {
	return t.InsertStandaloneTrackerWithin(ctx, tr, ActiveTrackers{})
}

// InsertStandaloneTrackerWithin is InsertStandaloneTracker that also
// refuses a tracker beyond limit: when the account already has limit.Max
// active standalone trackers in the mode, ErrActiveTrackersLimit. The count
// and the insert are one statement, so they see one state of the table
// whatever the backend; on PostgreSQL, where two statements at once each
// see the table without the other's row, the caller holds the account row
// (LockAccount) so that two inserts of one account take turns.
func (t *Tx) InsertStandaloneTrackerWithin(ctx context.Context, tr *Tracker, limit ActiveTrackers) (inserted bool, err error) {
	if tr.ShipmentID != nil {
		return false, errors.New("insert standalone tracker: it has a shipment")
	}
	const onConflict = `
		ON CONFLICT (account_id, mode, carrier, tracking_number) WHERE shipment_id IS NULL DO NOTHING RETURNING seq`
	var seq int64
	if limit.Max <= 0 {
		seq, err = t.insertSeq(ctx, trackerInsert+onConflict, tr)
	} else {
		seq, err = t.insertSeq(ctx, `INSERT INTO trackers (id, account_id, mode, shipment_id, carrier_account_id, carrier, tracking_number, status, estimated_delivery_at, plan, created_at, updated_at)
		SELECT :id, :account_id, :mode, :shipment_id, :carrier_account_id, :carrier, :tracking_number, :status, :estimated_delivery_at, :plan, :created_at, :updated_at
		WHERE (SELECT count(*) FROM trackers WHERE account_id = :account_id AND mode = :mode
			AND shipment_id IS NULL AND ended_at IS NULL AND created_at > :limit_since) < :limit_max`+onConflict,
			struct {
				*Tracker
				Max   int       `db:"limit_max"`
				Since time.Time `db:"limit_since"`
			}{tr, limit.Max, limit.Since.UTC()})
	}
	if errors.Is(err, ErrNotFound) && limit.Max > 0 {
		// The number's tracker, or the limit: the number decides.
		var n int
		if err := t.get(ctx, &n, `SELECT count(*) FROM trackers WHERE account_id = ? AND mode = ? AND carrier = ? AND tracking_number = ?
			AND shipment_id IS NULL`, tr.AccountID, tr.Mode, tr.Carrier, tr.TrackingNumber); err != nil {
			return false, err
		}
		if n == 0 {
			return false, ErrActiveTrackersLimit
		}
		return false, nil
	}
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("insert tracker: %w", err)
	}
	tr.Seq = seq
	return true, nil
}

// EndTracker records that shipd stopped following a tracker's package, and
// why; a tracker already ended keeps its first end.
func (t *Tx) EndTracker(ctx context.Context, id, reason string, now time.Time) error {
	_, err := t.exec(ctx, `UPDATE trackers SET ended_at = ?, end_reason = ?, updated_at = ? WHERE id = ? AND ended_at IS NULL`, now, reason, now, id)
	return err
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

package store

import (
	"context"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/shipd-dev/shipd/paging"
)

// Manifest puts labels of one carrier and one origin on one carrier form
// (migration 0011_manifests). Its labels are the shipments whose
// manifest_id names it; ShipmentIDs keeps them in order as a JSON array, so
// that a failed manifest, whose labels are released, still shows them.
type Manifest struct {
	Seq          int64      `db:"seq"`
	ID           string     `db:"id"`
	AccountID    string     `db:"account_id"`
	Mode         string     `db:"mode"`
	Carrier      string     `db:"carrier"`
	Status       string     `db:"status"`
	FromAddress  string     `db:"from_address"` // JSON
	ShipmentIDs  string     `db:"shipment_ids"` // JSON array
	FormNumber   *string    `db:"form_number"`
	FormKey      *string    `db:"form_key"`
	ErrorMessage *string    `db:"error_message"`
	CreatedAt    time.Time  `db:"created_at"`
	CompletedAt  *time.Time `db:"completed_at"`
	// CarrierAccountID is the carrier account whose credentials make the
	// form (its labels were bought through it); nil: the operator's carriers.
	CarrierAccountID *string `db:"carrier_account_id"`
}

const manifestColumns = `seq, id, account_id, mode, carrier, status, from_address, shipment_ids, form_number, form_key,
	error_message, created_at, completed_at, carrier_account_id`

// InsertManifest stores a new manifest (before its labels name it).
func (t *Tx) InsertManifest(ctx context.Context, m *Manifest) error {
	seq, err := t.insertSeq(ctx, `INSERT INTO manifests (id, account_id, mode, carrier, status, from_address, shipment_ids, created_at, carrier_account_id)
		VALUES (:id, :account_id, :mode, :carrier, :status, :from_address, :shipment_ids, :created_at, :carrier_account_id) RETURNING seq`, m)
	m.Seq = seq
	return err
}

// SetManifestShipments rewrites a manifest's list of labels (the labels a
// claim actually took).
func (t *Tx) SetManifestShipments(ctx context.Context, id, shipmentIDs string) error {
	return t.execOne(ctx, `UPDATE manifests SET shipment_ids = ? WHERE id = ?`, shipmentIDs, id)
}

// Manifest reads a manifest of an account, in either mode (callers check the mode).
func (r reader) Manifest(ctx context.Context, accountID, id string) (Manifest, error) {
	var m Manifest
	err := r.get(ctx, &m, `SELECT `+manifestColumns+` FROM manifests WHERE account_id = ? AND id = ?`, accountID, id)
	return m, err
}

// ManifestByID reads a manifest by id alone, for its job.
func (r reader) ManifestByID(ctx context.Context, id string) (Manifest, error) {
	var m Manifest
	err := r.get(ctx, &m, `SELECT `+manifestColumns+` FROM manifests WHERE id = ?`, id)
	return m, err
}

// ListManifests pages through an account's manifests in one mode, newest first.
func (r reader) ListManifests(ctx context.Context, accountID, mode string, p paging.Request) ([]Manifest, bool, error) {
	return modePage[Manifest](ctx, r, p, "manifests", manifestColumns, "", accountID, mode)
}

// UnmanifestedLabels reads up to limit labels of a carrier in an account and
// mode that are purchased, outbound (a return label's sender hands it over)
// and on no manifest, oldest first.
func (r reader) UnmanifestedLabels(ctx context.Context, accountID, mode, carrier string, limit int) ([]Shipment, error) {
	var rows []Shipment
	err := r.sel(ctx, &rows, `SELECT `+shipmentColumns+` FROM shipments
		WHERE account_id = ? AND mode = ? AND carrier = ? AND status = 'purchased' AND manifest_id IS NULL AND NOT is_return
		ORDER BY seq LIMIT ?`, accountID, mode, carrier, limit)
	return rows, err
}

// WaitingGroup counts an account's outbound labels of one carrier and
// carrier account that are purchased and on no manifest.
type WaitingGroup struct {
	Carrier          string  `db:"carrier"`
	CarrierAccountID *string `db:"carrier_account_id"`
	N                int     `db:"n"`
}

// UnmanifestedCounts counts, per carrier and carrier account, an account's
// outbound labels in a mode that are purchased and on no manifest (the
// settings page's "waiting"), ordered by carrier.
func (r reader) UnmanifestedCounts(ctx context.Context, accountID, mode string) ([]WaitingGroup, error) {
	var rows []WaitingGroup
	err := r.sel(ctx, &rows, `SELECT carrier, carrier_account_id, COUNT(*) AS n FROM shipments
		WHERE account_id = ? AND mode = ? AND status = 'purchased' AND manifest_id IS NULL AND NOT is_return
		GROUP BY carrier, carrier_account_id ORDER BY carrier, carrier_account_id`, accountID, mode)
	return rows, err
}

// ShipmentsByIDs reads the account's shipments among ids (any order; a
// missing id is absent from the answer).
func (r reader) ShipmentsByIDs(ctx context.Context, accountID string, ids []string) ([]Shipment, error) {
	var out []Shipment
	for chunk := range chunks(ids, manifestChunk) {
		q, args, err := sqlx.In(`SELECT `+shipmentColumns+` FROM shipments WHERE account_id = ? AND id IN (?)`, accountID, chunk)
		if err != nil {
			return nil, err
		}
		var rows []Shipment
		if err := r.sel(ctx, &rows, q, args...); err != nil {
			return nil, err
		}
		out = append(out, rows...)
	}
	return out, nil
}

// manifestChunk bounds the ids of one statement, well under SQLite's and
// PostgreSQL's limits on bound parameters.
const manifestChunk = 500

func chunks(ids []string, n int) func(func([]string) bool) {
	return func(yield func([]string) bool) {
		for len(ids) > 0 {
			k := min(n, len(ids))
			if !yield(ids[:k]) {
				return
			}
			ids = ids[k:]
		}
	}
}

// ClaimForManifest puts the labels among ids that are purchased and on no
// manifest on manifestID, and says how many it took. The guard is in the
// statement: on PostgreSQL a transaction claiming a label another has just
// claimed waits for its row lock, re-checks manifest_id IS NULL and skips
// the row, so a label lands on one manifest only; on SQLite writes are
// serial anyway.
func (t *Tx) ClaimForManifest(ctx context.Context, manifestID string, ids []string) (int64, error) {
	var total int64
	for chunk := range chunks(ids, manifestChunk) {
		for _, id := range chunk {
			t.touch(detailKey{shipmentDetail, id})
		}
		q, args, err := sqlx.In(`UPDATE shipments SET manifest_id = ?
			WHERE id IN (?) AND manifest_id IS NULL AND status = 'purchased' AND NOT is_return`, manifestID, chunk)
		if err != nil {
			return 0, err
		}
		res, err := t.exec(ctx, q, args...)
		if err != nil {
			return 0, err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}

// ManifestShipmentIDs lists the labels on a manifest, oldest first.
func (r reader) ManifestShipmentIDs(ctx context.Context, manifestID string) ([]string, error) {
	var ids []string
	err := r.sel(ctx, &ids, `SELECT id FROM shipments WHERE manifest_id = ? ORDER BY seq`, manifestID)
	return ids, err
}

// ManifestLabels reads the labels on a manifest, oldest first.
func (r reader) ManifestLabels(ctx context.Context, manifestID string) ([]Shipment, error) {
	var rows []Shipment
	err := r.sel(ctx, &rows, `SELECT `+shipmentColumns+` FROM shipments WHERE manifest_id = ? ORDER BY seq`, manifestID)
	return rows, err
}

// ReleaseManifest takes the labels off a manifest the carrier refused, so
// they can go on another.
func (t *Tx) ReleaseManifest(ctx context.Context, manifestID string, ids []string) error {
	for _, id := range ids {
		t.touch(detailKey{shipmentDetail, id})
	}
	_, err := t.exec(ctx, `UPDATE shipments SET manifest_id = NULL WHERE manifest_id = ?`, manifestID)
	return err
}

// FinishManifest records the carrier's answer to a manifest still
// creating; done says whether this call did (a job run twice acts once).
func (t *Tx) FinishManifest(ctx context.Context, m Manifest) (done bool, err error) {
	res, err := t.exec(ctx, `UPDATE manifests SET status = ?, form_number = ?, form_key = ?, error_message = ?, completed_at = ?
		WHERE id = ? AND status = 'creating'`, m.Status, m.FormNumber, m.FormKey, m.ErrorMessage, m.CompletedAt, m.ID)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

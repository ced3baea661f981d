package store

import (
	"context"
	"time"

	"github.com/shipd-dev/shipd/paging"
)

// Batch is many creates accepted together; its items are shipments with
// batch_id set (migration 0009_batches).
type Batch struct {
	Seq         int64      `db:"seq"`
	ID          string     `db:"id"`
	AccountID   string     `db:"account_id"`
	Mode        string     `db:"mode"`
	Status      string     `db:"status"`
	LabelFormat string     `db:"label_format"`
	Total       int        `db:"total"`
	CreatedAt   time.Time  `db:"created_at"`
	CompletedAt *time.Time `db:"completed_at"`
	// CustomsItems counts the items that cross a border with a declaration.
	CustomsItems int `db:"customs_items"`
}

const batchColumns = `seq, id, account_id, mode, status, label_format, total, created_at, completed_at, customs_items`

// InsertBatch stores a new batch (before its items, which reference it).
func (t *Tx) InsertBatch(ctx context.Context, b *Batch) error {
	seq, err := t.insertSeq(ctx, `INSERT INTO batches (id, account_id, mode, status, label_format, total, created_at, customs_items)
		VALUES (:id, :account_id, :mode, :status, :label_format, :total, :created_at, :customs_items) RETURNING seq`, b)
	b.Seq = seq
	return err
}

// Batch reads a batch of an account, in either mode (callers check the mode).
func (r reader) Batch(ctx context.Context, accountID, id string) (Batch, error) {
	var b Batch
	err := r.get(ctx, &b, `SELECT `+batchColumns+` FROM batches WHERE account_id = ? AND id = ?`, accountID, id)
	return b, err
}

// ListBatches pages through an account's batches in one mode, newest first.
func (r reader) ListBatches(ctx context.Context, accountID, mode string, p paging.Request) ([]Batch, bool, error) {
	return modePage[Batch](ctx, r, p, "batches", batchColumns, "", accountID, mode)
}

// BatchCounts counts a batch's items by status (the index on (batch_id,
// status) answers it without reading the rows).
func (r reader) BatchCounts(ctx context.Context, batchID string) (map[string]int, error) {
	var rows []struct {
		Status string `db:"status"`
		N      int    `db:"n"`
	}
	if err := r.sel(ctx, &rows, `SELECT status, COUNT(*) AS n FROM shipments WHERE batch_id = ? GROUP BY status`, batchID); err != nil {
		return nil, err
	}
	out := make(map[string]int, len(rows))
	for _, row := range rows {
		out[row.Status] = row.N
	}
	return out, nil
}

// BatchShipments pages through a batch's items in item order (the order of
// their insertion, hence of seq), oldest first; the cursor is an item's id.
func (r reader) BatchShipments(ctx context.Context, batchID string, p paging.Request) ([]Shipment, bool, error) {
	after := int64(0)
	if p.After != "" {
		if err := r.get(ctx, &after, `SELECT seq FROM shipments WHERE id = ? AND batch_id = ?`, p.After, batchID); err != nil {
			if err == ErrNotFound {
				return nil, false, paging.ErrInvalidCursor
			}
			return nil, false, err
		}
	}
	var rows []Shipment
	if err := r.sel(ctx, &rows, `SELECT `+shipmentColumns+` FROM shipments
		WHERE batch_id = ? AND seq > ? ORDER BY seq LIMIT ?`, batchID, after, p.Limit+1); err != nil {
		return nil, false, err
	}
	rows, more := trimPage(rows, p.Limit)
	return rows, more, nil
}

// BatchLabel is what a merged batch document needs of one item.
type BatchLabel struct {
	Seq      int64   `db:"seq"`
	ID       string  `db:"id"`
	Status   string  `db:"status"`
	LabelKey *string `db:"label_key"`
}

// BatchLabels reads up to limit of a batch's items after seq, in item
// order: a merged document walks the batch a page at a time, so memory does
// not grow with the batch.
func (r reader) BatchLabels(ctx context.Context, batchID string, after int64, limit int) ([]BatchLabel, error) {
	var rows []BatchLabel
	err := r.sel(ctx, &rows, `SELECT seq, id, status, label_key FROM shipments
		WHERE batch_id = ? AND seq > ? ORDER BY seq LIMIT ?`, batchID, after, limit)
	return rows, err
}

// LockBatch holds a batch's row until the transaction ends. A transaction
// that finishes an item takes it before CompleteBatch: on PostgreSQL two
// transactions finishing the last two items would otherwise each see the
// other's item unfinished (neither committed) and neither would complete the
// batch; with the lock the second waits, and its CompleteBatch, a new
// statement, sees the first's item committed. On SQLite writes are serial.
func (t *Tx) LockBatch(ctx context.Context, batchID string) error {
	var id string
	return t.get(ctx, &id, `SELECT id FROM batches WHERE id = ?`+t.forUpdate(), batchID)
}

// CompleteBatch moves a batch to completed when none of its items is still
// being bought (statuses: the unfinished ones). The guard is in the
// statement, so of two transactions finishing the last items at once only
// one sees a row changed (on PostgreSQL the second waits for the first's row
// lock, then re-checks status = 'purchasing' and changes nothing): done says
// whether this call completed it.
func (t *Tx) CompleteBatch(ctx context.Context, batchID string, unfinished []string, now time.Time) (done bool, err error) {
	q := `UPDATE batches SET status = 'completed', completed_at = ? WHERE id = ? AND status = 'purchasing'
		AND NOT EXISTS (SELECT 1 FROM shipments WHERE batch_id = ? AND status IN (?` + repeatPlaceholders(len(unfinished)-1) + `))`
	args := []any{now, batchID, batchID}
	for _, s := range unfinished {
		args = append(args, s)
	}
	res, err := t.exec(ctx, q, args...)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

func repeatPlaceholders(n int) string {
	out := ""
	for range n {
		out += ", ?"
	}
	return out
}

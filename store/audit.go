package store

import (
	"context"
	"time"
)

// AuditEntry is one change recorded in the audit log, in the transaction
// that made it: who (a user's email or a token's prefix), what, to which
// object, from which address.
type AuditEntry struct {
	Seq       int64     `db:"seq"`
	AccountID string    `db:"account_id"`
	Mode      string    `db:"mode"`
	Actor     string    `db:"actor"`
	Action    string    `db:"action"`
	Target    string    `db:"target"`
	IP        string    `db:"ip"`
	CreatedAt time.Time `db:"created_at"`
}

const auditColumns = `seq, account_id, mode, actor, action, target, ip, created_at`

// InsertAudit records an entry and sets its Seq.
func (t *Tx) InsertAudit(ctx context.Context, e *AuditEntry) error {
	e.CreatedAt = e.CreatedAt.UTC()
	seq, err := t.insertSeq(ctx, `INSERT INTO audit_log (account_id, mode, actor, action, target, ip, created_at)
		VALUES (:account_id, :mode, :actor, :action, :target, :ip, :created_at) RETURNING seq`, e)
	e.Seq = seq
	return err
}

// ListAudit returns up to limit entries of an account in one mode, newest
// first, older than the entry beforeSeq (0: from the newest), and whether
// older ones follow. The seq is the cursor: the log only grows.
func (r reader) ListAudit(ctx context.Context, accountID, mode string, beforeSeq int64, limit int) ([]AuditEntry, bool, error) {
	if beforeSeq <= 0 {
		beforeSeq = 1<<63 - 1
	}
	var rows []AuditEntry
	err := r.sel(ctx, &rows, `SELECT `+auditColumns+` FROM audit_log
		WHERE account_id = ? AND mode = ? AND seq < ? ORDER BY seq DESC LIMIT ?`, accountID, mode, beforeSeq, limit+1)
	if err != nil {
		return nil, false, err
	}
	rows, more := trimPage(rows, limit)
	return rows, more, nil
}

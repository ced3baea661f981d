package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/mattn/go-sqlite3"
)

// ErrIdempotencyKeyTaken is returned by ClaimIdempotencyKey when another
// request already holds (or has completed) the key in that scope.
var ErrIdempotencyKeyTaken = errors.New("idempotency key already claimed")

// Idempotency key states.
const (
	IdempotencyInProgress = "in_progress"
	IdempotencyDone       = "done"
)

// IdempotencyScope names one key: an account, a mode, an endpoint (method and
// concrete path) and the client's key.
type IdempotencyScope struct {
	AccountID string
	Mode      string
	Endpoint  string
	Key       string
}

// IdempotencyRecord is a claimed key and, once done, the response to replay.
type IdempotencyRecord struct {
	AccountID   string `db:"account_id"`
	Mode        string `db:"mode"`
	Endpoint    string `db:"endpoint"`
	Key         string `db:"key"`
	RequestHash []byte `db:"request_hash"`
	Owner       string `db:"owner"`
	State       string `db:"state"`
	Status      int    `db:"status"`
	ContentType string `db:"content_type"`
	Body        []byte `db:"body"`
	CreatedAt   int64  `db:"created_at"`   // unix nanoseconds
	CompletedAt *int64 `db:"completed_at"` // unix nanoseconds
	Committed   int    `db:"committed"`    // IdempotencyNotCommitted, IdempotencyCommitted or IdempotencyResponseLost
}

// Values of IdempotencyRecord.Committed.
const (
	IdempotencyNotCommitted = 0
	IdempotencyCommitted    = 1
	IdempotencyResponseLost = 2
)

// Created is when the key was claimed.
func (r IdempotencyRecord) Created() time.Time { return time.Unix(0, r.CreatedAt).UTC() }

const idempotencyColumns = `account_id, mode, endpoint, key, request_hash, owner, state, status, content_type, body, created_at, completed_at, committed`

// ClaimIdempotencyKey inserts an in-progress row for the scope, owned by owner.
// A row of the scope claimed before expiredBefore (retention over), or still in
// progress since before abandonedBefore (its request died), is dropped first.
// The UNIQUE constraint decides between concurrent claims: the loser gets
// ErrIdempotencyKeyTaken and the transaction stays usable.
func ClaimIdempotencyKey(ctx context.Context, tx *sqlx.Tx, sc IdempotencyScope, requestHash []byte, owner string, now, expiredBefore, abandonedBefore time.Time) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM idempotency_keys
		WHERE account_id = ? AND mode = ? AND endpoint = ? AND key = ?
		  AND (created_at <= ? OR (state = 'in_progress' AND committed = 0 AND created_at <= ?))`,
		sc.AccountID, sc.Mode, sc.Endpoint, sc.Key, expiredBefore.UnixNano(), abandonedBefore.UnixNano()); err != nil {
		return fmt.Errorf("drop stale idempotency key: %w", err)
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO idempotency_keys
		(account_id, mode, endpoint, key, request_hash, owner, state, created_at)
		VALUES (?, ?, ?, ?, ?, ?, 'in_progress', ?)`,
		sc.AccountID, sc.Mode, sc.Endpoint, sc.Key, requestHash, owner, now.UnixNano())
	var sqliteErr sqlite3.Error
	if errors.As(err, &sqliteErr) && (sqliteErr.ExtendedCode == sqlite3.ErrConstraintUnique || sqliteErr.ExtendedCode == sqlite3.ErrConstraintPrimaryKey) {
		return ErrIdempotencyKeyTaken
	}
	if err != nil {
		return fmt.Errorf("claim idempotency key: %w", err)
	}
	return nil
}

// GetIdempotencyKey reads the scope's row unless it was claimed before
// expiredBefore (an expired key does not exist for lookups); ErrNotFound otherwise.
func GetIdempotencyKey(ctx context.Context, q sqlx.QueryerContext, sc IdempotencyScope, expiredBefore time.Time) (IdempotencyRecord, error) {
	var r IdempotencyRecord
	err := sqlx.GetContext(ctx, q, &r, `SELECT `+idempotencyColumns+` FROM idempotency_keys
		WHERE account_id = ? AND mode = ? AND endpoint = ? AND key = ? AND created_at > ?`,
		sc.AccountID, sc.Mode, sc.Endpoint, sc.Key, expiredBefore.UnixNano())
	return r, notFound(err)
}

// CompleteIdempotencyKey stores the response of owner's in-progress row.
// ErrNotFound when the row is no longer owner's (it was taken over).
func CompleteIdempotencyKey(ctx context.Context, tx *sqlx.Tx, sc IdempotencyScope, owner string, status int, contentType string, body []byte, now time.Time) error {
	if body == nil {
		body = []byte{}
	}
	res, err := tx.ExecContext(ctx, `UPDATE idempotency_keys
		SET state = 'done', status = ?, content_type = ?, body = ?, completed_at = ?
		WHERE account_id = ? AND mode = ? AND endpoint = ? AND key = ? AND owner = ? AND state = 'in_progress'`,
		status, contentType, body, now.UnixNano(), sc.AccountID, sc.Mode, sc.Endpoint, sc.Key, owner)
	if err != nil {
		return fmt.Errorf("complete idempotency key: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// ReleaseIdempotencyKey deletes owner's in-progress row, so the key can be
// used again, unless its request committed a resource: then the row stays,
// marked as a lost response, so a retry can never create the resource twice.
func ReleaseIdempotencyKey(ctx context.Context, tx *sqlx.Tx, sc IdempotencyScope, owner string) error {
	_, err := tx.ExecContext(ctx, `DELETE FROM idempotency_keys
		WHERE account_id = ? AND mode = ? AND endpoint = ? AND key = ? AND owner = ? AND state = 'in_progress' AND committed = 0`,
		sc.AccountID, sc.Mode, sc.Endpoint, sc.Key, owner)
	if err != nil {
		return fmt.Errorf("release idempotency key: %w", err)
	}
	_, err = tx.ExecContext(ctx, `UPDATE idempotency_keys SET committed = ?
		WHERE account_id = ? AND mode = ? AND endpoint = ? AND key = ? AND owner = ? AND state = 'in_progress' AND committed = ?`,
		IdempotencyResponseLost, sc.AccountID, sc.Mode, sc.Endpoint, sc.Key, owner, IdempotencyCommitted)
	if err != nil {
		return fmt.Errorf("release idempotency key: %w", err)
	}
	return nil
}

// MarkIdempotencyCommitted records, in the transaction that creates the
// resource, that owner's request has committed it. ErrNotFound when the key is
// no longer owner's (it was taken over), in which case the caller must not commit.
func MarkIdempotencyCommitted(ctx context.Context, tx *sqlx.Tx, sc IdempotencyScope, owner string) error {
	res, err := tx.ExecContext(ctx, `UPDATE idempotency_keys SET committed = ?
		WHERE account_id = ? AND mode = ? AND endpoint = ? AND key = ? AND owner = ? AND state = 'in_progress'`,
		IdempotencyCommitted, sc.AccountID, sc.Mode, sc.Endpoint, sc.Key, owner)
	if err != nil {
		return fmt.Errorf("mark idempotency key committed: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// idempotencyPurgeBatch bounds each purge transaction, so the single writer is
// never held for long however many keys expired at once.
const idempotencyPurgeBatch = 1000

// PurgeIdempotencyKeys deletes every key claimed before cutoff, in batches of
// short transactions, and returns how many it deleted.
func (s *Store) PurgeIdempotencyKeys(ctx context.Context, cutoff time.Time) (int64, error) {
	var total int64
	for {
		var n int64
		err := s.Tx(ctx, func(tx *sqlx.Tx) error {
			res, err := tx.ExecContext(ctx, `DELETE FROM idempotency_keys WHERE id IN
				(SELECT id FROM idempotency_keys WHERE created_at <= ? LIMIT ?)`, cutoff.UnixNano(), idempotencyPurgeBatch)
			if err != nil {
				return err
			}
			n, err = res.RowsAffected()
			return err
		})
		if err != nil {
			return total, fmt.Errorf("purge idempotency keys: %w", err)
		}
		total += n
		if n < idempotencyPurgeBatch {
			return total, nil
		}
	}
}

// CountIdempotencyKeys counts the stored keys (of every age); tests and metrics use it.
func (s *Store) CountIdempotencyKeys(ctx context.Context) (int64, error) {
	var n int64
	err := s.R.GetContext(ctx, &n, `SELECT count(*) FROM idempotency_keys`)
	return n, err
}

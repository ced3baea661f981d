package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Idempotency key states.
const (
	IdempotencyInProgress = "in_progress"
	IdempotencyDone       = "done"
)

// IdempotencyScope names one key: an account, a mode, an endpoint (the
// operation and the resource it acts on) and the client's key.
type IdempotencyScope struct {
	AccountID string
	Mode      string
	Endpoint  string
	Key       string
}

// IdempotencyRecord is a claimed key and, once done, the sealed result to replay.
type IdempotencyRecord struct {
	AccountID   string  `db:"account_id"`
	Mode        string  `db:"mode"`
	Endpoint    string  `db:"endpoint"`
	Key         string  `db:"key"`
	Fingerprint []byte  `db:"fingerprint"`
	Owner       string  `db:"owner"`
	State       string  `db:"state"`
	Result      *string `db:"result"`
	CreatedAt   int64   `db:"created_at"`   // unix nanoseconds
	ClaimedAt   int64   `db:"claimed_at"`   // unix nanoseconds
	CompletedAt *int64  `db:"completed_at"` // unix nanoseconds
}

const idempotencyColumns = `account_id, mode, endpoint, key, fingerprint, owner, state, result, created_at, claimed_at, completed_at`

// ClaimIdempotencyKey inserts an in-progress row for the scope owned by owner
// and reports whether it did; false means a row exists (read it with
// IdempotencyKey). A row claimed before expiredBefore (retention over) is
// dropped first. The UNIQUE constraint decides between concurrent claims.
func (t *Tx) ClaimIdempotencyKey(ctx context.Context, sc IdempotencyScope, fingerprint []byte, owner string, now, expiredBefore time.Time) (bool, error) {
	if _, err := t.exec(ctx, `DELETE FROM idempotency_keys
		WHERE account_id = ? AND mode = ? AND endpoint = ? AND key = ? AND created_at <= ?`,
		sc.AccountID, sc.Mode, sc.Endpoint, sc.Key, expiredBefore.UnixNano()); err != nil {
		return false, fmt.Errorf("drop expired idempotency key: %w", err)
	}
	res, err := t.exec(ctx, `INSERT INTO idempotency_keys
		(account_id, mode, endpoint, key, fingerprint, owner, state, created_at, claimed_at)
		VALUES (?, ?, ?, ?, ?, ?, 'in_progress', ?, ?)
		ON CONFLICT (account_id, mode, endpoint, key) DO NOTHING`,
		sc.AccountID, sc.Mode, sc.Endpoint, sc.Key, fingerprint, owner, now.UnixNano(), now.UnixNano())
	if err != nil {
		return false, fmt.Errorf("claim idempotency key: %w", err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// IdempotencyKey reads the scope's row unless it was claimed before
// expiredBefore (an expired key does not exist for lookups); ErrNotFound otherwise.
func (r reader) IdempotencyKey(ctx context.Context, sc IdempotencyScope, expiredBefore time.Time) (IdempotencyRecord, error) {
	var rec IdempotencyRecord
	err := r.get(ctx, &rec, `SELECT `+idempotencyColumns+` FROM idempotency_keys
		WHERE account_id = ? AND mode = ? AND endpoint = ? AND key = ? AND created_at > ?`,
		sc.AccountID, sc.Mode, sc.Endpoint, sc.Key, expiredBefore.UnixNano())
	return rec, err
}

// OrphanedClaim owns the in-progress claims whose requests died with their
// server: a retry with the same fingerprint takes one over at once, instead
// of after idempotency.AbandonAfter.
const OrphanedClaim = "orphaned"

// OrphanIdempotencyClaims gives every in-progress claim to OrphanedClaim.
// Only the holder of the ServerLock may call it: with one server per SQLite
// database, a claim in progress at start belongs to a request that died with
// the previous server. The fingerprint stays bound, so a different body is
// still a collision.
func (s *Store) OrphanIdempotencyClaims(ctx context.Context, _ *ServerLock) (int64, error) {
	if s.dialect != sqliteDialect {
		return 0, errors.New("orphan idempotency claims: only a SQLite database has one server")
	}
	res, err := s.w.ExecContext(ctx, `UPDATE idempotency_keys SET owner = ? WHERE state = 'in_progress'`, OrphanedClaim)
	if err != nil {
		return 0, fmt.Errorf("orphan idempotency claims: %w", err)
	}
	return res.RowsAffected()
}

// TakeOverIdempotencyKey gives an abandoned in-progress key to newOwner,
// unless someone else took it first (ErrNotFound).
func (t *Tx) TakeOverIdempotencyKey(ctx context.Context, sc IdempotencyScope, oldOwner, newOwner string, now time.Time) error {
	return t.execOne(ctx, `UPDATE idempotency_keys SET owner = ?, claimed_at = ?
		WHERE account_id = ? AND mode = ? AND endpoint = ? AND key = ? AND owner = ? AND state = 'in_progress'`,
		newOwner, now.UnixNano(), sc.AccountID, sc.Mode, sc.Endpoint, sc.Key, oldOwner)
}

// CompleteIdempotencyKey stores the sealed result of owner's in-progress key,
// in the transaction that creates the resource. ErrNotFound when the key is
// no longer owner's (it was taken over): the caller must not commit.
func (t *Tx) CompleteIdempotencyKey(ctx context.Context, sc IdempotencyScope, owner, sealedResult string, now time.Time) error {
	return t.execOne(ctx, `UPDATE idempotency_keys SET state = 'done', result = ?, completed_at = ?
		WHERE account_id = ? AND mode = ? AND endpoint = ? AND key = ? AND owner = ? AND state = 'in_progress'`,
		sealedResult, now.UnixNano(), sc.AccountID, sc.Mode, sc.Endpoint, sc.Key, owner)
}

// ReleaseIdempotencyKey deletes owner's in-progress key, so that the key can
// be used again (the request created nothing).
func (t *Tx) ReleaseIdempotencyKey(ctx context.Context, sc IdempotencyScope, owner string) error {
	_, err := t.exec(ctx, `DELETE FROM idempotency_keys
		WHERE account_id = ? AND mode = ? AND endpoint = ? AND key = ? AND owner = ? AND state = 'in_progress'`,
		sc.AccountID, sc.Mode, sc.Endpoint, sc.Key, owner)
	if err != nil {
		return fmt.Errorf("release idempotency key: %w", err)
	}
	return nil
}

// idempotencyPurgeBatch bounds each purge transaction, so the writer is never
// held for long however many keys expired at once.
const idempotencyPurgeBatch = 1000

// PurgeIdempotencyKeys deletes every key claimed before cutoff, in batches of
// short transactions, and returns how many it deleted.
func (s *Store) PurgeIdempotencyKeys(ctx context.Context, cutoff time.Time) (int64, error) {
	var total int64
	for {
		var n int64
		err := s.Tx(ctx, func(tx *Tx) error {
			res, err := tx.exec(ctx, `DELETE FROM idempotency_keys WHERE id IN
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
func (r reader) CountIdempotencyKeys(ctx context.Context) (int64, error) {
	var n int64
	err := r.get(ctx, &n, `SELECT count(*) FROM idempotency_keys`)
	return n, err
}

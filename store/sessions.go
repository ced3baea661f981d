package store

import (
	"context"
	"time"
)

// Session is a signed-in user's session of the settings UI. The session id
// lives only in the browser's cookie; IDHash is its SHA-256.
type Session struct {
	IDHash    []byte `db:"id_hash"`
	UserID    string `db:"user_id"`
	AccountID string `db:"account_id"`
	// Mode is the mode the user is looking at (test or live).
	Mode       string    `db:"mode"`
	CreatedAt  time.Time `db:"created_at"`
	LastSeenAt time.Time `db:"last_seen_at"`
	// ExpiresAt is the absolute end of the session, whatever its use.
	ExpiresAt time.Time `db:"expires_at"`
}

const sessionColumns = `id_hash, user_id, account_id, mode, created_at, last_seen_at, expires_at`

// InsertSession stores a new session; the user and account must exist.
func (t *Tx) InsertSession(ctx context.Context, s Session) error {
	s.CreatedAt, s.LastSeenAt, s.ExpiresAt = s.CreatedAt.UTC(), s.LastSeenAt.UTC(), s.ExpiresAt.UTC()
	_, err := t.tx.NamedExecContext(ctx, `INSERT INTO sessions (id_hash, user_id, account_id, mode, created_at, last_seen_at, expires_at)
		VALUES (:id_hash, :user_id, :account_id, :mode, :created_at, :last_seen_at, :expires_at)`, s)
	return err
}

// Session reads a session by the hash of its id.
func (r reader) Session(ctx context.Context, idHash []byte) (Session, error) {
	var s Session
	err := r.get(ctx, &s, `SELECT `+sessionColumns+` FROM sessions WHERE id_hash = ?`, idHash)
	return s, err
}

// TouchSession records a use of the session (its idle time starts again);
// an older time never overwrites a newer one. ErrNotFound when it is gone.
func (t *Tx) TouchSession(ctx context.Context, idHash []byte, at time.Time) error {
	return t.execOne(ctx, `UPDATE sessions SET last_seen_at = CASE WHEN last_seen_at < ? THEN ? ELSE last_seen_at END
		WHERE id_hash = ?`, at.UTC(), at.UTC(), idHash)
}

// SetSessionMode records the mode the session looks at. ErrNotFound when it is gone.
func (t *Tx) SetSessionMode(ctx context.Context, idHash []byte, mode string) error {
	return t.execOne(ctx, `UPDATE sessions SET mode = ? WHERE id_hash = ?`, mode, idHash)
}

// DeleteSession ends a session (sign out). ErrNotFound when it was already gone.
func (t *Tx) DeleteSession(ctx context.Context, idHash []byte) error {
	return t.execOne(ctx, `DELETE FROM sessions WHERE id_hash = ?`, idHash)
}

// DeleteEndedSessions removes the sessions past their absolute end (at or
// before now) or idle since before idleSince, and says how many.
func (t *Tx) DeleteEndedSessions(ctx context.Context, now, idleSince time.Time) (int64, error) {
	res, err := t.exec(ctx, `DELETE FROM sessions WHERE expires_at <= ? OR last_seen_at <= ?`, now.UTC(), idleSince.UTC())
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// CountSessions counts a user's sessions (ended ones not yet removed included).
func (r reader) CountSessions(ctx context.Context, userID string) (int, error) {
	var n int
	err := r.get(ctx, &n, `SELECT count(*) FROM sessions WHERE user_id = ?`, userID)
	return n, err
}

package store

import (
	"context"
	"time"
)

// Token is an API token. Its secret is never stored, only SecretHash.
type Token struct {
	ID         string     `db:"id"`
	AccountID  string     `db:"account_id"`
	Mode       string     `db:"mode"`
	Prefix     string     `db:"prefix"`
	Name       string     `db:"name"` // what it is for, given in the settings UI; '' when none was
	SecretHash []byte     `db:"secret_hash"`
	Scopes     string     `db:"scopes"` // space separated
	CreatedAt  time.Time  `db:"created_at"`
	ExpiresAt  *time.Time `db:"expires_at"`
	RevokedAt  *time.Time `db:"revoked_at"`
	LastUsedAt *time.Time `db:"last_used_at"`
	LastIP     *string    `db:"last_ip"`
}

const tokenColumns = `id, account_id, mode, prefix, name, secret_hash, scopes, created_at, expires_at, revoked_at, last_used_at, last_ip`

// InsertToken stores a token; the account must exist.
func (t *Tx) InsertToken(ctx context.Context, tok Token) error {
	// Times are stored in UTC: SQLite orders them as text, so one zone keeps
	// the order of instants.
	tok.CreatedAt = tok.CreatedAt.UTC()
	if tok.ExpiresAt != nil {
		e := tok.ExpiresAt.UTC()
		tok.ExpiresAt = &e
	}
	_, err := t.tx.NamedExecContext(ctx, `INSERT INTO tokens (id, account_id, mode, prefix, name, secret_hash, scopes, created_at, expires_at)
		VALUES (:id, :account_id, :mode, :prefix, :name, :secret_hash, :scopes, :created_at, :expires_at)`, tok)
	return err
}

// TokenByHash finds the token whose secret hashes to hash.
func (r reader) TokenByHash(ctx context.Context, hash []byte) (Token, error) {
	var t Token
	err := r.get(ctx, &t, `SELECT `+tokenColumns+` FROM tokens WHERE secret_hash = ?`, hash)
	return t, err
}

// Token reads a token by id.
func (r reader) Token(ctx context.Context, id string) (Token, error) {
	var t Token
	err := r.get(ctx, &t, `SELECT `+tokenColumns+` FROM tokens WHERE id = ?`, id)
	return t, err
}

// RevokeToken marks a token revoked (keeping the first revocation time).
func (t *Tx) RevokeToken(ctx context.Context, id string, now time.Time) error {
	if err := t.execOne(ctx, `UPDATE tokens SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?`, now.UTC(), id); err != nil {
		return err
	}
	return t.notifyTokenChange(ctx)
}

// ListTokens lists an account's tokens, newest first.
func (r reader) ListTokens(ctx context.Context, accountID string) ([]Token, error) {
	var ts []Token
	err := r.sel(ctx, &ts, `SELECT `+tokenColumns+` FROM tokens WHERE account_id = ? ORDER BY created_at DESC, id`, accountID)
	return ts, err
}

// TokenUse is the last use of a token, recorded in batches.
type TokenUse struct {
	TokenID string
	At      time.Time
	IP      string
}

// RecordTokenUses writes a batch of last uses; an older use never overwrites a newer one.
func (t *Tx) RecordTokenUses(ctx context.Context, uses []TokenUse) error {
	for _, u := range uses {
		if _, err := t.exec(ctx, `UPDATE tokens SET last_used_at = ?, last_ip = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)`,
			u.At.UTC(), u.IP, u.TokenID, u.At.UTC()); err != nil {
			return err
		}
	}
	return nil
}

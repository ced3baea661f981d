package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
)

// Token errors; the API maps each to its own 401 code.
var (
	ErrTokenRevoked = errors.New("token revoked")
	ErrTokenExpired = errors.New("token expired")
)

// Token is an API token without its secret, which is never stored.
type Token struct {
	ID         string     `db:"id"`
	AccountID  string     `db:"account_id"`
	Mode       string     `db:"mode"`
	Prefix     string     `db:"prefix"`
	Scopes     string     `db:"scopes"` // space separated
	CreatedAt  time.Time  `db:"created_at"`
	ExpiresAt  *time.Time `db:"expires_at"`
	RevokedAt  *time.Time `db:"revoked_at"`
	LastUsedAt *time.Time `db:"last_used_at"`
	LastIP     *string    `db:"last_ip"`
}

// ScopeList returns the token's scopes.
func (t Token) ScopeList() []string { return strings.Fields(t.Scopes) }

const tokenColumns = `id, account_id, mode, prefix, scopes, created_at, expires_at, revoked_at, last_used_at, last_ip`

const secretAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// TokenSecretLength is the number of characters after svc_test_ / svc_live_.
const TokenSecretLength = 64

// HashToken is the only form in which a token's secret is stored.
func HashToken(secret string) []byte {
	sum := sha256.Sum256([]byte(secret))
	return sum[:]
}

// CreateToken mints a token and returns it with its secret, which exists only in this return value.
func (s *Store) CreateToken(ctx context.Context, accountID, mode string, scopes []string, expiresAt *time.Time, now time.Time) (Token, string, error) {
	if mode != "test" && mode != "live" {
		return Token{}, "", fmt.Errorf("mode %q: must be test or live", mode)
	}
	var b strings.Builder
	b.WriteString("svc_" + mode + "_")
	max := big.NewInt(int64(len(secretAlphabet)))
	for range TokenSecretLength {
		n, err := rand.Int(rand.Reader, max)
		if err != nil {
			return Token{}, "", err
		}
		b.WriteByte(secretAlphabet[n.Int64()])
	}
	secret := b.String()
	t := Token{
		ID:        NewID("tok"),
		AccountID: accountID,
		Mode:      mode,
		Prefix:    secret[:len("svc_"+mode+"_")+6],
		Scopes:    strings.Join(scopes, " "),
		CreatedAt: now.UTC(),
	}
	if expiresAt != nil {
		e := expiresAt.UTC()
		t.ExpiresAt = &e
	}
	err := s.Tx(ctx, func(tx *sqlx.Tx) error {
		if _, err := s.GetAccount(ctx, tx, accountID); err != nil {
			return fmt.Errorf("account %s: %w", accountID, err)
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO tokens (id, account_id, mode, prefix, secret_hash, scopes, created_at, expires_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, t.ID, t.AccountID, t.Mode, t.Prefix, HashToken(secret), t.Scopes, t.CreatedAt, t.ExpiresAt)
		return err
	})
	if err != nil {
		return Token{}, "", fmt.Errorf("create token: %w", err)
	}
	return t, secret, nil
}

// TokenBySecret finds the token whose secret hashes to the given one.
func (s *Store) TokenBySecret(ctx context.Context, secret string) (Token, error) {
	var t Token
	err := s.R.GetContext(ctx, &t, `SELECT `+tokenColumns+` FROM tokens WHERE secret_hash = ?`, HashToken(secret))
	return t, notFound(err)
}

// RevokeToken marks a token revoked; it is rejected from then on, in flight too.
func (s *Store) RevokeToken(ctx context.Context, id string, now time.Time) error {
	return s.Tx(ctx, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE tokens SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?`, now.UTC(), id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return nil
	})
}

// ListTokens lists an account's tokens, newest first.
func (s *Store) ListTokens(ctx context.Context, accountID string) ([]Token, error) {
	var ts []Token
	err := s.R.SelectContext(ctx, &ts, `SELECT `+tokenColumns+` FROM tokens WHERE account_id = ? ORDER BY created_at DESC, id`, accountID)
	return ts, err
}

// CheckTokenTx re-reads a token inside a write transaction, so that a write
// whose token was revoked while the request was in flight does not commit.
func CheckTokenTx(ctx context.Context, tx *sqlx.Tx, tokenID string, now time.Time) error {
	var t Token
	if err := tx.GetContext(ctx, &t, `SELECT `+tokenColumns+` FROM tokens WHERE id = ?`, tokenID); err != nil {
		return notFound(err)
	}
	if t.RevokedAt != nil {
		return ErrTokenRevoked
	}
	if t.ExpiresAt != nil && !now.Before(*t.ExpiresAt) {
		return ErrTokenExpired
	}
	return nil
}

// TokenUse is the last use of a token, recorded in batches.
type TokenUse struct {
	TokenID string
	At      time.Time
	IP      string
}

// RecordTokenUses writes a batch of last uses in one transaction.
func (s *Store) RecordTokenUses(ctx context.Context, uses []TokenUse) error {
	if len(uses) == 0 {
		return nil
	}
	return s.Tx(ctx, func(tx *sqlx.Tx) error {
		for _, u := range uses {
			if _, err := tx.ExecContext(ctx, `UPDATE tokens SET last_used_at = ?, last_ip = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)`,
				u.At.UTC(), u.IP, u.TokenID, u.At.UTC()); err != nil {
				return err
			}
		}
		return nil
	})
}

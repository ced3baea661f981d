package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/mattn/go-sqlite3"
)

// ErrDuplicateEndpoint is returned when the URL already has an active subscription.
var ErrDuplicateEndpoint = errors.New("an active subscription for this URL exists")

// Subscription is a webhook subscription; the signing secret is kept encrypted.
type Subscription struct {
	Seq              int64      `db:"seq"`
	ID               string     `db:"id"`
	AccountID        string     `db:"account_id"`
	Mode             string     `db:"mode"`
	URL              string     `db:"url"`
	EventsJSON       string     `db:"events"`
	Description      *string    `db:"description"`
	Enabled          bool       `db:"enabled"`
	SecretCiphertext string     `db:"secret_ciphertext"`
	CreatedAt        time.Time  `db:"created_at"`
	UpdatedAt        time.Time  `db:"updated_at"`
	RevokedAt        *time.Time `db:"revoked_at"`
}

// Events decodes the subscribed event types.
func (s Subscription) Events() []string {
	var ev []string
	_ = json.Unmarshal([]byte(s.EventsJSON), &ev) // written only by SetEvents
	return ev
}

// SetEvents encodes the subscribed event types.
func (s *Subscription) SetEvents(ev []string) {
	b, _ := json.Marshal(ev)
	s.EventsJSON = string(b)
}

const subscriptionColumns = `seq, id, account_id, mode, url, events, description, enabled, secret_ciphertext, created_at, updated_at, revoked_at`

// InsertSubscription stores a subscription; ErrDuplicateEndpoint when its URL is already active.
func InsertSubscription(ctx context.Context, tx *sqlx.Tx, sub *Subscription) error {
	res, err := tx.NamedExecContext(ctx, `INSERT INTO webhook_subscriptions
		(id, account_id, mode, url, events, description, enabled, secret_ciphertext, created_at, updated_at)
		VALUES (:id, :account_id, :mode, :url, :events, :description, :enabled, :secret_ciphertext, :created_at, :updated_at)`, sub)
	var sqliteErr sqlite3.Error
	if errors.As(err, &sqliteErr) && sqliteErr.ExtendedCode == sqlite3.ErrConstraintUnique {
		return ErrDuplicateEndpoint
	}
	if err != nil {
		return fmt.Errorf("insert subscription: %w", err)
	}
	sub.Seq, err = res.LastInsertId()
	return err
}

// CountActiveSubscriptions counts an account's active subscriptions in one mode.
func CountActiveSubscriptions(ctx context.Context, q sqlx.QueryerContext, accountID, mode string) (int, error) {
	var n int
	err := sqlx.GetContext(ctx, q, &n, `SELECT count(*) FROM webhook_subscriptions
		WHERE account_id = ? AND mode = ? AND revoked_at IS NULL`, accountID, mode)
	return n, err
}

// GetSubscription reads an active subscription of an account, in either mode.
func GetSubscription(ctx context.Context, q sqlx.QueryerContext, accountID, id string) (Subscription, error) {
	var sub Subscription
	err := sqlx.GetContext(ctx, q, &sub, `SELECT `+subscriptionColumns+` FROM webhook_subscriptions
		WHERE account_id = ? AND id = ? AND revoked_at IS NULL`, accountID, id)
	return sub, notFound(err)
}

// UpdateSubscription writes the mutable fields of a subscription.
func UpdateSubscription(ctx context.Context, tx *sqlx.Tx, sub *Subscription) error {
	_, err := tx.NamedExecContext(ctx, `UPDATE webhook_subscriptions
		SET events = :events, description = :description, enabled = :enabled, updated_at = :updated_at
		WHERE id = :id AND revoked_at IS NULL`, sub)
	return err
}

// RevokeSubscription hides a subscription from every later read; the row stays for the delivery log.
func RevokeSubscription(ctx context.Context, tx *sqlx.Tx, accountID, id string, now time.Time) error {
	res, err := tx.ExecContext(ctx, `UPDATE webhook_subscriptions SET revoked_at = ?, updated_at = ?
		WHERE account_id = ? AND id = ? AND revoked_at IS NULL`, now.UTC(), now.UTC(), accountID, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// ListSubscriptions returns a page of active subscriptions, newest first.
func (s *Store) ListSubscriptions(ctx context.Context, accountID, mode string, p Page) ([]Subscription, int64, error) {
	before, n := p.pageArgs()
	var rows []Subscription
	err := s.R.SelectContext(ctx, &rows, `SELECT `+subscriptionColumns+` FROM webhook_subscriptions
		WHERE account_id = ? AND mode = ? AND revoked_at IS NULL AND seq < ? ORDER BY seq DESC LIMIT ?`, accountID, mode, before, n)
	if err != nil {
		return nil, 0, err
	}
	rows, next := trimPage(rows, p.Limit, func(s Subscription) int64 { return s.Seq })
	return rows, next, nil
}

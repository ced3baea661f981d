package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/shipd-dev/shipd/paging"
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
	EventsJSON       string     `db:"events"` // a JSON array of event types
	Description      *string    `db:"description"`
	Enabled          bool       `db:"enabled"`
	SecretCiphertext string     `db:"secret_ciphertext"`
	CreatedAt        time.Time  `db:"created_at"`
	UpdatedAt        time.Time  `db:"updated_at"`
	RevokedAt        *time.Time `db:"revoked_at"`
}

const subscriptionColumns = `seq, id, account_id, mode, url, events, description, enabled, secret_ciphertext, created_at, updated_at, revoked_at`

// InsertSubscription stores a subscription; ErrDuplicateEndpoint when its URL is already active.
func (t *Tx) InsertSubscription(ctx context.Context, sub *Subscription) error {
	t.touch(subscriptionsKey(sub.AccountID, sub.Mode))
	seq, err := t.insertSeq(ctx, `INSERT INTO webhook_subscriptions
		(id, account_id, mode, url, events, description, enabled, secret_ciphertext, created_at, updated_at)
		VALUES (:id, :account_id, :mode, :url, :events, :description, :enabled, :secret_ciphertext, :created_at, :updated_at)
		RETURNING seq`, sub)
	if isUniqueViolationOf(err, "webhook_subscriptions_active_url", "webhook_subscriptions.url") {
		return ErrDuplicateEndpoint
	}
	if err != nil {
		return fmt.Errorf("insert subscription: %w", err)
	}
	sub.Seq = seq
	return nil
}

// CountActiveSubscriptions counts an account's active subscriptions in one mode.
func (r reader) CountActiveSubscriptions(ctx context.Context, accountID, mode string) (int, error) {
	var n int
	err := r.get(ctx, &n, `SELECT count(*) FROM webhook_subscriptions
		WHERE account_id = ? AND mode = ? AND revoked_at IS NULL`, accountID, mode)
	return n, err
}

// Subscription reads an active subscription of an account, in either mode.
func (r reader) Subscription(ctx context.Context, accountID, id string) (Subscription, error) {
	var sub Subscription
	err := r.get(ctx, &sub, `SELECT `+subscriptionColumns+` FROM webhook_subscriptions
		WHERE account_id = ? AND id = ? AND revoked_at IS NULL`, accountID, id)
	return sub, err
}

// SubscriptionByID reads a subscription by id alone, revoked or not: the
// delivery worker needs its state and secret whatever happened to it.
func (r reader) SubscriptionByID(ctx context.Context, id string) (Subscription, error) {
	var sub Subscription
	err := r.get(ctx, &sub, `SELECT `+subscriptionColumns+` FROM webhook_subscriptions WHERE id = ?`, id)
	return sub, err
}

// DeliverableSubscriptions returns the enabled, active subscriptions of an account in one mode.
func (r reader) DeliverableSubscriptions(ctx context.Context, accountID, mode string) ([]Subscription, error) {
	var subs []Subscription
	err := r.sel(ctx, &subs, `SELECT `+subscriptionColumns+` FROM webhook_subscriptions
		WHERE account_id = ? AND mode = ? AND enabled = TRUE AND revoked_at IS NULL ORDER BY seq`, accountID, mode)
	return subs, err
}

// UpdateSubscription writes the mutable fields of a subscription.
func (t *Tx) UpdateSubscription(ctx context.Context, sub *Subscription) error {
	t.touch(subscriptionsKey(sub.AccountID, sub.Mode))
	_, err := t.tx.NamedExecContext(ctx, `UPDATE webhook_subscriptions
		SET events = :events, description = :description, enabled = :enabled, updated_at = :updated_at
		WHERE id = :id AND account_id = :account_id AND mode = :mode AND revoked_at IS NULL`, sub)
	return err
}

// RevokeSubscription hides a subscription from every later read; the row stays for the delivery log.
func (t *Tx) RevokeSubscription(ctx context.Context, accountID, id string, now time.Time) error {
	// The subscription's mode is not known here: both are written, as far as
	// cached reads are concerned.
	t.touch(subscriptionsKey(accountID, "test"))
	t.touch(subscriptionsKey(accountID, "live"))
	return t.execOne(ctx, `UPDATE webhook_subscriptions SET revoked_at = ?, updated_at = ?
		WHERE account_id = ? AND id = ? AND revoked_at IS NULL`, now.UTC(), now.UTC(), accountID, id)
}

// ListSubscriptions returns a page of active subscriptions, newest first.
func (r reader) ListSubscriptions(ctx context.Context, accountID, mode string, p paging.Request) ([]Subscription, bool, error) {
	return modePage[Subscription](ctx, r, p, "webhook_subscriptions", subscriptionColumns, "revoked_at IS NULL", accountID, mode)
}

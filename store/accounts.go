package store

import (
	"context"
	"time"
)

// Account owns every resource; its payment method gates purchases.
type Account struct {
	ID               string    `db:"id"`
	Name             string    `db:"name"`
	HasPaymentMethod bool      `db:"has_payment_method"`
	CreatedAt        time.Time `db:"created_at"`
}

const accountColumns = `id, name, has_payment_method, created_at`

// InsertAccount stores a new account.
func (t *Tx) InsertAccount(ctx context.Context, a Account) error {
	_, err := t.tx.NamedExecContext(ctx, `INSERT INTO accounts (id, name, has_payment_method, created_at)
		VALUES (:id, :name, :has_payment_method, :created_at)`, a)
	return err
}

// Account reads one account.
func (r reader) Account(ctx context.Context, id string) (Account, error) {
	var a Account
	err := r.get(ctx, &a, `SELECT `+accountColumns+` FROM accounts WHERE id = ?`, id)
	return a, err
}

// LockAccount reads an account and holds it until the transaction ends, so
// that rules counting an account's rows (the subscription limit) see no
// concurrent insert between their count and their insert.
func (t *Tx) LockAccount(ctx context.Context, id string) (Account, error) {
	var a Account
	err := t.get(ctx, &a, `SELECT `+accountColumns+` FROM accounts WHERE id = ?`+t.forUpdate(), id)
	return a, err
}

// SetPaymentMethod records whether the account has a payment method on file.
func (t *Tx) SetPaymentMethod(ctx context.Context, id string, has bool) error {
	return t.execOne(ctx, `UPDATE accounts SET has_payment_method = ? WHERE id = ?`, has, id)
}

// CountAccounts tells whether the database is fresh (the first start seeds a demo account).
func (r reader) CountAccounts(ctx context.Context) (int, error) {
	var n int
	err := r.get(ctx, &n, `SELECT count(*) FROM accounts`)
	return n, err
}

// AccountSummary is an account with the number of its tokens not revoked
// (expired or not), for the operator's list.
type AccountSummary struct {
	Account
	Tokens int `db:"tokens"`
}

// ListAccounts lists every account, oldest first.
func (r reader) ListAccounts(ctx context.Context) ([]AccountSummary, error) {
	var as []AccountSummary
	err := r.sel(ctx, &as, `SELECT a.id, a.name, a.has_payment_method, a.created_at,
		(SELECT count(*) FROM tokens t WHERE t.account_id = a.id AND t.revoked_at IS NULL) AS tokens
		FROM accounts a ORDER BY a.created_at, a.id`)
	return as, err
}

package store

import (
	"context"
	"errors"
	"time"
)

// Account owns every resource; its payment method gates purchases.
type Account struct {
	ID               string `db:"id"`
	Name             string `db:"name"`
	HasPaymentMethod bool   `db:"has_payment_method"`
	// Currency is the ISO 4217 code of every amount of the account.
	Currency  string    `db:"currency"`
	CreatedAt time.Time `db:"created_at"`
}

const accountColumns = `id, name, has_payment_method, currency, created_at`

// InsertAccount stores a new account.
func (t *Tx) InsertAccount(ctx context.Context, a Account) error {
	if a.Currency == "" {
		a.Currency = "USD"
	}
	_, err := t.tx.NamedExecContext(ctx, `INSERT INTO accounts (id, name, has_payment_method, currency, created_at)
		VALUES (:id, :name, :has_payment_method, :currency, :created_at)`, a)
	return err
}

// ErrCurrencyInUse: the account has shipments or ledger entries, which are
// in its currency; it cannot change.
var ErrCurrencyInUse = errors.New("the account has shipments or ledger entries in its currency")

// SetAccountCurrency changes an account's currency while it has neither a
// shipment nor a ledger entry (ErrCurrencyInUse). On PostgreSQL it first
// waits for every transaction writing shipments to end and holds their
// table against new ones (a SHARE lock) until it commits, so that its check
// sees every shipment, committed or not: a create checks the currency after
// its insert (AccountCurrency), and one of the two always sees the other.
func (t *Tx) SetAccountCurrency(ctx context.Context, id, currency string) error {
	if t.d == postgresDialect {
		if _, err := t.exec(ctx, `LOCK TABLE shipments IN SHARE MODE`); err != nil {
			return err
		}
	}
	res, err := t.exec(ctx, `UPDATE accounts SET currency = ? WHERE id = ?
		AND NOT EXISTS (SELECT 1 FROM shipments WHERE account_id = ?)
		AND NOT EXISTS (SELECT 1 FROM ledger_entries WHERE account_id = ?)`, currency, id, id, id)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 1 {
		return err
	}
	if _, err := t.Account(ctx, id); err != nil {
		return err
	}
	return ErrCurrencyInUse
}

// AccountCurrency reads an account's currency inside the transaction: a
// create compares it, after its insert, with the currency it priced in.
func (t *Tx) AccountCurrency(ctx context.Context, id string) (string, error) {
	var c string
	err := t.get(ctx, &c, `SELECT currency FROM accounts WHERE id = ?`, id)
	return c, err
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
	err := r.sel(ctx, &as, `SELECT a.id, a.name, a.has_payment_method, a.currency, a.created_at,
		(SELECT count(*) FROM tokens t WHERE t.account_id = a.id AND t.revoked_at IS NULL) AS tokens
		FROM accounts a ORDER BY a.created_at, a.id`)
	return as, err
}

package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
)

// Account owns every resource; its payment method gates purchases.
type Account struct {
	ID               string    `db:"id"`
	Name             string    `db:"name"`
	HasPaymentMethod bool      `db:"has_payment_method"`
	CreatedAt        time.Time `db:"created_at"`
}

// CreateAccount inserts an account.
func (s *Store) CreateAccount(ctx context.Context, name string, hasPaymentMethod bool, now time.Time) (Account, error) {
	a := Account{ID: NewID("acct"), Name: name, HasPaymentMethod: hasPaymentMethod, CreatedAt: now.UTC()}
	err := s.Tx(ctx, func(tx *sqlx.Tx) error {
		_, err := tx.NamedExecContext(ctx, `INSERT INTO accounts (id, name, has_payment_method, created_at)
			VALUES (:id, :name, :has_payment_method, :created_at)`, a)
		return err
	})
	if err != nil {
		return Account{}, fmt.Errorf("create account: %w", err)
	}
	return a, nil
}

// GetAccount reads one account.
func (s *Store) GetAccount(ctx context.Context, q sqlx.QueryerContext, id string) (Account, error) {
	var a Account
	err := sqlx.GetContext(ctx, q, &a, `SELECT id, name, has_payment_method, created_at FROM accounts WHERE id = ?`, id)
	return a, notFound(err)
}

// SetPaymentMethod records whether the account has a payment method on file.
func (s *Store) SetPaymentMethod(ctx context.Context, id string, has bool) error {
	return s.Tx(ctx, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE accounts SET has_payment_method = ? WHERE id = ?`, has, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return nil
	})
}

// CountAccounts tells whether the database is fresh (the first start seeds a demo account).
func (s *Store) CountAccounts(ctx context.Context) (int, error) {
	var n int
	err := s.R.GetContext(ctx, &n, `SELECT count(*) FROM accounts`)
	return n, err
}

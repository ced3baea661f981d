package store

import (
	"context"
	"time"

	"github.com/jmoiron/sqlx"
)

// Address is an address book entry.
type Address struct {
	Seq         int64     `db:"seq"`
	ID          string    `db:"id"`
	AccountID   string    `db:"account_id"`
	Mode        string    `db:"mode"`
	CreatedAt   time.Time `db:"created_at"`
	Name        string    `db:"name"`
	Company     string    `db:"company"`
	Street1     string    `db:"street1"`
	Street2     string    `db:"street2"`
	City        string    `db:"city"`
	State       string    `db:"state"`
	Zip         string    `db:"zip"`
	Country     string    `db:"country"`
	Phone       string    `db:"phone"`
	Email       string    `db:"email"`
	Residential *bool     `db:"residential"`
}

const addressColumns = `seq, id, account_id, mode, created_at, name, company, street1, street2, city, state, zip, country, phone, email, residential`

// InsertAddress stores a new address; ID and CreatedAt must be set.
func InsertAddress(ctx context.Context, tx *sqlx.Tx, a *Address) error {
	res, err := tx.NamedExecContext(ctx, `INSERT INTO addresses (id, account_id, mode, created_at, name, company, street1, street2, city, state, zip, country, phone, email, residential)
		VALUES (:id, :account_id, :mode, :created_at, :name, :company, :street1, :street2, :city, :state, :zip, :country, :phone, :email, :residential)`, a)
	if err != nil {
		return err
	}
	a.Seq, err = res.LastInsertId()
	return err
}

// GetAddress reads one address of an account, in either mode (the caller checks the mode).
func (s *Store) GetAddress(ctx context.Context, accountID, id string) (Address, error) {
	var a Address
	err := s.R.GetContext(ctx, &a, `SELECT `+addressColumns+` FROM addresses WHERE account_id = ? AND id = ?`, accountID, id)
	return a, notFound(err)
}

// ListAddresses returns a page of an account's addresses in one mode, newest first,
// and the seq to continue from (0 on the last page).
func (s *Store) ListAddresses(ctx context.Context, accountID, mode string, p Page) ([]Address, int64, error) {
	before, n := p.pageArgs()
	var rows []Address
	err := s.R.SelectContext(ctx, &rows, `SELECT `+addressColumns+` FROM addresses
		WHERE account_id = ? AND mode = ? AND seq < ? ORDER BY seq DESC LIMIT ?`, accountID, mode, before, n)
	if err != nil {
		return nil, 0, err
	}
	rows, next := trimPage(rows, p.Limit, func(a Address) int64 { return a.Seq })
	return rows, next, nil
}

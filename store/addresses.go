package store

import (
	"context"
	"time"

	"github.com/shipd-dev/shipd/paging"
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
func (t *Tx) InsertAddress(ctx context.Context, a *Address) error {
	seq, err := t.insertSeq(ctx, `INSERT INTO addresses (id, account_id, mode, created_at, name, company, street1, street2, city, state, zip, country, phone, email, residential)
		VALUES (:id, :account_id, :mode, :created_at, :name, :company, :street1, :street2, :city, :state, :zip, :country, :phone, :email, :residential)
		RETURNING seq`, a)
	a.Seq = seq
	return err
}

// ListAddresses returns a page of an account's addresses in one mode, newest first,
// and the seq to continue from (0 on the last page).
func (r reader) ListAddresses(ctx context.Context, accountID, mode string, p paging.Request) ([]Address, bool, error) {
	return modePage[Address](ctx, r, p, "addresses", addressColumns, "", accountID, mode)
}

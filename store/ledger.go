package store

import (
	"context"
	"fmt"
	"time"
)

// Ledger entry kinds. Only card_charge leaves the balance alone.
const (
	LedgerBalanceApplied  = "balance_applied"
	LedgerBalanceReleased = "balance_released"
	LedgerCardCharge      = "card_charge"
	LedgerRefundCredit    = "refund_credit"
)

// LedgerEntry is one movement of money for a shipment.
type LedgerEntry struct {
	Seq         int64     `db:"seq"`
	AccountID   string    `db:"account_id"`
	Mode        string    `db:"mode"`
	ShipmentID  string    `db:"shipment_id"`
	Kind        string    `db:"kind"`
	AmountCents int64     `db:"amount_cents"`
	CreatedAt   time.Time `db:"created_at"`
}

// Balance reads the shipping balance of an account in one mode.
func (r reader) Balance(ctx context.Context, accountID, mode string) (int64, error) {
	var b []int64
	if err := r.sel(ctx, &b, `SELECT balance_cents FROM balances WHERE account_id = ? AND mode = ?`, accountID, mode); err != nil {
		return 0, err
	}
	if len(b) == 0 {
		return 0, nil
	}
	return b[0], nil
}

// LockBalance reads the balance of an account in one mode and holds it until
// the transaction ends, so that a debit decided on the amount read cannot
// race another debit.
//
// On PostgreSQL an empty balance is not locked: a caller that reads 0
// debits nothing, so it races no debit, and a credit committed meanwhile
// simply comes after it. Most accounts have no credit, and the row lock
// made every create of an account wait for the one before it to commit
// (one account's creates ran one at a time).
func (t *Tx) LockBalance(ctx context.Context, accountID, mode string) (int64, error) {
	// An account without a balance row has a balance of 0, a missing
	// account none. On SQLite this read is all: its write transaction
	// already holds the database.
	var b int64
	err := t.get(ctx, &b, `SELECT COALESCE((SELECT balance_cents FROM balances WHERE account_id = ? AND mode = ?), 0)
		FROM accounts WHERE id = ?`, accountID, mode, accountID)
	if t.d != postgresDialect || err != nil || b == 0 {
		return b, err
	}
	// A row lock needs a row, which a balance above 0 has.
	err = t.get(ctx, &b, `SELECT balance_cents FROM balances WHERE account_id = ? AND mode = ? FOR UPDATE`, accountID, mode)
	return b, err
}

// AddLedgerEntry records an entry and moves the balance by it (unless it is a
// card charge), in the caller's transaction so the two never disagree. Each
// shipment has at most one entry of a kind, which makes retried jobs harmless:
// the second attempt's entry is refused and reported as false. A debit
// larger than the balance fails (balance_cents >= 0): the caller decides the
// amount on a balance read with LockBalance.
func (t *Tx) AddLedgerEntry(ctx context.Context, e LedgerEntry) (bool, error) {
	res, err := t.tx.NamedExecContext(ctx, `INSERT INTO ledger_entries (account_id, mode, shipment_id, kind, amount_cents, created_at)
		VALUES (:account_id, :mode, :shipment_id, :kind, :amount_cents, :created_at) ON CONFLICT (shipment_id, kind) DO NOTHING`, e)
	if err != nil {
		return false, fmt.Errorf("ledger: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return false, nil
	}
	if e.Kind == LedgerCardCharge {
		return true, nil
	}
	// Insert then update: SQLite checks balance_cents >= 0 on the row an
	// upsert would insert before it resolves the conflict, so a debit cannot
	// ride on INSERT ... ON CONFLICT DO UPDATE.
	if _, err := t.exec(ctx, `INSERT INTO balances (account_id, mode) VALUES (?, ?) ON CONFLICT DO NOTHING`, e.AccountID, e.Mode); err != nil {
		return false, fmt.Errorf("balance: %w", err)
	}
	if _, err := t.exec(ctx, `UPDATE balances SET balance_cents = balance_cents + ? WHERE account_id = ? AND mode = ?`,
		e.AmountCents, e.AccountID, e.Mode); err != nil {
		return false, fmt.Errorf("balance: %w", err)
	}
	return true, nil
}

// LedgerEntries lists an account's entries in one mode, oldest first.
func (r reader) LedgerEntries(ctx context.Context, accountID, mode string) ([]LedgerEntry, error) {
	var es []LedgerEntry
	err := r.sel(ctx, &es, `SELECT seq, account_id, mode, shipment_id, kind, amount_cents, created_at
		FROM ledger_entries WHERE account_id = ? AND mode = ? ORDER BY seq`, accountID, mode)
	return es, err
}

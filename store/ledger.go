package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
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
func Balance(ctx context.Context, q sqlx.QueryerContext, accountID, mode string) (int64, error) {
	var b []int64
	if err := sqlx.SelectContext(ctx, q, &b, `SELECT balance_cents FROM balances WHERE account_id = ? AND mode = ?`, accountID, mode); err != nil {
		return 0, err
	}
	if len(b) == 0 {
		return 0, nil
	}
	return b[0], nil
}

// AddLedgerEntry records an entry and moves the balance by it (unless it is a
// card charge), in the caller's transaction so the two never disagree. Each
// shipment has at most one entry of a kind, which makes retried jobs harmless:
// the second attempt's entry is refused and reported as false.
func AddLedgerEntry(ctx context.Context, tx *sqlx.Tx, e LedgerEntry) (bool, error) {
	res, err := tx.NamedExecContext(ctx, `INSERT INTO ledger_entries (account_id, mode, shipment_id, kind, amount_cents, created_at)
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
	if _, err := tx.ExecContext(ctx, `INSERT INTO balances (account_id, mode) VALUES (?, ?) ON CONFLICT DO NOTHING`, e.AccountID, e.Mode); err != nil {
		return false, fmt.Errorf("balance: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE balances SET balance_cents = balance_cents + ? WHERE account_id = ? AND mode = ?`,
		e.AmountCents, e.AccountID, e.Mode); err != nil {
		return false, fmt.Errorf("balance: %w", err)
	}
	return true, nil
}

// LedgerEntries lists an account's entries in one mode, oldest first.
func (s *Store) LedgerEntries(ctx context.Context, accountID, mode string) ([]LedgerEntry, error) {
	var es []LedgerEntry
	err := s.R.SelectContext(ctx, &es, `SELECT seq, account_id, mode, shipment_id, kind, amount_cents, created_at
		FROM ledger_entries WHERE account_id = ? AND mode = ? ORDER BY seq`, accountID, mode)
	return es, err
}

package shipping

import (
	"context"
	"time"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/store"
)

// The movements of money. A label's price is paid first from the account's
// shipping balance (refund credits), the rest charged to the payment method:
//
//   - create: the balance part is reserved (debited) at once, so two
//     purchases can never spend the same credit;
//   - purchase fails: the reserved part is released;
//   - purchase succeeds in live mode: the rest is recorded as a card charge
//     (test mode never charges);
//   - void confirmed: the whole price is credited to the balance.
//
// Each shipment has at most one ledger entry of each kind, so a job that
// runs twice moves money once.

// reserve decides how much of row's price the balance pays, on the balance
// locked for this transaction: a concurrent create waits for it, whatever
// the database.
func (s *Service) reserve(ctx context.Context, tx *store.Tx, row *store.Shipment) error {
	balance, err := tx.LockBalance(ctx, row.AccountID, row.Mode)
	if err != nil {
		return err
	}
	row.BalanceAppliedCents = min(balance, row.CustomerPriceCents)
	row.ChargeAmountCents = row.CustomerPriceCents - row.BalanceAppliedCents
	return nil
}

// recordReserve debits the reserved part, once the shipment row exists.
func (s *Service) recordReserve(ctx context.Context, tx *store.Tx, row store.Shipment, now time.Time) error {
	if row.BalanceAppliedCents <= 0 {
		return nil
	}
	_, err := tx.AddLedgerEntry(ctx, store.LedgerEntry{AccountID: row.AccountID, Mode: row.Mode, ShipmentID: row.ID,
		Kind: store.LedgerBalanceApplied, AmountCents: -row.BalanceAppliedCents, CreatedAt: now})
	return err
}

// Release gives back the reserved part of a purchase that failed.
func (s *Service) Release(ctx context.Context, tx *store.Tx, row store.Shipment, now time.Time) error {
	if row.BalanceAppliedCents <= 0 {
		return nil
	}
	_, err := tx.AddLedgerEntry(ctx, store.LedgerEntry{AccountID: row.AccountID, Mode: row.Mode, ShipmentID: row.ID,
		Kind: store.LedgerBalanceReleased, AmountCents: row.BalanceAppliedCents, CreatedAt: now})
	return err
}

// Charge records the card charge of a bought live label.
func (s *Service) Charge(ctx context.Context, tx *store.Tx, row store.Shipment, now time.Time) error {
	if accounts.Mode(row.Mode) != accounts.Live || row.ChargeAmountCents <= 0 {
		return nil
	}
	_, err := tx.AddLedgerEntry(ctx, store.LedgerEntry{AccountID: row.AccountID, Mode: row.Mode, ShipmentID: row.ID,
		Kind: store.LedgerCardCharge, AmountCents: row.ChargeAmountCents, CreatedAt: now})
	return err
}

// credit puts the whole price of a voided label on the balance; a return
// label voided before its first use was never paid, and gets nothing.
func (s *Service) Credit(ctx context.Context, tx *store.Tx, row store.Shipment, now time.Time) error {
	if !paid(row) {
		return nil
	}
	_, err := tx.AddLedgerEntry(ctx, store.LedgerEntry{AccountID: row.AccountID, Mode: row.Mode, ShipmentID: row.ID,
		Kind: store.LedgerRefundCredit, AmountCents: row.CustomerPriceCents, CreatedAt: now})
	return err
}

// LedgerKind says what moved money.
type LedgerKind string

// The kinds of movement (see the top of this file).
const (
	LedgerBalanceApplied  LedgerKind = store.LedgerBalanceApplied
	LedgerBalanceReleased LedgerKind = store.LedgerBalanceReleased
	LedgerCardCharge      LedgerKind = store.LedgerCardCharge
	LedgerRefundCredit    LedgerKind = store.LedgerRefundCredit
)

// LedgerEntry is one movement of money of a shipment: negative amounts
// leave the balance, positive ones come back to it (a card charge is
// recorded, and leaves the balance alone).
type LedgerEntry struct {
	ShipmentID  string
	Kind        LedgerKind
	AmountCents int64
	CreatedAt   time.Time
}

// Ledger lists the caller's movements of money, oldest first, and the balance.
func (s *Service) Ledger(ctx context.Context, c accounts.Caller) ([]LedgerEntry, int64, error) {
	rows, err := s.store.LedgerEntries(ctx, c.AccountID, string(c.Mode))
	if err != nil {
		return nil, 0, err
	}
	balance, err := s.store.Balance(ctx, c.AccountID, string(c.Mode))
	if err != nil {
		return nil, 0, err
	}
	entries := make([]LedgerEntry, len(rows))
	for i, r := range rows {
		entries[i] = LedgerEntry{ShipmentID: r.ShipmentID, Kind: LedgerKind(r.Kind), AmountCents: r.AmountCents, CreatedAt: r.CreatedAt}
	}
	return entries, balance, nil
}

package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/store"
)

// testLedger covers ledger.go.
func testLedger(t *testing.T, open Opener) {
	leaf(t, open, "entries move the balance except card charges", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct := newAccount(t, s)
		refunded := newShipment(t, s, acct.ID, "live", "refunded")
		bought := newShipment(t, s, acct.ID, "live", "purchased")
		balance := func() int64 {
			t.Helper()
			b, err := s.Balance(ctx, acct.ID, "live")
			noErr(t, "Balance", err)
			return b
		}
		if b := balance(); b != 0 {
			t.Fatalf("Balance before any entry = %d, want 0", b)
		}
		entries := []store.LedgerEntry{
			{AccountID: acct.ID, Mode: "live", ShipmentID: refunded.ID, Kind: store.LedgerRefundCredit, AmountCents: 1000, CreatedAt: t0},
			{AccountID: acct.ID, Mode: "live", ShipmentID: bought.ID, Kind: store.LedgerBalanceApplied, AmountCents: -300, CreatedAt: at(time.Second)},
			{AccountID: acct.ID, Mode: "live", ShipmentID: bought.ID, Kind: store.LedgerCardCharge, AmountCents: 537, CreatedAt: at(2 * time.Second)},
			{AccountID: acct.ID, Mode: "live", ShipmentID: bought.ID, Kind: store.LedgerBalanceReleased, AmountCents: 300, CreatedAt: at(3 * time.Second)},
		}
		wantBalances := []int64{1000, 700, 700, 1000}
		for i, e := range entries {
			mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
				added, err := tx.AddLedgerEntry(ctx, e)
				noErr(t, "AddLedgerEntry", err)
				if !added {
					t.Errorf("AddLedgerEntry of a new %s = false", e.Kind)
				}
				return nil
			})
			if b := balance(); b != wantBalances[i] {
				t.Errorf("Balance after %s of %d = %d, want %d", e.Kind, e.AmountCents, b, wantBalances[i])
			}
		}
		got, err := s.LedgerEntries(ctx, acct.ID, "live")
		noErr(t, "LedgerEntries", err)
		for i := range got {
			if got[i].Seq == 0 {
				t.Errorf("LedgerEntries[%d].Seq = 0", i)
			}
			got[i].Seq = 0
		}
		if d := diff(entries, got); d != "" {
			t.Errorf("LedgerEntries (-want +got):\n%s", d)
		}
	})

	leaf(t, open, "one entry per shipment and kind", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct := newAccount(t, s)
		sh := newShipment(t, s, acct.ID, "test", "refunded")
		credit := store.LedgerEntry{AccountID: acct.ID, Mode: "test", ShipmentID: sh.ID, Kind: store.LedgerRefundCredit, AmountCents: 837, CreatedAt: t0}
		for i, wantAdded := range []bool{true, false} {
			mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
				added, err := tx.AddLedgerEntry(ctx, credit)
				noErr(t, "AddLedgerEntry", err)
				if added != wantAdded {
					t.Errorf("AddLedgerEntry call %d = %v, want %v", i+1, added, wantAdded)
				}
				return nil
			})
		}
		b, err := s.Balance(ctx, acct.ID, "test")
		noErr(t, "Balance", err)
		if b != 837 {
			t.Errorf("Balance after a repeated credit = %d, want 837", b)
		}
		entries, err := s.LedgerEntries(ctx, acct.ID, "test")
		noErr(t, "LedgerEntries", err)
		if len(entries) != 1 {
			t.Errorf("LedgerEntries after a repeated credit = %d entries, want 1", len(entries))
		}
	})

	leaf(t, open, "balance and entries are per account and mode", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct, other := newAccount(t, s), newAccount(t, s)
		sh := newShipment(t, s, acct.ID, "live", "refunded")
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			_, err := tx.AddLedgerEntry(ctx, store.LedgerEntry{AccountID: acct.ID, Mode: "live", ShipmentID: sh.ID,
				Kind: store.LedgerRefundCredit, AmountCents: 500, CreatedAt: t0})
			return err
		})
		for _, scope := range []struct{ account, mode string }{{acct.ID, "test"}, {other.ID, "live"}} {
			b, err := s.Balance(ctx, scope.account, scope.mode)
			noErr(t, "Balance", err)
			entries, err := s.LedgerEntries(ctx, scope.account, scope.mode)
			noErr(t, "LedgerEntries", err)
			if b != 0 || len(entries) != 0 {
				t.Errorf("account %s in %s: balance %d and %d entries, want 0 and none", scope.account, scope.mode, b, len(entries))
			}
		}
	})

	leaf(t, open, "a debit below zero fails", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct := newAccount(t, s)
		refunded, bought := newShipment(t, s, acct.ID, "test", "refunded"), newShipment(t, s, acct.ID, "test", "paying")
		credit := store.LedgerEntry{AccountID: acct.ID, Mode: "test", ShipmentID: refunded.ID, Kind: store.LedgerRefundCredit, AmountCents: 100, CreatedAt: t0}
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			_, err := tx.AddLedgerEntry(ctx, credit)
			return err
		})
		err := s.Tx(ctx, func(tx *store.Tx) error {
			_, err := tx.AddLedgerEntry(ctx, store.LedgerEntry{AccountID: acct.ID, Mode: "test", ShipmentID: bought.ID,
				Kind: store.LedgerBalanceApplied, AmountCents: -101, CreatedAt: t0})
			return err
		})
		if err == nil {
			t.Fatal("AddLedgerEntry of a debit larger than the balance succeeded")
		}
		b, err := s.Balance(ctx, acct.ID, "test")
		noErr(t, "Balance", err)
		entries, err := s.LedgerEntries(ctx, acct.ID, "test")
		noErr(t, "LedgerEntries", err)
		if b != 100 || len(entries) != 1 {
			t.Errorf("after the refused debit: balance %d and %d entries, want 100 and 1", b, len(entries))
		}
		// With no balance row at all, any debit is below zero.
		other := newAccount(t, s)
		otherShipment := newShipment(t, s, other.ID, "test", "paying")
		err = s.Tx(ctx, func(tx *store.Tx) error {
			_, err := tx.AddLedgerEntry(ctx, store.LedgerEntry{AccountID: other.ID, Mode: "test", ShipmentID: otherShipment.ID,
				Kind: store.LedgerBalanceApplied, AmountCents: -1, CreatedAt: t0})
			return err
		})
		if err == nil {
			t.Error("AddLedgerEntry of a debit on an account without balance succeeded")
		}
	})

	leaf(t, open, "LockBalance reads the balance", func(t *testing.T, s *store.Store) {
		acct := newAccount(t, s)
		sh := newShipment(t, s, acct.ID, "test", "refunded")
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			b, err := tx.LockBalance(ctx, acct.ID, "test")
			noErr(t, "LockBalance", err)
			if b != 0 {
				t.Errorf("LockBalance of a new balance = %d, want 0", b)
			}
			_, err = tx.AddLedgerEntry(ctx, store.LedgerEntry{AccountID: acct.ID, Mode: "test", ShipmentID: sh.ID,
				Kind: store.LedgerRefundCredit, AmountCents: 250, CreatedAt: t0})
			noErr(t, "AddLedgerEntry", err)
			// A second lock in the same transaction is harmless and sees the credit.
			b, err = tx.LockBalance(ctx, acct.ID, "test")
			noErr(t, "LockBalance", err)
			if b != 250 {
				t.Errorf("LockBalance after a credit = %d, want 250", b)
			}
			return nil
		})
		err := s.Tx(t.Context(), func(tx *store.Tx) error {
			_, err := tx.LockBalance(t.Context(), "acct_missing", "test")
			return err
		})
		if err == nil {
			t.Error("LockBalance of a missing account succeeded")
		}
	})

	leaf(t, open, "concurrent debits under LockBalance never overdraw", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct := newAccount(t, s)
		const debits, start, most = 20, 1000, 300
		refunded := newShipment(t, s, acct.ID, "live", "refunded")
		shipments := make([]store.Shipment, debits)
		for i := range shipments {
			shipments[i] = newShipment(t, s, acct.ID, "live", "paying")
		}
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			_, err := tx.AddLedgerEntry(ctx, store.LedgerEntry{AccountID: acct.ID, Mode: "live", ShipmentID: refunded.ID,
				Kind: store.LedgerRefundCredit, AmountCents: start, CreatedAt: t0})
			return err
		})
		errs := race(debits, func(i int) error {
			return s.Tx(ctx, func(tx *store.Tx) error {
				b, err := tx.LockBalance(ctx, acct.ID, "live")
				if err != nil {
					return fmt.Errorf("LockBalance: %w", err)
				}
				amount := min(b, most)
				if amount == 0 {
					return nil
				}
				_, err = tx.AddLedgerEntry(ctx, store.LedgerEntry{AccountID: acct.ID, Mode: "live", ShipmentID: shipments[i].ID,
					Kind: store.LedgerBalanceApplied, AmountCents: -amount, CreatedAt: t0})
				return err
			})
		})
		for i, err := range errs {
			if err != nil {
				t.Errorf("debit %d: %v", i, err)
			}
		}
		b, err := s.Balance(ctx, acct.ID, "live")
		noErr(t, "Balance", err)
		if b != 0 {
			t.Errorf("Balance after the racing debits = %d, want 0", b)
		}
		entries, err := s.LedgerEntries(ctx, acct.ID, "live")
		noErr(t, "LedgerEntries", err)
		var debited int64
		for _, e := range entries {
			if e.Kind == store.LedgerBalanceApplied {
				debited += e.AmountCents
			}
		}
		if debited != -start {
			t.Errorf("debit entries sum to %d, want %d", debited, -start)
		}
	})
}

package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/store"
)

// testAccounts covers accounts.go.
func testAccounts(t *testing.T, open Opener) {
	leaf(t, open, "round trip", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		n, err := s.CountAccounts(ctx)
		noErr(t, "CountAccounts", err)
		if n != 0 {
			t.Fatalf("CountAccounts of a fresh database = %d, want 0", n)
		}
		// Both values of the boolean, so that a column stuck at its default fails.
		with := store.Account{ID: store.NewID("acct"), Name: "With card", HasPaymentMethod: true, CreatedAt: t0}
		without := store.Account{ID: store.NewID("acct"), Name: "Without card", HasPaymentMethod: false, CreatedAt: at(time.Second)}
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			noErr(t, "InsertAccount", tx.InsertAccount(ctx, with))
			return tx.InsertAccount(ctx, without)
		})
		for _, want := range []store.Account{with, without} {
			got, err := s.Account(ctx, want.ID)
			noErr(t, "Account", err)
			if d := diff(want, got); d != "" {
				t.Errorf("Account(%s) (-want +got):\n%s", want.ID, d)
			}
		}
		n, err = s.CountAccounts(ctx)
		noErr(t, "CountAccounts", err)
		if n != 2 {
			t.Errorf("CountAccounts = %d, want 2", n)
		}
	})

	leaf(t, open, "missing account", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		_, err := s.Account(ctx, "acct_missing")
		wantErr(t, "Account", err, store.ErrNotFound)
		err = s.Tx(ctx, func(tx *store.Tx) error { return tx.SetPaymentMethod(ctx, "acct_missing", true) })
		wantErr(t, "SetPaymentMethod", err, store.ErrNotFound)
		err = s.Tx(ctx, func(tx *store.Tx) error {
			_, err := tx.LockAccount(ctx, "acct_missing")
			return err
		})
		wantErr(t, "LockAccount", err, store.ErrNotFound)
	})

	leaf(t, open, "duplicate id is refused", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		a := newAccount(t, s)
		err := s.Tx(ctx, func(tx *store.Tx) error {
			return tx.InsertAccount(ctx, store.Account{ID: a.ID, Name: "impostor", CreatedAt: t0})
		})
		if err == nil {
			t.Fatal("InsertAccount with an existing id succeeded")
		}
		got, err := s.Account(ctx, a.ID)
		noErr(t, "Account", err)
		if d := diff(a, got); d != "" {
			t.Errorf("account changed by the refused insert (-want +got):\n%s", d)
		}
	})

	leaf(t, open, "SetPaymentMethod", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		a := newAccount(t, s)
		other := newAccount(t, s)
		for _, has := range []bool{false, true, true} { // the repeat must match its row, changed or not
			mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.SetPaymentMethod(ctx, a.ID, has) })
			got, err := s.Account(ctx, a.ID)
			noErr(t, "Account", err)
			if got.HasPaymentMethod != has {
				t.Errorf("HasPaymentMethod after SetPaymentMethod(%v) = %v", has, got.HasPaymentMethod)
			}
		}
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.SetPaymentMethod(ctx, a.ID, false) })
		got, err := s.Account(ctx, other.ID)
		noErr(t, "Account", err)
		if d := diff(other, got); d != "" {
			t.Errorf("SetPaymentMethod changed another account (-want +got):\n%s", d)
		}
	})

	leaf(t, open, "LockAccount reads the account", func(t *testing.T, s *store.Store) {
		a := newAccount(t, s)
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			got, err := tx.LockAccount(ctx, a.ID)
			noErr(t, "LockAccount", err)
			if d := diff(a, got); d != "" {
				t.Errorf("LockAccount (-want +got):\n%s", d)
			}
			return nil
		})
	})
}

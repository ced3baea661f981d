package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/paging"
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
		with := store.Account{ID: store.NewID("acct"), Name: "With card", HasPaymentMethod: true, Currency: "EUR", CreatedAt: t0}
		without := store.Account{ID: store.NewID("acct"), Name: "Without card", HasPaymentMethod: false, Currency: "USD", CreatedAt: at(time.Second)}
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

	leaf(t, open, "an account without a currency is in USD", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		a := store.Account{ID: store.NewID("acct"), Name: "Old", CreatedAt: t0}
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.InsertAccount(ctx, a) })
		got, err := s.Account(ctx, a.ID)
		noErr(t, "Account", err)
		if got.Currency != "USD" {
			t.Errorf("Currency = %q, want USD", got.Currency)
		}
	})

	leaf(t, open, "SetAccountCurrency", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		a := newAccount(t, s)
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.SetAccountCurrency(ctx, a.ID, "EUR") })
		got, err := s.Account(ctx, a.ID)
		noErr(t, "Account", err)
		if got.Currency != "EUR" {
			t.Errorf("Currency after SetAccountCurrency(EUR) = %q", got.Currency)
		}
		err = s.Tx(ctx, func(tx *store.Tx) error { return tx.SetAccountCurrency(ctx, "acct_missing", "EUR") })
		wantErr(t, "SetAccountCurrency of a missing account", err, store.ErrNotFound)

		// A shipment fixes the currency.
		newShipment(t, s, a.ID, "test", "created")
		err = s.Tx(ctx, func(tx *store.Tx) error { return tx.SetAccountCurrency(ctx, a.ID, "GBP") })
		wantErr(t, "SetAccountCurrency with a shipment", err, store.ErrCurrencyInUse)
		got, err = s.Account(ctx, a.ID)
		noErr(t, "Account", err)
		if got.Currency != "EUR" {
			t.Errorf("Currency after the refused change = %q, want EUR", got.Currency)
		}
	})

	// A create inserts its shipment, then reads the currency it priced in
	// (AccountCurrency) inside its transaction; a change of currency racing
	// it must never leave a shipment in a currency other than its account's.
	leaf(t, open, "SetAccountCurrency races shipments", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		for round := range 8 {
			a := newAccount(t, s)
			errs := race(2, func(i int) error {
				return s.Tx(ctx, func(tx *store.Tx) error {
					if i == 0 {
						return tx.SetAccountCurrency(ctx, a.ID, "EUR")
					}
					sh := shipmentRow(a.ID, "test", "created")
					if err := tx.InsertShipment(ctx, sh); err != nil {
						return err
					}
					c, err := tx.AccountCurrency(ctx, a.ID)
					if err != nil {
						return err
					}
					if c != sh.Currency {
						return store.ErrCurrencyInUse // the create's own refusal: roll back
					}
					return nil
				})
			})
			got, err := s.Account(ctx, a.ID)
			noErr(t, "Account", err)
			rows, _, err := s.ListShipments(ctx, a.ID, "test", "", paging.Request{Limit: 10})
			noErr(t, "ListShipments", err)
			if len(rows) > 0 && got.Currency != "USD" {
				t.Fatalf("round %d: the account changed to %s with a USD shipment committed (errors %v)", round, got.Currency, errs)
			}
			if errs[0] == nil && errs[1] == nil && got.Currency != "USD" {
				t.Fatalf("round %d: both committed and the currency is %s", round, got.Currency)
			}
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

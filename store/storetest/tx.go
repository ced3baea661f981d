package storetest

import (
	"context"
	"errors"
	"testing"

	"github.com/shipd-dev/shipd/store"
)

// testTx covers store.go: Store.Tx commits all or nothing, and a transaction
// reads its own writes while the read pool sees only committed ones.
func testTx(t *testing.T, open Opener) {
	leaf(t, open, "failed transaction commits nothing", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct := newAccount(t, s)
		errAbort := errors.New("abort")
		newAcct := store.Account{ID: store.NewID("acct"), Name: "rolled back", CreatedAt: t0}
		tok := tokenRow(acct.ID)
		sh := shipmentRow(acct.ID, "test", "paying")
		err := s.Tx(ctx, func(tx *store.Tx) error {
			noErr(t, "insert account", tx.InsertAccount(ctx, newAcct))
			noErr(t, "insert token", tx.InsertToken(ctx, tok))
			noErr(t, "insert shipment", tx.InsertShipment(ctx, sh))
			noErr(t, "set payment method", tx.SetPaymentMethod(ctx, acct.ID, false))
			return errAbort
		})
		wantErr(t, "Tx", err, errAbort)

		_, err = s.Account(ctx, newAcct.ID)
		wantErr(t, "account of the failed transaction", err, store.ErrNotFound)
		_, err = s.Token(ctx, tok.ID)
		wantErr(t, "token of the failed transaction", err, store.ErrNotFound)
		_, err = s.ShipmentByID(ctx, sh.ID)
		wantErr(t, "shipment of the failed transaction", err, store.ErrNotFound)
		got, err := s.Account(ctx, acct.ID)
		noErr(t, "Account", err)
		if d := diff(acct, got); d != "" {
			t.Errorf("account updated by the failed transaction (-want +got):\n%s", d)
		}
		n, err := s.CountAccounts(ctx)
		noErr(t, "CountAccounts", err)
		if n != 1 {
			t.Errorf("CountAccounts = %d, want 1", n)
		}
	})

	leaf(t, open, "transaction reads its own writes, others only after commit", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		a := store.Account{ID: store.NewID("acct"), Name: "in flight", HasPaymentMethod: true, CreatedAt: t0}
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			noErr(t, "InsertAccount", tx.InsertAccount(ctx, a))
			got, err := tx.Account(ctx, a.ID)
			noErr(t, "Account in the transaction", err)
			if d := diff(a, got); d != "" {
				t.Errorf("Account in the transaction (-want +got):\n%s", d)
			}
			// The read pool must not see an uncommitted row.
			_, err = s.Account(ctx, a.ID)
			wantErr(t, "Account from the store before commit", err, store.ErrNotFound)
			return nil
		})
		got, err := s.Account(ctx, a.ID)
		noErr(t, "Account after commit", err)
		if d := diff(a, got); d != "" {
			t.Errorf("Account after commit (-want +got):\n%s", d)
		}
	})

	leaf(t, open, "ping", func(t *testing.T, s *store.Store) {
		noErr(t, "Ping", s.Ping(t.Context()))
	})
}

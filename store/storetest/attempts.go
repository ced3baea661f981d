package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/store"
)

// testPurchaseAttempts covers attempts.go: each purchase attempt is counted
// before the carrier is called, so an attempt cut off mid-call is known
// when its job runs again, with what it found then.
func testPurchaseAttempts(t *testing.T, open Opener) {
	leaf(t, open, "counted, with the previous one returned", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct := newAccount(t, s)
		sh := newShipment(t, s, acct.ID, "test", "paying")
		none, err := s.PurchaseAttempt(ctx, sh.ID)
		noErr(t, "PurchaseAttempt", err)
		if d := diff(store.PurchaseAttempt{ShipmentID: sh.ID}, none); d != "" {
			t.Errorf("before any attempt (-want +got):\n%s", d)
		}
		var prev store.PurchaseAttempt
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			var err error
			prev, err = tx.StartPurchaseAttempt(ctx, sh.ID, t0)
			return err
		})
		if d := diff(store.PurchaseAttempt{ShipmentID: sh.ID}, prev); d != "" {
			t.Errorf("the first attempt's previous (-want +got):\n%s", d)
		}
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			return tx.RecordPurchaseRecovery(ctx, sh.ID, "found")
		})
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			var err error
			prev, err = tx.StartPurchaseAttempt(ctx, sh.ID, at(time.Minute))
			return err
		})
		want := store.PurchaseAttempt{ShipmentID: sh.ID, Attempts: 1, StartedAt: t0, Recovery: "found"}
		if d := diff(want, prev); d != "" {
			t.Errorf("the second attempt's previous (-want +got):\n%s", d)
		}
		now, err := s.PurchaseAttempt(ctx, sh.ID)
		noErr(t, "PurchaseAttempt", err)
		want.Attempts, want.StartedAt = 2, at(time.Minute)
		if d := diff(want, now); d != "" {
			t.Errorf("after two attempts (-want +got):\n%s", d)
		}
	})
}

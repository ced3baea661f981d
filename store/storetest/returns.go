package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/store"
)

// testReturns covers the return columns of shipments: is_return and
// return_of, written once by InsertShipment, and use_charged_at, written by
// UpdateShipment (the charge at a return label's first scan).
func testReturns(t *testing.T, open Opener) {
	leaf(t, open, "return columns round trip", func(t *testing.T, s *store.Store) {
		acct := newAccount(t, s)
		original := newShipment(t, s, acct.ID, "live", "purchased")
		ret := shipmentRow(acct.ID, "live", "paying")
		ret.IsReturn, ret.ReturnOf = true, &original.ID
		ret.BalanceAppliedCents, ret.ChargeAmountCents = 0, 0
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.InsertShipment(ctx, ret) })
		for _, want := range []store.Shipment{original, *ret} {
			got, err := s.ShipmentByID(t.Context(), want.ID)
			noErr(t, "ShipmentByID", err)
			if d := diff(want, got); d != "" {
				t.Errorf("ShipmentByID (-want +got):\n%s", d)
			}
		}

		charged := *ret
		charged.Status, charged.UseChargedAt = "purchased", ptr(at(3*time.Minute))
		charged.BalanceAppliedCents, charged.ChargeAmountCents = 300, 537
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.UpdateShipment(ctx, &charged) })
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			got, err := tx.LockShipment(ctx, charged.ID)
			noErr(t, "LockShipment", err)
			if d := diff(charged, got); d != "" {
				t.Errorf("LockShipment after the charge (-want +got):\n%s", d)
			}
			return nil
		})
		// An update never rewrites what a return is: only insert sets it.
		altered := charged
		altered.IsReturn, altered.ReturnOf = false, nil
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.UpdateShipment(ctx, &altered) })
		got, err := s.ShipmentByID(t.Context(), charged.ID)
		noErr(t, "ShipmentByID", err)
		if d := diff(charged, got); d != "" {
			t.Errorf("UpdateShipment rewrote the return columns (-want +got):\n%s", d)
		}
	})

	leaf(t, open, "return of a missing shipment is refused", func(t *testing.T, s *store.Store) {
		ret := shipmentRow(newAccount(t, s).ID, "test", "paying")
		ret.IsReturn, ret.ReturnOf = true, ptr("shp_missing")
		err := s.Tx(t.Context(), func(tx *store.Tx) error { return tx.InsertShipment(t.Context(), ret) })
		if err == nil {
			t.Fatal("InsertShipment of a return of a missing shipment succeeded")
		}
	})
}

package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/store"
)

// testShipments covers shipments.go; pages.go walks ListShipments.
func testShipments(t *testing.T, open Opener) {
	leaf(t, open, "round trip", func(t *testing.T, s *store.Store) {
		acct := newAccount(t, s)
		sh := newShipment(t, s, acct.ID, "live", "paying")
		if sh.Seq == 0 {
			t.Error("InsertShipment left Seq at 0")
		}
		// A new shipment has no purchase result: every pointer is nil.
		checkShipment(t, s, sh)

		// Every column UpdateShipment writes, set...
		purchased := sh
		purchased.Status = "purchased"
		purchased.UpdatedAt = at(time.Minute)
		purchased.TrackingNumber = ptr("9400111899223344556677")
		purchased.CarrierShipmentID = ptr("1ZA1B2C3D4E5F6G7H8")
		purchased.LabelKey = ptr("labels/" + sh.ID + ".pdf")
		purchased.TrackerID = ptr("trk_1")
		purchased.TrackingStatus = ptr("pre_transit")
		purchased.ErrorMessage = ptr("first attempt timed out")
		purchased.PurchasedAt = ptr(at(50 * time.Second))
		purchased.VoidedAt = ptr(at(55 * time.Second))
		purchased.BalanceAppliedCents = 837
		purchased.ChargeAmountCents = 0
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.UpdateShipment(ctx, &purchased) })
		checkShipment(t, s, purchased)

		// ...and cleared again, so that NULL is written and not only read.
		cleared := sh
		cleared.Status = "failed"
		cleared.UpdatedAt = at(2 * time.Minute)
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.UpdateShipment(ctx, &cleared) })
		checkShipment(t, s, cleared)
	})

	leaf(t, open, "reads are scoped by account", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct, other := newAccount(t, s), newAccount(t, s)
		sh := newShipment(t, s, acct.ID, "test", "paying")
		_, err := s.CachedShipment(ctx, other.ID, sh.ID)
		wantErr(t, "Shipment of another account", err, store.ErrNotFound)
		_, err = s.CachedShipment(ctx, acct.ID, "shp_missing")
		wantErr(t, "Shipment", err, store.ErrNotFound)
		_, err = s.ShipmentByID(ctx, "shp_missing")
		wantErr(t, "ShipmentByID", err, store.ErrNotFound)
	})

	leaf(t, open, "LockShipment", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		sh := newShipment(t, s, newAccount(t, s).ID, "test", "paying")
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			got, err := tx.LockShipment(ctx, sh.ID)
			noErr(t, "LockShipment", err)
			if d := diff(sh, got); d != "" {
				t.Errorf("LockShipment (-want +got):\n%s", d)
			}
			return nil
		})
		err := s.Tx(ctx, func(tx *store.Tx) error {
			_, err := tx.LockShipment(ctx, "shp_missing")
			return err
		})
		wantErr(t, "LockShipment of a missing shipment", err, store.ErrNotFound)
	})

	leaf(t, open, "shipment of a missing account is refused", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		sh := shipmentRow("acct_missing", "test", "paying")
		err := s.Tx(ctx, func(tx *store.Tx) error { return tx.InsertShipment(ctx, sh) })
		if err == nil {
			t.Fatal("InsertShipment for a missing account succeeded")
		}
		_, err = s.ShipmentByID(ctx, sh.ID)
		wantErr(t, "ShipmentByID after the refused insert", err, store.ErrNotFound)
	})
}

// checkShipment fails the test unless every read of want's shipment returns
// want; want must be the only shipment of its account.
func checkShipment(t *testing.T, s *store.Store, want store.Shipment) {
	t.Helper()
	ctx := t.Context()
	for _, status := range []string{"", want.Status} {
		rows, _, err := s.ListShipments(ctx, want.AccountID, want.Mode, status, paging.Request{Limit: 10})
		noErr(t, "ListShipments", err)
		if d := diff([]store.Shipment{want}, rows); d != "" {
			t.Errorf("ListShipments with status %q (-want +got):\n%s", status, d)
		}
	}
	got, err := s.CachedShipment(ctx, want.AccountID, want.ID)
	noErr(t, "Shipment", err)
	if d := diff(want, got); d != "" {
		t.Errorf("Shipment (-want +got):\n%s", d)
	}
	got, err = s.ShipmentByID(ctx, want.ID)
	noErr(t, "ShipmentByID", err)
	if d := diff(want, got); d != "" {
		t.Errorf("ShipmentByID (-want +got):\n%s", d)
	}
}

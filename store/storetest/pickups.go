package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/store"
)

// pickupRow is a pickup of accountID in test mode being requested from the
// carrier, under idempotency key key (nil: none).
func pickupRow(accountID string, key *string) *store.Pickup {
	return &store.Pickup{ID: store.NewID("pkp"), AccountID: accountID, Mode: "test", Carrier: "ups", Status: "requesting",
		Address: `{"zip":"94105"}`, ReadyAt: "2025-03-15T09:00:00-07:00", CloseAt: "2025-03-15T17:00:00-07:00",
		PackageCount: 3, TotalWeightOz: ptr(48.5), Instructions: "side door", ShipmentIDs: "[]",
		IdempotencyKey: key, CreatedAt: t0, UpdatedAt: t0}
}

func newPickup(t *testing.T, s *store.Store, accountID string, key *string) store.Pickup {
	t.Helper()
	p := pickupRow(accountID, key)
	mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.InsertPickup(ctx, p) })
	return *p
}

// testPickups covers pickups.go: the rows, the request found again by its
// idempotency key, and the moves guarded by the status they leave.
func testPickups(t *testing.T, open Opener) {
	leaf(t, open, "round trip, list, by key", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct, other := newAccount(t, s), newAccount(t, s)
		first := newPickup(t, s, acct.ID, ptr("key-1"))
		second := newPickup(t, s, acct.ID, nil)
		got, err := s.Pickup(ctx, acct.ID, first.ID)
		noErr(t, "Pickup", err)
		if d := diff(first, got); d != "" {
			t.Errorf("Pickup (-want +got):\n%s", d)
		}
		_, err = s.Pickup(ctx, other.ID, first.ID)
		wantErr(t, "Pickup of another account", err, store.ErrNotFound)
		byKey, err := s.RequestingPickupByKey(ctx, acct.ID, "test", "key-1")
		noErr(t, "RequestingPickupByKey", err)
		if byKey.ID != first.ID {
			t.Errorf("by key: %s, want %s", byKey.ID, first.ID)
		}
		_, err = s.RequestingPickupByKey(ctx, acct.ID, "live", "key-1")
		wantErr(t, "RequestingPickupByKey in the other mode", err, store.ErrNotFound)
		page, more, err := s.ListPickups(ctx, acct.ID, "test", paging.Request{Limit: 1})
		noErr(t, "ListPickups", err)
		if len(page) != 1 || page[0].ID != second.ID || !more {
			t.Errorf("first page %v (more %v), want the newest and more", page, more)
		}
	})

	leaf(t, open, "confirm, cancel, delete by status", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct := newAccount(t, s)
		p := newPickup(t, s, acct.ID, ptr("key-1"))
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			locked, err := tx.LockPickup(ctx, p.ID)
			if err != nil {
				return err
			}
			if locked.Status != "requesting" {
				t.Errorf("locked %s, want requesting", locked.Status)
			}
			return tx.ConfirmPickup(ctx, p.ID, "PRX123", "SFO", at(time.Minute))
		})
		got, err := s.Pickup(ctx, acct.ID, p.ID)
		noErr(t, "Pickup", err)
		p.Status, p.ConfirmationNumber, p.CarrierLocation, p.UpdatedAt = "scheduled", ptr("PRX123"), "SFO", at(time.Minute)
		if d := diff(p, got); d != "" {
			t.Errorf("confirmed (-want +got):\n%s", d)
		}
		_, err = s.RequestingPickupByKey(ctx, acct.ID, "test", "key-1")
		wantErr(t, "RequestingPickupByKey of a scheduled pickup", err, store.ErrNotFound)
		err = s.Tx(ctx, func(tx *store.Tx) error { return tx.ConfirmPickup(ctx, p.ID, "again", "", t0) })
		wantErr(t, "ConfirmPickup twice", err, store.ErrNotFound)
		err = s.Tx(ctx, func(tx *store.Tx) error { return tx.DeletePickup(ctx, p.ID) })
		wantErr(t, "DeletePickup of a scheduled pickup", err, store.ErrNotFound)

		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.CancelPickup(ctx, p.ID, at(time.Hour)) })
		got, err = s.Pickup(ctx, acct.ID, p.ID)
		noErr(t, "Pickup", err)
		if got.Status != "cancelled" || got.CancelledAt == nil || !got.CancelledAt.Equal(at(time.Hour)) {
			t.Errorf("cancelled: %s at %v", got.Status, got.CancelledAt)
		}
		err = s.Tx(ctx, func(tx *store.Tx) error { return tx.CancelPickup(ctx, p.ID, at(time.Hour)) })
		wantErr(t, "CancelPickup twice", err, store.ErrNotFound)

		// A request the carrier never booked is forgotten.
		q := newPickup(t, s, acct.ID, nil)
		err = s.Tx(ctx, func(tx *store.Tx) error { return tx.CancelPickup(ctx, q.ID, t0) })
		wantErr(t, "CancelPickup of a request", err, store.ErrNotFound)
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.DeletePickup(ctx, q.ID) })
		_, err = s.Pickup(ctx, acct.ID, q.ID)
		wantErr(t, "Pickup deleted", err, store.ErrNotFound)
		err = s.Tx(ctx, func(tx *store.Tx) error { _, err := tx.LockPickup(ctx, q.ID); return err })
		wantErr(t, "LockPickup deleted", err, store.ErrNotFound)
	})
}

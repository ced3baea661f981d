package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/store"
)

func carrierAccountRow(accountID, mode string, enabled bool) *store.CarrierAccount {
	return &store.CarrierAccount{ID: store.NewID("ca"), AccountID: accountID, Mode: mode, Carrier: "ups",
		Description: ptr("warehouse"), Environment: "sandbox", ClientID: "client", SecretCiphertext: "sealed-secret",
		AccountNumber: "A1B2C3", CredentialsCiphertext: "sealed-credentials", Enabled: enabled, Version: 1,
		CreatedAt: t0, UpdatedAt: t0}
}

func newCarrierAccount(t *testing.T, s *store.Store, accountID, mode string, enabled bool) store.CarrierAccount {
	t.Helper()
	a := carrierAccountRow(accountID, mode, enabled)
	mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.InsertCarrierAccount(ctx, a) })
	return *a
}

// testCarrierAccounts covers carrieraccounts.go: rows, the enabled ones a
// purchase may use, updates, and soft deletes that keep the row for the
// labels bought through it.
func testCarrierAccounts(t *testing.T, open Opener) {
	leaf(t, open, "round trip, enabled, list", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct, other := newAccount(t, s), newAccount(t, s)
		on := newCarrierAccount(t, s, acct.ID, "live", true)
		off := newCarrierAccount(t, s, acct.ID, "live", false)
		newCarrierAccount(t, s, acct.ID, "test", true)
		got, err := s.CarrierAccount(ctx, acct.ID, on.ID)
		noErr(t, "CarrierAccount", err)
		if d := diff(on, got); d != "" {
			t.Errorf("CarrierAccount (-want +got):\n%s", d)
		}
		_, err = s.CarrierAccount(ctx, other.ID, on.ID)
		wantErr(t, "CarrierAccount of another account", err, store.ErrNotFound)
		enabled, err := s.EnabledCarrierAccounts(ctx, acct.ID, "live")
		noErr(t, "EnabledCarrierAccounts", err)
		if len(enabled) != 1 || enabled[0].ID != on.ID {
			t.Errorf("enabled %v, want only %s", enabled, on.ID)
		}
		page, more, err := s.ListCarrierAccounts(ctx, acct.ID, "live", paging.Request{Limit: 5})
		noErr(t, "ListCarrierAccounts", err)
		if len(page) != 2 || page[0].ID != off.ID || more {
			t.Errorf("list %v (more %v), want both live ones, newest first", page, more)
		}
	})

	leaf(t, open, "update and delete", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct, other := newAccount(t, s), newAccount(t, s)
		a := newCarrierAccount(t, s, acct.ID, "live", true)
		a.Description, a.Enabled, a.SecretCiphertext, a.Version, a.UpdatedAt = nil, false, "resealed", 2, at(time.Hour)
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.UpdateCarrierAccount(ctx, &a) })
		got, err := s.CarrierAccount(ctx, acct.ID, a.ID)
		noErr(t, "CarrierAccount", err)
		if d := diff(a, got); d != "" {
			t.Errorf("updated (-want +got):\n%s", d)
		}
		err = s.Tx(ctx, func(tx *store.Tx) error { return tx.DeleteCarrierAccount(ctx, other.ID, a.ID, t0) })
		wantErr(t, "DeleteCarrierAccount of another account", err, store.ErrNotFound)
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			return tx.DeleteCarrierAccount(ctx, acct.ID, a.ID, at(2*time.Hour))
		})
		_, err = s.CarrierAccount(ctx, acct.ID, a.ID)
		wantErr(t, "CarrierAccount deleted", err, store.ErrNotFound)
		err = s.Tx(ctx, func(tx *store.Tx) error { return tx.UpdateCarrierAccount(ctx, &a) })
		wantErr(t, "UpdateCarrierAccount deleted", err, store.ErrNotFound)
		err = s.Tx(ctx, func(tx *store.Tx) error { return tx.DeleteCarrierAccount(ctx, acct.ID, a.ID, t0) })
		wantErr(t, "DeleteCarrierAccount twice", err, store.ErrNotFound)
		// The labels bought through it still name it.
		kept, err := s.CarrierAccountByID(ctx, a.ID)
		noErr(t, "CarrierAccountByID deleted", err)
		if kept.DeletedAt == nil || !kept.DeletedAt.Equal(at(2*time.Hour)) {
			t.Errorf("deleted at %v", kept.DeletedAt)
		}
		page, _, err := s.ListCarrierAccounts(ctx, acct.ID, "live", paging.Request{Limit: 5})
		noErr(t, "ListCarrierAccounts", err)
		if len(page) != 0 {
			t.Errorf("a deleted carrier account is listed: %v", page)
		}
	})
}

package storetest

import (
	"context"
	"testing"

	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/store"
)

// testAddresses covers addresses.go; pages.go walks ListAddresses.
func testAddresses(t *testing.T, open Opener) {
	leaf(t, open, "round trip", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct := newAccount(t, s)
		// Residential is a three-state column: unknown, yes, no. The
		// optional text columns are empty in one row and set in another.
		unknown := addressRow(acct.ID, "test")
		unknown.Residential = nil
		unknown.Name, unknown.Company, unknown.Street2, unknown.State, unknown.Phone, unknown.Email = "", "", "", "", "", ""
		home := addressRow(acct.ID, "test")
		business := addressRow(acct.ID, "test")
		business.Residential = ptr(false)
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			for _, a := range []*store.Address{unknown, home, business} {
				noErr(t, "InsertAddress", tx.InsertAddress(ctx, a))
			}
			return nil
		})
		if !(unknown.Seq < home.Seq && home.Seq < business.Seq) {
			t.Errorf("InsertAddress seqs %d, %d, %d do not increase with insertion", unknown.Seq, home.Seq, business.Seq)
		}
		got, more, err := s.ListAddresses(ctx, acct.ID, "test", paging.Request{Limit: 10})
		noErr(t, "ListAddresses", err)
		if more {
			t.Error("ListAddresses: more = true on the only page")
		}
		if d := diff([]store.Address{*business, *home, *unknown}, got); d != "" {
			t.Errorf("ListAddresses (-want +got):\n%s", d)
		}
	})

	leaf(t, open, "duplicate id is refused", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct := newAccount(t, s)
		first := newAddress(t, s, acct.ID, "test")
		dup := addressRow(acct.ID, "test")
		dup.ID = first.ID
		err := s.Tx(ctx, func(tx *store.Tx) error { return tx.InsertAddress(ctx, dup) })
		if err == nil {
			t.Fatal("InsertAddress with an existing id succeeded")
		}
		got, _, err := s.ListAddresses(ctx, acct.ID, "test", paging.Request{Limit: 10})
		noErr(t, "ListAddresses", err)
		if d := diff([]store.Address{first}, got); d != "" {
			t.Errorf("ListAddresses after the refused insert (-want +got):\n%s", d)
		}
	})
}

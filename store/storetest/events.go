package storetest

import (
	"context"
	"testing"

	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/store"
)

// testEvents covers events.go; pages.go walks ListEvents.
func testEvents(t *testing.T, open Opener) {
	leaf(t, open, "round trip", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct := newAccount(t, s)
		first := eventRow(acct.ID, "test", "label.purchased")
		second := eventRow(acct.ID, "live", "tracker.updated")
		second.Data = `{"id":"trk_1","status":"delivered"}`
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			noErr(t, "InsertEvent", tx.InsertEvent(ctx, first))
			return tx.InsertEvent(ctx, second)
		})
		if first.Seq == 0 || second.Seq <= first.Seq {
			t.Errorf("InsertEvent seqs %d then %d, want increasing and set", first.Seq, second.Seq)
		}
		for _, want := range []*store.Event{first, second} {
			got, err := s.EventByID(ctx, want.ID)
			noErr(t, "EventByID", err)
			if d := diff(*want, got); d != "" {
				t.Errorf("EventByID(%s) (-want +got):\n%s", want.ID, d)
			}
		}
		lists := []struct {
			mode, eventType string
			want            *store.Event
		}{{"test", "", first}, {"test", first.Type, first}, {"live", "", second}, {"live", second.Type, second}}
		for _, l := range lists {
			rows, _, err := s.ListEvents(ctx, acct.ID, l.mode, l.eventType, paging.Request{Limit: 10})
			noErr(t, "ListEvents", err)
			if d := diff([]store.Event{*l.want}, rows); d != "" {
				t.Errorf("ListEvents(%s, %q) (-want +got):\n%s", l.mode, l.eventType, d)
			}
		}
		_, err := s.EventByID(ctx, "evt_missing")
		wantErr(t, "EventByID", err, store.ErrNotFound)
	})

	leaf(t, open, "event of a missing account is refused", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		e := eventRow("acct_missing", "test", "label.purchased")
		err := s.Tx(ctx, func(tx *store.Tx) error { return tx.InsertEvent(ctx, e) })
		if err == nil {
			t.Fatal("InsertEvent for a missing account succeeded")
		}
		_, err = s.EventByID(ctx, e.ID)
		wantErr(t, "EventByID after the refused insert", err, store.ErrNotFound)
	})
}

package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/store"
)

// unfinished are the item statuses that keep a batch purchasing.
var unfinished = []string{"paying", "pending"}

// newBatch inserts a batch of n paying items and returns it with their ids in order.
func newBatch(t *testing.T, s *store.Store, accountID string, n int) (store.Batch, []string) {
	t.Helper()
	b := store.Batch{ID: store.NewID("bat"), AccountID: accountID, Mode: "test", Status: "purchasing", LabelFormat: "pdf", Total: n, CreatedAt: t0}
	var ids []string
	mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
		if err := tx.InsertBatch(ctx, &b); err != nil {
			return err
		}
		for range n {
			sh := shipmentRow(accountID, "test", "paying")
			sh.BatchID = &b.ID
			if err := tx.InsertShipment(ctx, sh); err != nil {
				return err
			}
			ids = append(ids, sh.ID)
		}
		return nil
	})
	return b, ids
}

// finishItem is what the purchase path does when an item is bought: the
// item moves, then the batch is locked and completed if nothing is left.
func finishItem(ctx context.Context, tx *store.Tx, id, status string) (bool, error) {
	sh, err := tx.LockShipment(ctx, id)
	if err != nil {
		return false, err
	}
	sh.Status = status
	if err := tx.UpdateShipment(ctx, &sh); err != nil {
		return false, err
	}
	if err := tx.LockBatch(ctx, *sh.BatchID); err != nil {
		return false, err
	}
	return tx.CompleteBatch(ctx, *sh.BatchID, unfinished, at(time.Hour))
}

// testBatches covers batches.go.
func testBatches(t *testing.T, open Opener) {
	leaf(t, open, "items in order, counts, completion", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct := newAccount(t, s)
		b, ids := newBatch(t, s, acct.ID, 5)
		rows, more, err := s.BatchShipments(ctx, b.ID, paging.Request{Limit: 3})
		noErr(t, "BatchShipments", err)
		rest, last, err := s.BatchShipments(ctx, b.ID, paging.Request{Limit: 3, After: rows[2].ID})
		noErr(t, "BatchShipments after", err)
		var got []string
		for _, r := range append(rows, rest...) {
			got = append(got, r.ID)
		}
		if d := diff(ids, got); d != "" || !more || last {
			t.Errorf("items (-want +got), more %v then %v:\n%s", more, last, d)
		}
		var done bool
		for i, id := range ids {
			status := "purchased"
			if i == 1 {
				status = "failed"
			}
			mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
				var err error
				done, err = finishItem(ctx, tx, id, status)
				if done != (i == len(ids)-1) {
					t.Errorf("item %d: completed %v", i, done)
				}
				return err
			})
		}
		counts, err := s.BatchCounts(ctx, b.ID)
		noErr(t, "BatchCounts", err)
		if d := diff(map[string]int{"purchased": 4, "failed": 1}, counts); d != "" {
			t.Errorf("counts (-want +got):\n%s", d)
		}
		got2, err := s.Batch(ctx, acct.ID, b.ID)
		noErr(t, "Batch", err)
		if got2.Status != "completed" || got2.CompletedAt == nil {
			t.Errorf("batch after its last item: %+v", got2)
		}
	})

	// Two transactions finishing the last two items at once: exactly one
	// completes the batch (without the batch lock, on PostgreSQL each would
	// see the other's item unfinished and neither would; without the guard
	// on status both could).
	leaf(t, open, "the last items finished at once complete the batch once", func(t *testing.T, s *store.Store) {
		acct := newAccount(t, s)
		for range 5 {
			b, ids := newBatch(t, s, acct.ID, 2)
			dones := make([]bool, 2)
			errs := race(2, func(i int) error {
				return s.Tx(t.Context(), func(tx *store.Tx) error {
					var err error
					dones[i], err = finishItem(t.Context(), tx, ids[i], "purchased")
					return err
				})
			})
			for _, err := range errs {
				noErr(t, "finish", err)
			}
			if dones[0] == dones[1] {
				t.Fatalf("batch %s: completed by %v, want exactly one", b.ID, dones)
			}
			// Finishing again (a job run twice) completes nothing.
			mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
				done, err := finishItem(ctx, tx, ids[0], "purchased")
				if done {
					t.Error("a completed batch completed again")
				}
				return err
			})
		}
	})
}

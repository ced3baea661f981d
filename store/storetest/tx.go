package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/shipd-dev/shipd/store"
)

// testTx covers store.go: Store.Tx commits all or nothing, and a transaction
// reads its own writes while the read pool sees only committed ones.
func testTx(t *testing.T, open Opener) {
	leaf(t, open, "failed transaction commits nothing", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct := newAccount(t, s)
		errAbort := errors.New("abort")
		newAcct := store.Account{ID: store.NewID("acct"), Name: "rolled back", Currency: "USD", CreatedAt: t0}
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
		a := store.Account{ID: store.NewID("acct"), Name: "in flight", HasPaymentMethod: true, Currency: "USD", CreatedAt: t0}
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

	// Concurrent transactions are independent whatever the backend does with
	// them (SQLite commits the waiting ones as a group): each commits exactly
	// when its Tx returns nil; a failure, a panic or a cancelled context
	// undoes only its own writes, and the jobs it enqueued.
	leaf(t, open, "concurrent transactions: each one's outcome is its own", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		errAbort := errors.New("abort")
		// Insert middleware sees each job with the context that enqueued it,
		// even when a group of transactions inserts its jobs at once.
		type enqueuerKey struct{}
		var (
			mu               sync.Mutex // PostgreSQL inserts from each caller's goroutine
			enqueuerMismatch []string
		)
		noErr(t, "SetJobInsertMiddleware", s.SetJobInsertMiddleware(river.JobInsertMiddlewareFunc(
			func(ctx context.Context, params []*rivertype.JobInsertParams, doInner func(context.Context) ([]*rivertype.JobInsertResult, error)) ([]*rivertype.JobInsertResult, error) {
				for i, p := range params {
					var args noteArgs
					noErr(t, "decode job args", json.Unmarshal(p.EncodedArgs, &args))
					if by := store.EnqueuerContext(ctx, i).Value(enqueuerKey{}); by != args.Note {
						mu.Lock()
						enqueuerMismatch = append(enqueuerMismatch, fmt.Sprintf("%s enqueued by %v", args.Note, by))
						mu.Unlock()
					}
				}
				return doInner(ctx)
			})))
		// The first transaction holds the writer while the others queue up
		// behind it, so that they run together (as one group on SQLite).
		hold, held := make(chan struct{}), make(chan struct{})
		firstDone := make(chan error, 1)
		go func() {
			firstDone <- s.Tx(ctx, func(tx *store.Tx) error {
				close(held)
				<-hold
				return tx.InsertAccount(ctx, store.Account{ID: "acct_first", Name: "first", CreatedAt: t0})
			})
		}()
		<-held

		type outcome struct {
			id       string
			err      error
			panicked any
		}
		kinds := []string{"ok", "fails", "panics", "cancelled", "ok", "fails after a write and a read", "ok"}
		outcomes := make(chan outcome, len(kinds))
		var wg sync.WaitGroup
		for i, kind := range kinds {
			id := fmt.Sprintf("acct_%d", i)
			wg.Add(1)
			go func() {
				defer wg.Done()
				o := outcome{id: id}
				defer func() {
					o.panicked = recover()
					outcomes <- o
				}()
				cctx, cancel := context.WithCancel(context.WithValue(ctx, enqueuerKey{}, id))
				defer cancel()
				o.err = s.Tx(cctx, func(tx *store.Tx) error {
					if err := tx.InsertAccount(cctx, store.Account{ID: id, Name: kind, CreatedAt: t0}); err != nil {
						return err
					}
					if err := tx.EnqueueNew(cctx, river.InsertManyParams{Args: noteArgs{Note: id}}); err != nil {
						return err
					}
					switch kind {
					case "fails":
						return errAbort
					case "panics":
						panic("boom " + id)
					case "cancelled":
						cancel() // the caller hangs up mid-transaction
						return tx.SetPaymentMethod(cctx, id, true)
					case "fails after a write and a read":
						if _, err := tx.Account(cctx, id); err != nil {
							return err
						}
						return errAbort
					}
					return nil
				})
			}()
		}
		time.Sleep(50 * time.Millisecond) // let them queue behind the first
		close(hold)
		noErr(t, "the first transaction", <-firstDone)
		wg.Wait()
		close(outcomes)

		got := map[string]string{}
		for o := range outcomes {
			switch {
			case o.panicked != nil:
				got[o.id] = "panicked"
			case errors.Is(o.err, errAbort):
				got[o.id] = "aborted"
			case errors.Is(o.err, context.Canceled):
				got[o.id] = "cancelled"
			case o.err != nil:
				got[o.id] = "error: " + o.err.Error()
			default:
				got[o.id] = "committed"
			}
		}
		want := map[string]string{"acct_0": "committed", "acct_1": "aborted", "acct_2": "panicked", "acct_3": "cancelled",
			"acct_4": "committed", "acct_5": "aborted", "acct_6": "committed"}
		if d := diff(want, got); d != "" {
			t.Fatalf("outcomes (-want +got):\n%s", d)
		}
		for id, o := range want {
			_, err := s.Account(ctx, id)
			if exists := err == nil; exists != (o == "committed") {
				t.Errorf("%s (%s): stored = %v (%v)", id, o, exists, err)
			}
		}
		if _, err := s.Account(ctx, "acct_first"); err != nil {
			t.Errorf("the first transaction's account: %v", err)
		}
		var jobsOf []string
		for _, j := range listJobs(t, s) {
			var args noteArgs
			noErr(t, "decode job args", json.Unmarshal(j.EncodedArgs, &args))
			jobsOf = append(jobsOf, args.Note)
		}
		slices.Sort(jobsOf)
		if d := diff([]string{"acct_0", "acct_4", "acct_6"}, jobsOf); d != "" {
			t.Errorf("jobs enqueued with EnqueueNew, by transaction (-want +got):\n%s", d)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(enqueuerMismatch) > 0 {
			t.Errorf("insert middleware saw jobs with another transaction's context: %v", enqueuerMismatch)
		}
	})

	leaf(t, open, "a store closes twice, after use, without hanging", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		newAccount(t, s)
		if _, err := s.TokensVersion(ctx); err != nil {
			t.Fatalf("TokensVersion: %v", err)
		}
		noErr(t, "Close", s.Close())
		_ = s.Close() // and the Opener's cleanup closes it once more
		if err := s.Tx(ctx, func(*store.Tx) error { return nil }); err == nil {
			t.Error("a transaction on a closed store succeeded")
		}
		if _, err := s.TokensVersion(ctx); err == nil {
			t.Error("TokensVersion on a closed store succeeded")
		}
	})

	leaf(t, open, "ping", func(t *testing.T, s *store.Store) {
		noErr(t, "Ping", s.Ping(t.Context()))
	})
}

package storetest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/store"
)

// testFreshness: whatever a backend keeps in memory (SQLite's cache of
// shipment rows and scans, store.CacheDetails), a read never returns a row
// older than a write that committed before the read began, nor a write that
// was rolled back.
func testFreshness(t *testing.T, open Opener) {
	leaf(t, open, "reads see every commit that finished before them", func(t *testing.T, s *store.Store) {
		freshReads(t, s, s)
	})
	leaf(t, open, "a revision names one content of a row or of scans", revisions)
}

// revisions: cached reads carry a revision (Shipment.Revision,
// CachedScans) that what is derived from them is kept by; equal non-zero
// revisions are equal contents, and a write gives the next reading
// another revision. A store that does not cache answers 0 throughout.
func revisions(t *testing.T, s *store.Store) {
	ctx := t.Context()
	acct := newAccount(t, s)
	tr := newTracker(t, s, acct.ID)
	id := *tr.ShipmentID
	// Two readings in a row of unchanged data, until both are cached
	// (PostgreSQL's first reads may come before its change feed listens).
	twice := func() (store.Shipment, uint64, bool) {
		t.Helper()
		for range 50 {
			a, err := s.CachedShipment(ctx, acct.ID, id)
			noErr(t, "shipment", err)
			b, err := s.CachedShipment(ctx, acct.ID, id)
			noErr(t, "shipment", err)
			_, ea, err := s.CachedScans(ctx, tr.ID, 5)
			noErr(t, "scans", err)
			_, eb, err := s.CachedScans(ctx, tr.ID, 5)
			noErr(t, "scans", err)
			if !s.CachesDetails() {
				if a.Revision+b.Revision+ea+eb != 0 {
					t.Fatalf("a store that does not cache gave revisions %d, %d, %d, %d", a.Revision, b.Revision, ea, eb)
				}
				return b, 0, false
			}
			if a.Revision != 0 && a.Revision == b.Revision {
				if d := cmp.Diff(a, b); d != "" {
					t.Fatalf("one revision, two rows (-first +second):\n%s", d)
				}
			}
			// Unequal revisions of unchanged data are allowed (a change
			// notice of an earlier commit may drop what was just kept);
			// equal ones of changed data are not.
			if a.Revision != 0 && a.Revision == b.Revision && ea != 0 && ea == eb {
				return b, eb, true
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Fatal("no two cached readings in a row")
		return store.Shipment{}, 0, false
	}
	row, scans, cached := twice()
	if !cached {
		return
	}
	changed := row
	msg := "changed"
	changed.ErrorMessage = &msg
	mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.UpdateShipment(ctx, &changed) })
	after, err := s.CachedShipment(ctx, acct.ID, id)
	noErr(t, "shipment", err)
	if after.Revision == row.Revision {
		t.Errorf("the row after a write has the revision of before it, %d", row.Revision)
	}
	mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
		_, err := tx.InsertTrackingEvent(ctx, &store.TrackingEvent{TrackerID: tr.ID, ScanIndex: 1, Status: "in_transit",
			Message: "scan", Location: "Memphis, TN", OccurredAt: at(time.Second)})
		return err
	})
	events, rev, err := s.CachedScans(ctx, tr.ID, 5)
	noErr(t, "scans", err)
	if rev == scans || len(events) != 1 {
		t.Errorf("scans after a write: revision %d (before: %d), %d scans; want another revision, 1 scan", rev, scans, len(events))
	}
	if row2, scans2, _ := twice(); row2.Revision == row.Revision || scans2 == scans {
		t.Errorf("cached again: revisions %d, %d; the ones before the writes were %d, %d", row2.Revision, scans2, row.Revision, scans)
	}
}

// FreshAcrossInstances is testFreshness across two Stores of one database,
// as two instances of shipd on PostgreSQL: what writer commits, reader's
// cached reads see once the commit finished.
func FreshAcrossInstances(t *testing.T, writer, reader *store.Store) {
	freshReads(t, writer, reader)
}

// freshReads writes through w while readers read through r.
func freshReads(t *testing.T, w, r *store.Store) {
	t.Helper()
	{
		s := w
		acct := newAccount(t, s)
		tr := newTracker(t, s, acct.ID)
		sh, err := s.Shipment(t.Context(), acct.ID, *tr.ShipmentID)
		noErr(t, "shipment", err)

		// One writer moves the shipment and adds a scan, one transaction per
		// step, and publishes the step once its Tx returned; readers check
		// that they never see less than what was published before they read.
		const steps = 300
		var committed atomic.Int64
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		var wg sync.WaitGroup
		var stale atomic.Value
		for range 4 {
			wg.Go(func() {
				for ctx.Err() == nil {
					want := committed.Load()
					row, err := r.CachedShipment(ctx, acct.ID, sh.ID)
					if err != nil {
						if ctx.Err() == nil {
							stale.Store(fmt.Sprintf("shipment: %v", err))
						}
						return
					}
					if got := step(row); got < want {
						stale.Store(fmt.Sprintf("shipment at step %d read after step %d committed", got, want))
						return
					}
					evs, err := r.CachedTrackingEvents(ctx, tr.ID, 5)
					if err != nil {
						if ctx.Err() == nil {
							stale.Store(fmt.Sprintf("scans: %v", err))
						}
						return
					}
					if got := int64(len(evs)); got < min(want, 5) || (want > 0 && int64(evs[0].ScanIndex) < want) {
						stale.Store(fmt.Sprintf("scans read after step %d committed: %d, newest %v", want, got, evs))
						return
					}
				}
			})
		}
		errRolledBack := errors.New("rolled back on purpose")
		for i := int64(1); i <= steps && stale.Load() == nil; i++ {
			row := sh
			msg := strconv.FormatInt(i, 10)
			row.ErrorMessage, row.UpdatedAt = &msg, at(time.Duration(i)*time.Second)
			mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
				if err := tx.UpdateShipment(ctx, &row); err != nil {
					return err
				}
				_, err := tx.InsertTrackingEvent(ctx, &store.TrackingEvent{TrackerID: tr.ID, ScanIndex: int(i), Status: "in_transit",
					Message: "scan " + msg, Location: "Memphis, TN", OccurredAt: at(time.Duration(i) * time.Second)})
				return err
			})
			committed.Store(i)
			// A write that rolls back must never be seen, cached or not.
			undone := row
			never := "never committed"
			undone.ErrorMessage = &never
			err := s.Tx(t.Context(), func(tx *store.Tx) error {
				if err := tx.UpdateShipment(t.Context(), &undone); err != nil {
					return err
				}
				return errRolledBack
			})
			wantErr(t, "rolled-back write", err, errRolledBack)
			if got, err := s.Shipment(t.Context(), acct.ID, sh.ID); err != nil || got.ErrorMessage == nil || *got.ErrorMessage != msg {
				t.Fatalf("after a rollback: %v, %v; want step %s", err, got.ErrorMessage, msg)
			}
		}
		cancel()
		wg.Wait()
		if v := stale.Load(); v != nil {
			t.Fatal(v)
		}
		got, err := r.CachedShipment(t.Context(), acct.ID, sh.ID)
		noErr(t, "shipment", err)
		if step(got) != steps {
			t.Fatalf("last read at step %d, want %d", step(got), steps)
		}
		if _, err := r.CachedShipment(t.Context(), "acct_other", sh.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another account's read of the shipment: %v, want ErrNotFound", err)
		}
	}
}

// step is the step a shipment of testFreshness was written at (0: none yet).
func step(row store.Shipment) int64 {
	if row.ErrorMessage == nil {
		return 0
	}
	n, _ := strconv.ParseInt(*row.ErrorMessage, 10, 64)
	return n
}

// FreshAfterOutsideWrite: a shipment row or a scan changed by SQL outside
// shipd (an operator's tool, a script) is not served from a cache once that
// commit finished. exec runs one statement on the same database; ? marks
// its arguments.
func FreshAfterOutsideWrite(t *testing.T, s *store.Store, exec func(query string, args ...any) error) {
	ctx := t.Context()
	acct := newAccount(t, s)
	tr := newTracker(t, s, acct.ID)
	id := *tr.ShipmentID
	mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
		_, err := tx.InsertTrackingEvent(ctx, &store.TrackingEvent{TrackerID: tr.ID, ScanIndex: 1, Status: "in_transit",
			Message: "scan", Location: "Memphis, TN", OccurredAt: at(time.Second)})
		return err
	})
	for range 2 { // the second read is served from the cache, if any
		if _, err := s.CachedShipment(ctx, acct.ID, id); err != nil {
			t.Fatalf("shipment: %v", err)
		}
		if _, err := s.CachedTrackingEvents(ctx, tr.ID, 5); err != nil {
			t.Fatalf("scans: %v", err)
		}
	}
	noErr(t, "outside update", exec(`UPDATE shipments SET error_message = 'set outside' WHERE id = ?`, id))
	row, err := s.CachedShipment(ctx, acct.ID, id)
	noErr(t, "shipment", err)
	if row.ErrorMessage == nil || *row.ErrorMessage != "set outside" {
		t.Errorf("after an outside update, the shipment's error message is %v; want %q", row.ErrorMessage, "set outside")
	}
	before, err := s.CachedTrackingEvents(ctx, tr.ID, 5)
	noErr(t, "scans", err)
	noErr(t, "outside delete", exec(`DELETE FROM tracking_events WHERE tracker_id = ?`, tr.ID))
	after, err := s.CachedTrackingEvents(ctx, tr.ID, 5)
	noErr(t, "scans", err)
	if len(before) == 0 || len(after) != 0 {
		t.Errorf("scans before and after an outside delete: %d, %d; want some, then none", len(before), len(after))
	}
}

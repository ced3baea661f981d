package storetest

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/store"
)

// serverLock is a ServerLock of a file of the test's own: the store's
// upkeep writes take one as proof that the caller serves the database alone.
func serverLock(t *testing.T) *store.ServerLock {
	t.Helper()
	lock, err := store.LockForServing(filepath.Join(t.TempDir(), "serving.db"))
	noErr(t, "LockForServing", err)
	t.Cleanup(func() { lock.Release() })
	return lock
}

// testUpkeep covers the writes on *Store that run their own transactions
// at start, the store's settings, and the operator's reads (metrics, the
// accounts and users commands).
func testUpkeep(t *testing.T, open Opener) {
	leaf(t, open, "orphaned claims and jobs: a SQLite server's at start, no PostgreSQL instance's", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct := newAccount(t, s)
		sc := store.IdempotencyScope{AccountID: acct.ID, Mode: "test", Endpoint: "POST /labels/create", Key: "k1"}
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			_, err := tx.ClaimIdempotencyKey(ctx, sc, []byte("body"), "req_dead", t0, t0.Add(-retention))
			return err
		})
		lock := serverLock(t)
		claims, err := s.OrphanIdempotencyClaims(ctx, lock)
		jobs, jobsErr := s.ReclaimOrphanedJobs(ctx, lock)
		if s.Shared() {
			if err == nil || jobsErr == nil {
				t.Errorf("on a shared database: OrphanIdempotencyClaims %v, ReclaimOrphanedJobs %v; want both refused", err, jobsErr)
			}
			return
		}
		noErr(t, "OrphanIdempotencyClaims", err)
		noErr(t, "ReclaimOrphanedJobs", jobsErr)
		rec, err := s.IdempotencyKey(ctx, sc, t0.Add(-retention))
		noErr(t, "IdempotencyKey", err)
		if claims != 1 || rec.Owner != store.OrphanedClaim || jobs != 0 {
			t.Errorf("orphaned %d claims (owner now %q), reclaimed %d jobs; want 1, %q, 0", claims, rec.Owner, jobs, store.OrphanedClaim)
		}
	})

	leaf(t, open, "settings: tracing, caches, pool metrics", func(t *testing.T, s *store.Store) {
		s.SetTracerProvider(noop.NewTracerProvider())
		s.CacheDetails(serverLock(t)) // a no-op on PostgreSQL, and when already caching
		acct := newAccount(t, s)
		sh := newShipment(t, s, acct.ID, "test", "paying")
		if _, err := s.CachedShipment(t.Context(), acct.ID, sh.ID); err != nil {
			t.Errorf("CachedShipment after the settings: %v", err)
		}
		if len(s.DBStatsCollectors()) == 0 {
			t.Error("no pool metrics")
		}
		if n := s.JobFetches(); n < 0 {
			t.Errorf("JobFetches = %d", n)
		}
	})

	leaf(t, open, "operator's lists: accounts with their tokens, users", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		a := newAccount(t, s)
		b := store.Account{ID: store.NewID("acct"), Name: "Later", Currency: "USD", CreatedAt: at(time.Hour)}
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.InsertAccount(ctx, b) })
		newToken(t, s, a.ID)
		revoked := newToken(t, s, a.ID)
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			return tx.RevokeToken(ctx, revoked.ID, at(time.Minute))
		})
		accounts, err := s.ListAccounts(ctx)
		noErr(t, "ListAccounts", err)
		if d := diff([]store.AccountSummary{{Account: a, Tokens: 1}, {Account: b}}, accounts); d != "" {
			t.Errorf("ListAccounts (-want +got):\n%s", d)
		}
		u1 := newUser(t, s, b.ID, "late@example.com")
		u2 := userRow(a.ID, "early@example.com")
		u2.CreatedAt = t0.Add(-time.Hour)
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.InsertUser(ctx, u2) })
		users, err := s.AllUsers(ctx)
		noErr(t, "AllUsers", err)
		if d := diff([]store.User{u2, u1}, users); d != "" {
			t.Errorf("AllUsers, oldest first (-want +got):\n%s", d)
		}
	})

	leaf(t, open, "operator's gauges: webhook endpoints, job queues", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct := newAccount(t, s)
		paused := newSubscription(t, s, acct.ID, "live", "https://paused.example.com/hook")
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			paused.Enabled = false
			return tx.UpdateSubscription(ctx, &paused)
		})
		stats, err := s.WebhookEndpointStats(ctx)
		noErr(t, "WebhookEndpointStats", err)
		if d := diff([]store.WebhookEndpointStat{{Mode: "live", Paused: 1}}, stats); d != "" {
			t.Errorf("WebhookEndpointStats (-want +got):\n%s", d)
		}
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			return tx.Enqueue(ctx, river.InsertManyParams{Args: noteArgs{Note: "later"},
				InsertOpts: &river.InsertOpts{Queue: "default", ScheduledAt: time.Now().Add(time.Hour)}})
		})
		queues, err := s.JobQueueStats(ctx)
		noErr(t, "JobQueueStats", err)
		if d := diff([]store.JobQueueStat{{Queue: "default", Kind: "storetest_note", State: "scheduled", Count: 1}}, queues); d != "" {
			t.Errorf("JobQueueStats (-want +got):\n%s", d)
		}
	})

	leaf(t, open, "batches listed, their labels in pages", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct := newAccount(t, s)
		first, ids := newBatch(t, s, acct.ID, 3)
		second, _ := newBatch(t, s, acct.ID, 1)
		page, more, err := s.ListBatches(ctx, acct.ID, "test", paging.Request{Limit: 1})
		noErr(t, "ListBatches", err)
		if len(page) != 1 || page[0].ID != second.ID || !more {
			t.Errorf("first page %v (more %v), want the newest and more", page, more)
		}
		labels, err := s.BatchLabels(ctx, first.ID, 0, 2)
		noErr(t, "BatchLabels", err)
		rest, err := s.BatchLabels(ctx, first.ID, labels[len(labels)-1].Seq, 2)
		noErr(t, "BatchLabels after", err)
		var got []string
		for _, l := range append(labels, rest...) {
			got = append(got, l.ID)
		}
		if d := diff(ids, got); d != "" {
			t.Errorf("BatchLabels in pages (-want +got):\n%s", d)
		}
	})

	leaf(t, open, "a tracker locked, its scans newest first", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct := newAccount(t, s)
		tr := newTracker(t, s, acct.ID)
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			locked, err := tx.LockTracker(ctx, tr.ID)
			if err != nil {
				return err
			}
			if locked.ID != tr.ID {
				t.Errorf("locked %s, want %s", locked.ID, tr.ID)
			}
			for i, msg := range []string{"Label created", "Departed", "Arrived"} {
				if _, err := tx.InsertTrackingEvent(ctx, &store.TrackingEvent{TrackerID: tr.ID, ScanIndex: i,
					Status: "in_transit", Message: msg, Location: "SFO", OccurredAt: at(time.Duration(i) * time.Hour)}); err != nil {
					return err
				}
			}
			return nil
		})
		evs, err := s.TrackingEvents(ctx, tr.ID, 2)
		noErr(t, "TrackingEvents", err)
		var got []string
		for _, e := range evs {
			got = append(got, e.Message)
		}
		if d := diff([]string{"Arrived", "Departed"}, got); d != "" {
			t.Errorf("TrackingEvents, limit 2 (-want +got):\n%s", d)
		}
		err = s.Tx(ctx, func(tx *store.Tx) error { _, err := tx.LockTracker(ctx, "trk_missing"); return err })
		wantErr(t, "LockTracker", err, store.ErrNotFound)
	})
}

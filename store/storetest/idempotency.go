package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/store"
)

// retention is how long keys live in these tests; the store takes the bound
// as an argument, so any value works.
const retention = 24 * time.Hour

// testIdempotency covers idempotency.go.
func testIdempotency(t *testing.T, open Opener) {
	leaf(t, open, "claim once per scope", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct, other := newAccount(t, s), newAccount(t, s)
		sc := scope(acct.ID)
		if !claim(t, s, sc, "req_1", t0) {
			t.Fatal("first ClaimIdempotencyKey = false")
		}
		want := store.IdempotencyRecord{AccountID: sc.AccountID, Mode: sc.Mode, Endpoint: sc.Endpoint, Key: sc.Key,
			Fingerprint: fingerprint("req_1"), Owner: "req_1", State: store.IdempotencyInProgress,
			CreatedAt: t0.UnixNano(), ClaimedAt: t0.UnixNano()}
		checkKey(t, s, sc, want)
		if claim(t, s, sc, "req_2", at(time.Second)) {
			t.Error("second ClaimIdempotencyKey of the same scope = true")
		}
		checkKey(t, s, sc, want) // the loser changed nothing
		// Each part of the scope makes another key.
		others := []store.IdempotencyScope{
			{AccountID: other.ID, Mode: sc.Mode, Endpoint: sc.Endpoint, Key: sc.Key},
			{AccountID: sc.AccountID, Mode: "live", Endpoint: sc.Endpoint, Key: sc.Key},
			{AccountID: sc.AccountID, Mode: sc.Mode, Endpoint: "POST /api/v1/webhooks", Key: sc.Key},
			{AccountID: sc.AccountID, Mode: sc.Mode, Endpoint: sc.Endpoint, Key: "key-2"},
		}
		for _, o := range others {
			_, err := s.IdempotencyKey(ctx, o, t0.Add(-retention))
			wantErr(t, fmt.Sprintf("IdempotencyKey(%+v) before its claim", o), err, store.ErrNotFound)
			if !claim(t, s, o, "req_3", t0) {
				t.Errorf("ClaimIdempotencyKey(%+v) = false, want a key of its own", o)
			}
		}
		n, err := s.CountIdempotencyKeys(ctx)
		noErr(t, "CountIdempotencyKeys", err)
		if n != 5 {
			t.Errorf("CountIdempotencyKeys = %d, want 5", n)
		}
	})

	leaf(t, open, "expired keys are hidden and claimed afresh", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		sc := scope(newAccount(t, s).ID)
		claim(t, s, sc, "req_old", t0)
		// The bound is exclusive for lookups: a key created at it has expired.
		_, err := s.IdempotencyKey(ctx, sc, t0)
		wantErr(t, "IdempotencyKey created at the expiry bound", err, store.ErrNotFound)
		_, err = s.IdempotencyKey(ctx, sc, at(time.Hour))
		wantErr(t, "IdempotencyKey created before the expiry bound", err, store.ErrNotFound)
		if _, err := s.IdempotencyKey(ctx, sc, t0.Add(-time.Nanosecond)); err != nil {
			t.Errorf("IdempotencyKey created 1ns after the expiry bound: %v", err)
		}
		// A claim whose bound has passed the key drops it and starts over.
		later := t0.Add(retention + time.Minute)
		var claimed bool
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			var err error
			claimed, err = tx.ClaimIdempotencyKey(ctx, sc, []byte("new body"), "req_new", later, later.Add(-retention))
			return err
		})
		if !claimed {
			t.Fatal("ClaimIdempotencyKey over an expired key = false")
		}
		checkKey(t, s, sc, store.IdempotencyRecord{AccountID: sc.AccountID, Mode: sc.Mode, Endpoint: sc.Endpoint, Key: sc.Key,
			Fingerprint: []byte("new body"), Owner: "req_new", State: store.IdempotencyInProgress,
			CreatedAt: later.UnixNano(), ClaimedAt: later.UnixNano()})
		n, err := s.CountIdempotencyKeys(ctx)
		noErr(t, "CountIdempotencyKeys", err)
		if n != 1 {
			t.Errorf("CountIdempotencyKeys = %d, want 1", n)
		}
	})

	leaf(t, open, "take over succeeds once", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		sc := scope(newAccount(t, s).ID)
		claim(t, s, sc, "req_1", t0)
		takeOver := func(oldOwner, newOwner string, now time.Time) error {
			return s.Tx(ctx, func(tx *store.Tx) error {
				return tx.TakeOverIdempotencyKey(ctx, sc, oldOwner, newOwner, now)
			})
		}
		noErr(t, "TakeOverIdempotencyKey", takeOver("req_1", "req_2", at(time.Minute)))
		// A second request that found the same abandoned key loses.
		wantErr(t, "second TakeOverIdempotencyKey from the old owner", takeOver("req_1", "req_3", at(time.Minute)), store.ErrNotFound)
		want := store.IdempotencyRecord{AccountID: sc.AccountID, Mode: sc.Mode, Endpoint: sc.Endpoint, Key: sc.Key,
			Fingerprint: fingerprint("req_1"), Owner: "req_2", State: store.IdempotencyInProgress,
			CreatedAt: t0.UnixNano(), ClaimedAt: at(time.Minute).UnixNano()}
		checkKey(t, s, sc, want)
		// A completed key is not abandoned, whoever asks.
		complete(t, s, sc, "req_2", "sealed", at(2*time.Minute))
		wantErr(t, "TakeOverIdempotencyKey of a done key", takeOver("req_2", "req_4", at(3*time.Minute)), store.ErrNotFound)
		missing := sc
		missing.Key = "never claimed"
		err := s.Tx(ctx, func(tx *store.Tx) error { return tx.TakeOverIdempotencyKey(ctx, missing, "req_1", "req_2", t0) })
		wantErr(t, "TakeOverIdempotencyKey of a missing key", err, store.ErrNotFound)
	})

	leaf(t, open, "complete only by the owner while in progress", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		sc := scope(newAccount(t, s).ID)
		claim(t, s, sc, "req_1", t0)
		completeAs := func(owner, result string) error {
			return s.Tx(ctx, func(tx *store.Tx) error {
				return tx.CompleteIdempotencyKey(ctx, sc, owner, result, at(time.Second))
			})
		}
		wantErr(t, "CompleteIdempotencyKey by another owner", completeAs("req_2", "forged"), store.ErrNotFound)
		noErr(t, "CompleteIdempotencyKey", completeAs("req_1", "sealed result"))
		want := store.IdempotencyRecord{AccountID: sc.AccountID, Mode: sc.Mode, Endpoint: sc.Endpoint, Key: sc.Key,
			Fingerprint: fingerprint("req_1"), Owner: "req_1", State: store.IdempotencyDone, Result: ptr("sealed result"),
			CreatedAt: t0.UnixNano(), ClaimedAt: t0.UnixNano(), CompletedAt: ptr(at(time.Second).UnixNano())}
		checkKey(t, s, sc, want)
		wantErr(t, "second CompleteIdempotencyKey", completeAs("req_1", "overwritten"), store.ErrNotFound)
		checkKey(t, s, sc, want)
		missing := sc
		missing.Key = "never claimed"
		err := s.Tx(ctx, func(tx *store.Tx) error { return tx.CompleteIdempotencyKey(ctx, missing, "req_1", "x", t0) })
		wantErr(t, "CompleteIdempotencyKey of a missing key", err, store.ErrNotFound)
	})

	leaf(t, open, "release deletes only the owner's key in progress", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct := newAccount(t, s)
		sc, done := scope(acct.ID), scope(acct.ID)
		done.Key = "done-key"
		claim(t, s, sc, "req_1", t0)
		claim(t, s, done, "req_1", t0)
		complete(t, s, done, "req_1", "sealed", at(time.Second))
		release := func(sc store.IdempotencyScope, owner string) {
			t.Helper()
			mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.ReleaseIdempotencyKey(ctx, sc, owner) })
		}
		release(sc, "req_2")
		if _, err := s.IdempotencyKey(ctx, sc, t0.Add(-retention)); err != nil {
			t.Errorf("IdempotencyKey after another owner's release: %v", err)
		}
		release(done, "req_1")
		if _, err := s.IdempotencyKey(ctx, done, t0.Add(-retention)); err != nil {
			t.Errorf("IdempotencyKey of a done key after its owner's release: %v", err)
		}
		release(sc, "req_1")
		_, err := s.IdempotencyKey(ctx, sc, t0.Add(-retention))
		wantErr(t, "IdempotencyKey after the owner's release", err, store.ErrNotFound)
		if !claim(t, s, sc, "req_3", at(time.Minute)) {
			t.Error("ClaimIdempotencyKey of a released key = false")
		}
	})

	leaf(t, open, "purge deletes the keys at or before the cutoff, in batches", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct := newAccount(t, s)
		cutoff := at(time.Hour)
		// More than two purge batches of keys at or before the cutoff (the
		// last exactly at it), and a few after it (the first 1ns after).
		const old, young = 2500, 5
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			for i := range old + young {
				created := cutoff.Add(-time.Duration(old-1-i) * time.Millisecond)
				if i >= old {
					created = cutoff.Add(time.Duration(i-old)*time.Millisecond + time.Nanosecond)
				}
				sc := scope(acct.ID)
				sc.Key = fmt.Sprintf("key-%d", i)
				claimed, err := tx.ClaimIdempotencyKey(ctx, sc, fingerprint("req"), "req", created, created.Add(-retention))
				if err != nil || !claimed {
					return fmt.Errorf("claim %d: %v, %v", i, claimed, err)
				}
			}
			return nil
		})
		n, err := s.CountIdempotencyKeys(ctx)
		noErr(t, "CountIdempotencyKeys", err)
		if n != old+young {
			t.Fatalf("CountIdempotencyKeys before the purge = %d, want %d", n, old+young)
		}
		purged, err := s.PurgeIdempotencyKeys(ctx, cutoff)
		noErr(t, "PurgeIdempotencyKeys", err)
		if purged != old {
			t.Errorf("PurgeIdempotencyKeys = %d, want %d", purged, old)
		}
		n, err = s.CountIdempotencyKeys(ctx)
		noErr(t, "CountIdempotencyKeys", err)
		if n != young {
			t.Errorf("CountIdempotencyKeys after the purge = %d, want %d", n, young)
		}
		// The keys around the cutoff and around the first batch's end.
		for _, i := range []int{0, 999, 1000, 1001, old - 1, old, old + young - 1} {
			sc := scope(acct.ID)
			sc.Key = fmt.Sprintf("key-%d", i)
			// A bound far in the past: only the purge can have removed the key.
			_, err := s.IdempotencyKey(ctx, sc, t0.Add(-retention))
			if kept := err == nil; kept != (i >= old) {
				t.Errorf("key %d: kept = %v (err %v), want %v", i, kept, err, i >= old)
			}
		}
		purged, err = s.PurgeIdempotencyKeys(ctx, cutoff)
		noErr(t, "second PurgeIdempotencyKeys", err)
		if purged != 0 {
			t.Errorf("second PurgeIdempotencyKeys = %d, want 0", purged)
		}
	})

	leaf(t, open, "concurrent claims of one key: exactly one wins", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		sc := scope(newAccount(t, s).ID)
		const claimers = 50
		won := make([]bool, claimers)
		errs := race(claimers, func(i int) error {
			return s.Tx(ctx, func(tx *store.Tx) error {
				var err error
				won[i], err = tx.ClaimIdempotencyKey(ctx, sc, fingerprint("req"), fmt.Sprintf("req_%d", i), t0, t0.Add(-retention))
				return err
			})
		})
		winner := -1
		for i := range claimers {
			if errs[i] != nil {
				t.Errorf("claim %d: %v", i, errs[i])
			}
			if won[i] {
				if winner >= 0 {
					t.Errorf("claims %d and %d both won", winner, i)
				}
				winner = i
			}
		}
		if winner < 0 {
			t.Fatal("no claim won")
		}
		rec, err := s.IdempotencyKey(ctx, sc, t0.Add(-retention))
		noErr(t, "IdempotencyKey", err)
		if want := fmt.Sprintf("req_%d", winner); rec.Owner != want {
			t.Errorf("owner = %s, want the winner %s", rec.Owner, want)
		}
	})
}

// scope is an idempotency scope of accountID for creating a label.
func scope(accountID string) store.IdempotencyScope {
	return store.IdempotencyScope{AccountID: accountID, Mode: "test", Endpoint: "POST /api/v1/labels/create", Key: "key-1"}
}

// fingerprint stands for the hash of a request body.
func fingerprint(body string) []byte { return []byte("sha256:" + body) }

// claim claims sc for owner at now with fingerprint(owner), keys of the
// retention still alive, and reports whether it won.
func claim(t *testing.T, s *store.Store, sc store.IdempotencyScope, owner string, now time.Time) bool {
	t.Helper()
	var claimed bool
	mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
		var err error
		claimed, err = tx.ClaimIdempotencyKey(ctx, sc, fingerprint(owner), owner, now, now.Add(-retention))
		return err
	})
	return claimed
}

// complete completes owner's key sc with result.
func complete(t *testing.T, s *store.Store, sc store.IdempotencyScope, owner, result string, now time.Time) {
	t.Helper()
	mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
		return tx.CompleteIdempotencyKey(ctx, sc, owner, result, now)
	})
}

// checkKey fails the test unless sc's record, read well within its retention, is want.
func checkKey(t *testing.T, s *store.Store, sc store.IdempotencyScope, want store.IdempotencyRecord) {
	t.Helper()
	got, err := s.IdempotencyKey(t.Context(), sc, time.Unix(0, want.CreatedAt).Add(-retention))
	noErr(t, "IdempotencyKey", err)
	if d := diff(want, got); d != "" {
		t.Errorf("IdempotencyKey(%+v) (-want +got):\n%s", sc, d)
	}
}

package idempotency_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/idempotency"
	"github.com/shipd-dev/shipd/internal/fakeclock"
	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/seal"
	"github.com/shipd-dev/shipd/store"
)

type fixture struct {
	dsn     string
	st      *store.Store
	svc     *idempotency.Service
	clock   *fakeclock.Clock
	account string
}

func setup(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	dsn := filepath.Join(t.TempDir(), "shipd.db")
	st, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	cipher, err := seal.NewCipher(bytes.Repeat([]byte{3}, 32))
	if err != nil {
		t.Fatal(err)
	}
	c := fakeclock.New(time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC))
	f := &fixture{dsn: dsn, st: st, clock: c, account: "acct_idem",
		svc: idempotency.New(st, cipher, idempotency.Config{Now: c.Now, Wait: idempotency.Wait{Poll: 2 * time.Millisecond, Limit: 300 * time.Millisecond}})}
	if err := st.Tx(ctx, func(tx *store.Tx) error {
		return tx.InsertAccount(ctx, store.Account{ID: f.account, Name: "idem", CreatedAt: c.Now()})
	}); err != nil {
		t.Fatal(err)
	}
	return f
}

// input is a create's input; result what it answers.
type input struct{ City string }

type result struct {
	ID     string
	City   string
	Secret string
}

func (f *fixture) request(key string, in input) idempotency.Request {
	return idempotency.Request{AccountID: f.account, Mode: "test", Endpoint: "POST /addresses", Key: key, Input: in}
}

// create is a create that stores an address (the resource) and counts its runs.
func (f *fixture) create(runs *atomic.Int64, in input, before func(ctx context.Context) error) func(ctx context.Context, commit idempotency.Commit[result]) (result, error) {
	return func(ctx context.Context, commit idempotency.Commit[result]) (result, error) {
		runs.Add(1)
		if before != nil {
			if err := before(ctx); err != nil {
				return result{}, err
			}
		}
		return commit(ctx, func(tx *store.Tx) (result, error) {
			a := store.Address{ID: store.NewID("adr"), AccountID: f.account, Mode: "test", CreatedAt: f.clock.Now(),
				Street1: "1 Main St", City: in.City, Zip: "78701", Country: "US"}
			if err := tx.InsertAddress(ctx, &a); err != nil {
				return result{}, err
			}
			return result{ID: a.ID, City: in.City, Secret: "whsec_" + a.ID}, nil
		})
	}
}

func (f *fixture) addresses(t *testing.T) int {
	t.Helper()
	rows, _, err := f.st.ListAddresses(context.Background(), f.account, "test", paging.Request{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	return len(rows)
}

func (f *fixture) run(key string, in input, runs *atomic.Int64, before func(ctx context.Context) error) (result, bool, error) {
	return idempotency.Run(context.Background(), f.svc, f.request(key, in), f.create(runs, in, before))
}

func TestWithoutKeyEveryCallRuns(t *testing.T) {
	t.Parallel()
	f := setup(t)
	var runs atomic.Int64
	for range 2 {
		if _, replayed, err := f.run("", input{"Austin"}, &runs, nil); err != nil || replayed {
			t.Fatalf("replayed %v, err %v", replayed, err)
		}
	}
	if runs.Load() != 2 || f.addresses(t) != 2 {
		t.Fatalf("runs %d, addresses %d; want 2 and 2", runs.Load(), f.addresses(t))
	}
}

func TestReplayAndCollision(t *testing.T) {
	t.Parallel()
	f := setup(t)
	var runs atomic.Int64
	first, replayed, err := f.run("k", input{"Austin"}, &runs, nil)
	if err != nil || replayed {
		t.Fatalf("first: replayed %v, err %v", replayed, err)
	}
	again, replayed, err := f.run("k", input{"Austin"}, &runs, nil)
	if err != nil || !replayed {
		t.Fatalf("again: replayed %v, err %v", replayed, err)
	}
	if diff := cmp.Diff(first, again); diff != "" {
		t.Fatalf("the replay differs (-first +again):\n%s", diff)
	}
	if _, _, err := f.run("k", input{"Dallas"}, &runs, nil); !errors.Is(err, idempotency.ErrCollision) {
		t.Fatalf("another input with the key: err = %v, want ErrCollision", err)
	}
	// The key is per endpoint.
	other := f.request("k", input{"Dallas"})
	other.Endpoint = "POST /webhooks"
	if _, replayed, err := idempotency.Run(context.Background(), f.svc, other, f.create(&runs, input{"Dallas"}, nil)); err != nil || replayed {
		t.Fatalf("the key on another endpoint: replayed %v, err %v", replayed, err)
	}
	if runs.Load() != 2 || f.addresses(t) != 2 {
		t.Fatalf("runs %d, addresses %d; want 2 and 2", runs.Load(), f.addresses(t))
	}
}

// A create that fails, or panics, before committing frees its key: the key
// can be used again, with any input.
func TestFailureReleasesTheKey(t *testing.T) {
	t.Parallel()
	f := setup(t)
	var runs atomic.Int64
	refused := errors.New("402: no payment method")
	if _, _, err := f.run("k", input{"Austin"}, &runs, func(context.Context) error { return refused }); !errors.Is(err, refused) {
		t.Fatalf("err = %v, want the create's error", err)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("the panic did not propagate")
			}
		}()
		_, _, _ = f.run("k", input{"Austin"}, &runs, func(context.Context) error { panic("boom") })
	}()
	if n, err := f.st.CountIdempotencyKeys(context.Background()); err != nil || n != 0 {
		t.Fatalf("keys after the failures: %d (%v), want 0", n, err)
	}
	if _, replayed, err := f.run("k", input{"Dallas"}, &runs, nil); err != nil || replayed {
		t.Fatalf("after a release the key runs anew: replayed %v, err %v", replayed, err)
	}
}

// A failed commit (the resource's transaction rolled back) frees the key too.
func TestFailedCommitReleasesTheKey(t *testing.T) {
	t.Parallel()
	f := setup(t)
	boom := errors.New("insert failed")
	_, _, err := idempotency.Run(context.Background(), f.svc, f.request("k", input{"Austin"}),
		func(ctx context.Context, commit idempotency.Commit[result]) (result, error) {
			return commit(ctx, func(tx *store.Tx) (result, error) { return result{}, boom })
		})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	var runs atomic.Int64
	if _, replayed, err := f.run("k", input{"Dallas"}, &runs, nil); err != nil || replayed {
		t.Fatalf("after a failed commit: replayed %v, err %v", replayed, err)
	}
}

// A request that finds its key in progress waits: it replays the result once
// the first commits, and gives up with ErrInProgress after the wait limit. A
// different input is a collision at once, in progress or not.
func TestInProgress(t *testing.T) {
	t.Parallel()
	f := setup(t)
	var runs atomic.Int64
	entered, release := make(chan struct{}), make(chan struct{})
	hold := func(context.Context) error { close(entered); <-release; return nil }
	firstDone := make(chan result, 1)
	go func() {
		r, _, err := f.run("k", input{"Austin"}, &runs, hold)
		if err != nil {
			t.Error(err)
		}
		firstDone <- r
	}()
	<-entered

	start := time.Now()
	if _, _, err := f.run("k", input{"Austin"}, &runs, nil); !errors.Is(err, idempotency.ErrInProgress) {
		t.Fatalf("while the first runs: err = %v, want ErrInProgress", err)
	}
	if waited := time.Since(start); waited < 300*time.Millisecond {
		t.Fatalf("gave up after %v, before the wait limit", waited)
	}
	if _, _, err := f.run("k", input{"Dallas"}, &runs, nil); !errors.Is(err, idempotency.ErrCollision) {
		t.Fatalf("another input while in progress: err = %v, want ErrCollision", err)
	}

	waiter := make(chan result, 1)
	go func() {
		r, replayed, err := f.run("k", input{"Austin"}, &runs, nil)
		if err != nil || !replayed {
			t.Errorf("the waiter: replayed %v, err %v", replayed, err)
		}
		waiter <- r
	}()
	time.Sleep(20 * time.Millisecond)
	close(release)
	first, replay := <-firstDone, <-waiter
	if first != replay {
		t.Fatalf("the waiter got %+v, the first %+v", replay, first)
	}
	if runs.Load() != 1 || f.addresses(t) != 1 {
		t.Fatalf("runs %d, addresses %d; want 1 and 1", runs.Load(), f.addresses(t))
	}
}

// A key whose request died (its process crashed after claiming) is taken
// over after AbandonAfter by a retry with the same input, and stays a
// collision for any other input.
func TestAbandonedKeyIsTakenOver(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := context.Background()
	fp, err := idempotency.Fingerprint(input{"Austin"})
	if err != nil {
		t.Fatal(err)
	}
	sc := store.IdempotencyScope{AccountID: f.account, Mode: "test", Endpoint: "POST /addresses", Key: "k"}
	if err := f.st.Tx(ctx, func(tx *store.Tx) error {
		_, err := tx.ClaimIdempotencyKey(ctx, sc, fp, "req_dead", f.clock.Now(), f.clock.Now().Add(-idempotency.Retention))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var runs atomic.Int64
	if _, _, err := f.run("k", input{"Austin"}, &runs, nil); !errors.Is(err, idempotency.ErrInProgress) {
		t.Fatalf("before AbandonAfter: err = %v, want ErrInProgress", err)
	}
	f.clock.Advance(idempotency.AbandonAfter)
	if _, _, err := f.run("k", input{"Dallas"}, &runs, nil); !errors.Is(err, idempotency.ErrCollision) {
		t.Fatalf("another input on an abandoned key: err = %v, want ErrCollision", err)
	}
	if _, replayed, err := f.run("k", input{"Austin"}, &runs, nil); err != nil || replayed {
		t.Fatalf("take over: replayed %v, err %v", replayed, err)
	}
	if runs.Load() != 1 || f.addresses(t) != 1 {
		t.Fatalf("runs %d, addresses %d; want 1 and 1", runs.Load(), f.addresses(t))
	}
}

// A restarted SQLite server holds the database alone: the claims in progress
// at its start are orphans, taken over at once by a retry with the same
// input, and still a collision for any other.
func TestOrphanedClaimIsTakenOverAtOnce(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := context.Background()
	fp, err := idempotency.Fingerprint(input{"Austin"})
	if err != nil {
		t.Fatal(err)
	}
	sc := store.IdempotencyScope{AccountID: f.account, Mode: "test", Endpoint: "POST /addresses", Key: "k"}
	if err := f.st.Tx(ctx, func(tx *store.Tx) error {
		_, err := tx.ClaimIdempotencyKey(ctx, sc, fp, "req_dead", f.clock.Now(), f.clock.Now().Add(-idempotency.Retention))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	lock, err := store.LockForServing(f.dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	if n, err := f.st.OrphanIdempotencyClaims(ctx, lock); err != nil || n != 1 {
		t.Fatalf("OrphanIdempotencyClaims = %d, %v; want 1 claim", n, err)
	}
	var runs atomic.Int64
	if _, _, err := f.run("k", input{"Dallas"}, &runs, nil); !errors.Is(err, idempotency.ErrCollision) {
		t.Fatalf("another input on an orphaned key: err = %v, want ErrCollision", err)
	}
	// Before AbandonAfter: no clock moves here.
	if _, replayed, err := f.run("k", input{"Austin"}, &runs, nil); err != nil || replayed {
		t.Fatalf("take over: replayed %v, err %v", replayed, err)
	}
	if runs.Load() != 1 || f.addresses(t) != 1 {
		t.Fatalf("runs %d, addresses %d; want 1 and 1", runs.Load(), f.addresses(t))
	}
}

// A request that was taken over (judged dead, but only slow) must not commit:
// its transaction rolls back, so the resource exists once.
func TestTakenOverRequestDoesNotCommit(t *testing.T) {
	t.Parallel()
	f := setup(t)
	var runs atomic.Int64
	entered, release := make(chan struct{}), make(chan struct{})
	slowErr := make(chan error, 1)
	go func() {
		_, _, err := f.run("k", input{"Austin"}, &runs, func(context.Context) error { close(entered); <-release; return nil })
		slowErr <- err
	}()
	<-entered
	f.clock.Advance(idempotency.AbandonAfter + time.Second)
	retry, replayed, err := f.run("k", input{"Austin"}, &runs, nil)
	if err != nil || replayed {
		t.Fatalf("the retry: replayed %v, err %v", replayed, err)
	}
	close(release)
	if err := <-slowErr; !errors.Is(err, idempotency.ErrInProgress) {
		t.Fatalf("the slow request: err = %v, want ErrInProgress", err)
	}
	if f.addresses(t) != 1 {
		t.Fatalf("%d addresses, want 1", f.addresses(t))
	}
	again, replayed, err := f.run("k", input{"Austin"}, &runs, nil)
	if err != nil || !replayed || again != retry {
		t.Fatalf("a later retry: %+v replayed %v err %v; want the retry's %+v", again, replayed, err, retry)
	}
}

// 50 concurrent requests with one key and one input create one resource and
// all answer with it.
func TestConcurrentRequestsCreateOnce(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.svc = idempotency.New(f.st, mustCipher(t), idempotency.Config{Now: f.clock.Now, Wait: idempotency.Wait{Poll: 2 * time.Millisecond, Limit: 10 * time.Second}})
	var runs atomic.Int64
	results := make([]result, 50)
	var wg sync.WaitGroup
	for i := range results {
		wg.Go(func() {
			r, _, err := f.run("k", input{"Austin"}, &runs, nil)
			if err != nil {
				t.Error(err)
			}
			results[i] = r
		})
	}
	wg.Wait()
	for _, r := range results {
		if r != results[0] {
			t.Fatalf("answers differ: %+v and %+v", results[0], r)
		}
	}
	if runs.Load() != 1 || f.addresses(t) != 1 {
		t.Fatalf("runs %d, addresses %d; want 1 and 1", runs.Load(), f.addresses(t))
	}
}

// The recorded result is sealed: a secret it carries is not in the database.
func TestResultIsSealedAtRest(t *testing.T) {
	t.Parallel()
	f := setup(t)
	var runs atomic.Int64
	r, _, err := f.run("k", input{"Austin"}, &runs, nil)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := f.st.IdempotencyKey(context.Background(), store.IdempotencyScope{AccountID: f.account, Mode: "test", Endpoint: "POST /addresses", Key: "k"}, time.Time{})
	if err != nil || rec.Result == nil {
		t.Fatalf("record %+v, %v", rec, err)
	}
	if strings.Contains(*rec.Result, r.Secret) || strings.Contains(*rec.Result, "whsec_") || strings.Contains(*rec.Result, "Austin") {
		t.Fatalf("the stored result is readable: %s", *rec.Result)
	}
}

// A key is kept for Retention: then it is forgotten, and the purge deletes it.
func TestRetentionAndPurge(t *testing.T) {
	t.Parallel()
	f := setup(t)
	var runs atomic.Int64
	for i := range 3 {
		if _, _, err := f.run(fmt.Sprint("old-", i), input{"Austin"}, &runs, nil); err != nil {
			t.Fatal(err)
		}
	}
	f.clock.Advance(3 * 24 * time.Hour)
	if _, _, err := f.run("young", input{"Austin"}, &runs, nil); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(4*24*time.Hour - time.Nanosecond)
	if n, err := f.svc.Purge(context.Background()); err != nil || n != 0 {
		t.Fatalf("purge before 7 days: %d, %v", n, err)
	}
	if _, replayed, err := f.run("old-0", input{"Austin"}, &runs, nil); err != nil || !replayed {
		t.Fatalf("a key 1 ns before its retention ends: replayed %v, err %v", replayed, err)
	}
	f.clock.Advance(time.Nanosecond)
	if _, replayed, err := f.run("old-1", input{"Dallas"}, &runs, nil); err != nil || replayed {
		t.Fatalf("an expired key with another input: replayed %v, err %v", replayed, err)
	}
	if n, err := f.svc.Purge(context.Background()); err != nil || n != 2 {
		t.Fatalf("purge after 7 days: %d, %v; want old-0 and old-2", n, err)
	}
	if n, err := f.st.CountIdempotencyKeys(context.Background()); err != nil || n != 2 {
		t.Fatalf("keys left: %d (%v), want young and the new old-1", n, err)
	}
}

func mustCipher(t *testing.T) *seal.Cipher {
	t.Helper()
	c, err := seal.NewCipher(bytes.Repeat([]byte{3}, 32))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

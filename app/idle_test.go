package app_test

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/app"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/sandbox"
	"github.com/shipd-dev/shipd/seal"
	"github.com/shipd-dev/shipd/store"
)

// An idle server on SQLite does not look for jobs every 20 ms: its workers
// are woken when jobs are inserted, and poll only once a second by default.
// Over thirty of the old 20 ms polls, each of the three queues (default,
// purchases, deliveries) fetches at its start and at most once a second
// after; it used to fetch thirty times. The bound is computed from the time
// that actually passed, so a slow machine does not fail it.
func TestIdleServerDoesNotPollForJobs(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "shipd.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	docs, err := store.OpenBlobs(ctx, "mem://")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { docs.Close() })
	cipher, err := seal.NewCipher(bytes.Repeat([]byte{1}, 32))
	if err != nil {
		t.Fatal(err)
	}
	a, err := app.New(app.Config{Store: st, Cipher: cipher, Documents: docs,
		Carriers: carriers.NewRegistry(sandbox.New(sandbox.Config{}), nil)})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := a.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Stop(context.Background()) })

	const queues, oldPoll, polls = 3, 20 * time.Millisecond, 30
	time.Sleep(polls * oldPoll)
	fetches := st.JobFetches()
	elapsed := time.Since(start)
	t.Logf("%d job fetches in %v", fetches, elapsed)
	if limit := int64(queues * (1 + 1 + elapsed/time.Second)); fetches > limit {
		t.Errorf("%d job fetches in %v of idleness, want at most %d (one per queue at start, then one a second)", fetches, elapsed, limit)
	}
}

package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/riverqueue/river"
)

type wakeArgs struct {
	N int `json:"n"`
}

func (wakeArgs) Kind() string { return "wake_test" }

type wakeWorker struct {
	river.WorkerDefaults[wakeArgs]
	ran chan int
}

func (w *wakeWorker) Work(_ context.Context, j *river.Job[wakeArgs]) error {
	w.ran <- j.Args.N
	return nil
}

// On SQLite the workers of the process learn of the jobs that its
// transactions commit without polling: with a fetch poll of an hour, a job
// enqueued in a transaction (Enqueue), one enqueued on the group commit's
// path (EnqueueNew), one due in a moment (inserted available with a later
// time, see dueWithoutScheduler) and one of a transaction committed in a
// group with a failing one all run. The job of the failing one does not.
func TestCommittedJobsWakeTheWorkers(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "shipd.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	w := &wakeWorker{ran: make(chan int, 10)}
	workers := river.NewWorkers()
	river.AddWorker(workers, w)
	c, err := s.JobClient(&river.Config{Workers: workers, Queues: map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 4}},
		FetchPollInterval: time.Hour, FetchCooldown: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Stop(context.Background()) })
	// The first fetch, at start, must be over: the jobs must come later.
	time.Sleep(100 * time.Millisecond)

	wait := func(want int) {
		t.Helper()
		select {
		case got := <-w.ran:
			if got != want {
				t.Fatalf("job %d ran, want %d", got, want)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("job %d did not run: the workers were not woken", want)
		}
	}
	enqueue := func(n int, fast bool, opts *river.InsertOpts) error {
		return s.Tx(ctx, func(tx *Tx) error {
			p := river.InsertManyParams{Args: wakeArgs{N: n}, InsertOpts: opts}
			if fast {
				return tx.EnqueueNew(ctx, p)
			}
			return tx.Enqueue(ctx, p)
		})
	}
	if err := enqueue(1, false, nil); err != nil {
		t.Fatal(err)
	}
	wait(1)
	if err := enqueue(2, true, nil); err != nil {
		t.Fatal(err)
	}
	wait(2)
	if err := enqueue(3, true, &river.InsertOpts{ScheduledAt: time.Now().Add(300 * time.Millisecond)}); err != nil {
		t.Fatal(err)
	}
	wait(3)

	// Two transactions at once, likely one group commit: the failing one's
	// job is dropped with it.
	failed := make(chan error, 1)
	go func() {
		failed <- s.Tx(ctx, func(tx *Tx) error {
			if err := tx.EnqueueNew(ctx, river.InsertManyParams{Args: wakeArgs{N: 99}}); err != nil {
				return err
			}
			return context.Canceled
		})
	}()
	if err := enqueue(4, true, nil); err != nil {
		t.Fatal(err)
	}
	if err := <-failed; err != context.Canceled {
		t.Fatalf("failing transaction: %v", err)
	}
	wait(4)
	var inserted []int
	if err := s.w.SelectContext(ctx, &inserted, `SELECT args ->> '$.n' FROM river_job WHERE kind = 'wake_test' ORDER BY id`); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int{1, 2, 3, 4}, inserted); diff != "" {
		t.Errorf("jobs inserted (-want +got):\n%s", diff)
	}
}

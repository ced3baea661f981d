package webhooks

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// countingObserver counts the recorded attempts it is told of.
type countingObserver struct {
	noObserver
	mu       sync.Mutex
	recorded int
}

func (o *countingObserver) AttemptRecorded(string, int, time.Duration) {
	o.mu.Lock()
	o.recorded++
	o.mu.Unlock()
}

// results is n attempt results of deliveries named prefix-0, prefix-1, ...
func results(prefix string, n int) []attemptResult {
	rs := make([]attemptResult, n)
	for i := range rs {
		rs[i] = attemptResult{id: fmt.Sprintf("%s-%d", prefix, i)}
	}
	return rs
}

// ids lists the deliveries of rs.
func ids(rs []attemptResult) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.id
	}
	return out
}

// queued is how many records wait in r's queue.
func queued(r *recorder) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.queue)
}

// waitFor polls cond until it holds, failing the test after 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// heldRuns is a recordFunc's record of the transactions it ran, the
// deliveries of each, holding the first until release closes, so that the
// records asked for meanwhile queue.
type heldRuns struct {
	mu      sync.Mutex
	txs     [][]string
	release chan struct{}
}

func newHeldRuns() *heldRuns { return &heldRuns{release: make(chan struct{})} }

// run returns a recordFunc that notes each transaction, holds the first,
// and then answers with answer.
func (h *heldRuns) run(answer recordFunc) recordFunc {
	return func(ctx context.Context, rs []attemptResult) ([]recorded, error) {
		h.mu.Lock()
		first := len(h.txs) == 0
		h.txs = append(h.txs, ids(rs))
		h.mu.Unlock()
		if first {
			<-h.release
		}
		return answer(ctx, rs)
	}
}

func (h *heldRuns) ran() [][]string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.txs
}

// queue starts record i with start, then waits until it runs the held
// transaction (i == 0) or waits in r's queue behind the others.
func (h *heldRuns) queue(t *testing.T, r *recorder, i int, start func()) {
	t.Helper()
	start()
	if i == 0 {
		waitFor(t, "the first transaction", func() bool { return len(h.ran()) == 1 })
		return
	}
	waitFor(t, fmt.Sprintf("record %d to queue", i), func() bool { return queued(r) == i })
}

// TestRecorderSharesATransactionBetweenWaitingRecords holds the first
// record's transaction until three more records wait: those three are
// recorded in one transaction, in the order they came, and each caller's
// observer hears of its own attempts only.
func TestRecorderSharesATransactionBetweenWaitingRecords(t *testing.T) {
	t.Parallel()
	var r recorder
	h := newHeldRuns()
	run := h.run(func(ctx context.Context, rs []attemptResult) ([]recorded, error) {
		seen := make([]recorded, len(rs))
		for i := range rs {
			seen[i] = recorded{i: i, outcome: AttemptOutcomeDelivered}
		}
		return seen, nil
	})
	sizes := []int{2, 1, 3, 2}
	observers := make([]*countingObserver, len(sizes))
	errs := make([]chan error, len(sizes))
	for i := range sizes {
		observers[i] = &countingObserver{}
		errs[i] = make(chan error, 1)
		ctx := ContextWithObserver(context.Background(), observers[i])
		h.queue(t, &r, i, func() {
			go func() { errs[i] <- r.record(ctx, results(fmt.Sprint("job", i), sizes[i]), run) }()
		})
	}
	close(h.release)
	for i, ch := range errs {
		if err := <-ch; err != nil {
			t.Errorf("record %d: %v", i, err)
		}
	}
	want := [][]string{
		{"job0-0", "job0-1"},
		{"job1-0", "job2-0", "job2-1", "job2-2", "job3-0", "job3-1"},
	}
	if d := cmp.Diff(want, h.ran()); d != "" {
		t.Errorf("transactions (-want +got):\n%s", d)
	}
	for i, o := range observers {
		if o.recorded != sizes[i] {
			t.Errorf("record %d's observer heard of %d attempts, want %d", i, o.recorded, sizes[i])
		}
	}
	if r.leading || len(r.queue) != 0 {
		t.Errorf("after the records: leading %v, %d queued; want neither", r.leading, len(r.queue))
	}
}

// TestRecorderRecordsEachAloneWhenTheSharedTransactionFails makes every
// transaction holding job1's delivery fail: the shared one fails, then
// each record runs alone, so only job1's caller gets the error.
func TestRecorderRecordsEachAloneWhenTheSharedTransactionFails(t *testing.T) {
	t.Parallel()
	var r recorder
	h := newHeldRuns()
	errBroken := errors.New("job1's delivery cannot be recorded")
	run := h.run(func(ctx context.Context, rs []attemptResult) ([]recorded, error) {
		for _, x := range rs {
			if x.id == "job1-0" {
				return nil, errBroken
			}
		}
		return nil, nil
	})
	errs := make([]chan error, 3)
	for i := range errs {
		errs[i] = make(chan error, 1)
		h.queue(t, &r, i, func() {
			go func() { errs[i] <- r.record(context.Background(), results(fmt.Sprint("job", i), 1), run) }()
		})
	}
	close(h.release)
	for i, ch := range errs {
		err := <-ch
		if want := i == 1; errors.Is(err, errBroken) != want || (!want && err != nil) {
			t.Errorf("record %d: %v", i, err)
		}
	}
	want := [][]string{{"job0-0"}, {"job1-0", "job2-0"}, {"job1-0"}, {"job2-0"}}
	if d := cmp.Diff(want, h.ran()); d != "" {
		t.Errorf("transactions (-want +got):\n%s", d)
	}
}

// TestRecorderSurvivesAPanickingRecord: a record that panics is its
// caller's error, and the next record is not left waiting for a lead that
// died with it.
func TestRecorderSurvivesAPanickingRecord(t *testing.T) {
	t.Parallel()
	var r recorder
	calls := 0
	run := func(ctx context.Context, rs []attemptResult) ([]recorded, error) {
		calls++
		if calls == 1 {
			panic("boom")
		}
		return nil, nil
	}
	if err := r.record(context.Background(), results("a", 1), run); err == nil {
		t.Fatal("a panicking record succeeded")
	}
	done := make(chan error, 1)
	go func() { done <- r.record(context.Background(), results("b", 1), run) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the record after the panic: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the record after the panic never ran")
	}
}

// TestRecorderBoundsATransaction queues records of more deliveries than one
// transaction takes: they are recorded in transactions of at most
// maxRecordBatch deliveries, each record whole in one of them.
func TestRecorderBoundsATransaction(t *testing.T) {
	t.Parallel()
	var r recorder
	h := newHeldRuns()
	run := h.run(func(context.Context, []attemptResult) ([]recorded, error) { return nil, nil })
	per := maxRecordBatch / 3 // three records fill a transaction but for a few deliveries
	var wg sync.WaitGroup
	for i := range 8 {
		h.queue(t, &r, i, func() {
			wg.Go(func() {
				if err := r.record(context.Background(), results(fmt.Sprint("job", i), per), run); err != nil {
					t.Errorf("record %d: %v", i, err)
				}
			})
		})
	}
	close(h.release)
	wg.Wait()
	var sizes []int
	for _, tx := range h.ran() {
		sizes = append(sizes, len(tx))
	}
	if d := cmp.Diff([]int{per, 3 * per, 3 * per, per}, sizes); d != "" {
		t.Errorf("deliveries per transaction (-want +got):\n%s", d)
	}
}

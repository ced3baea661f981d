package webhooks

import (
	"context"
	"fmt"
	"slices"
	"sync"
)

// The outcomes of concurrent jobs' deliveries are recorded in shared
// transactions, as a group commit: while one transaction records, the
// records asked for meanwhile queue, and the next transaction takes them
// all (up to maxRecordBatch deliveries). No goroutine of its own runs
// them: the caller whose record starts a transaction leads it, and hands
// the lead to the first caller still waiting when it is done, so a job
// never runs more than its own transaction and the one before it.
//
// Why: a record locks its deliveries, inserts their attempts and updates
// them, a statement each (on PostgreSQL five round trips with BEGIN and
// COMMIT), whether for one event's deliveries or for many. Under load many
// fan-out jobs record at once, and on make bench's PostgreSQL fan-out one
// transaction for all of them delivered about a fifth more per second
// (bench/README.md).
//
// A shared transaction that fails is not its requests' failure: each is
// then recorded alone, so one delivery that cannot be recorded fails only
// its own job.

// maxRecordBatch bounds the deliveries of one shared transaction.
const maxRecordBatch = 256

type recorder struct {
	mu      sync.Mutex
	queue   []*recordRequest
	leading bool // a caller is running the queue's transactions
}

type recordRequest struct {
	ctx context.Context
	rs  []attemptResult
	// done gets the request's outcome, or the lead of the queue.
	done chan recordDone
}

type recordDone struct {
	err  error
	lead bool
}

// recordFunc records rs in one transaction and returns what the metrics
// are told of it.
type recordFunc func(ctx context.Context, rs []attemptResult) ([]recorded, error)

// record records rs with run, in a transaction shared with the records
// queued beside it, and returns once it committed or failed.
func (r *recorder) record(ctx context.Context, rs []attemptResult, run recordFunc) error {
	req := &recordRequest{ctx: ctx, rs: rs, done: make(chan recordDone, 1)}
	r.mu.Lock()
	r.queue = append(r.queue, req)
	if r.leading {
		r.mu.Unlock()
		d := <-req.done
		if !d.lead {
			return d.err
		}
		r.mu.Lock()
	}
	// This caller leads: its own request is at the head of the queue.
	r.leading = true
	batch := r.take()
	r.mu.Unlock()
	r.run(batch, run)
	r.mu.Lock()
	if len(r.queue) > 0 {
		r.queue[0].done <- recordDone{lead: true}
	} else {
		r.leading = false
	}
	r.mu.Unlock()
	return (<-req.done).err
}

// take removes the requests of the next transaction from the head of the
// queue: at least one, and more while they fit in maxRecordBatch.
func (r *recorder) take() []*recordRequest {
	n, size := 0, 0
	for n < len(r.queue) && (n == 0 || size+len(r.queue[n].rs) <= maxRecordBatch) {
		size += len(r.queue[n].rs)
		n++
	}
	batch := slices.Clone(r.queue[:n])
	clear(r.queue[:n])
	r.queue = r.queue[n:]
	return batch
}

// run records batch in one transaction, or each request alone when that
// failed, and answers every request of it.
func (r *recorder) run(batch []*recordRequest, run recordFunc) {
	var all []attemptResult
	for _, q := range batch {
		all = append(all, q.rs...)
	}
	// The transaction is every request's: no one caller's end may end it.
	seen, err := runSafely(context.WithoutCancel(batch[0].ctx), all, run)
	if err != nil && len(batch) > 1 {
		for _, q := range batch {
			seen, err := runSafely(context.WithoutCancel(q.ctx), q.rs, run)
			observe(q.ctx, seen, 0, len(q.rs))
			q.done <- recordDone{err: err}
		}
		return
	}
	start := 0
	for _, q := range batch {
		end := start + len(q.rs)
		if err == nil {
			observe(q.ctx, seen, start, end)
		}
		q.done <- recordDone{err: err}
		start = end
	}
}

// runSafely is run, with a panic turned into an error: the requests
// waiting on this transaction, and the queue's lead, must not be lost with
// the leader's job.
func runSafely(ctx context.Context, rs []attemptResult, run recordFunc) (seen []recorded, err error) {
	defer func() {
		if v := recover(); v != nil {
			seen, err = nil, fmt.Errorf("recording delivery attempts panicked: %v", v)
		}
	}()
	return run(ctx, rs)
}

// observe tells ctx's observer of the recorded attempts of rs[start:end].
func observe(ctx context.Context, seen []recorded, start, end int) {
	for _, s := range seen {
		if s.i >= start && s.i < end && s.outcome != "" {
			observerFrom(ctx).AttemptRecorded(s.outcome, s.auto, s.sinceEvent)
		}
	}
}

package carriers

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// DefaultTrackBatchWindow is how long a tracking call waits for others to
// share its request: the polls due together start within a few
// milliseconds of each other (one fetch of the job queue).
const DefaultTrackBatchWindow = 10 * time.Millisecond

// trackBatchTimeout bounds a batched request, which runs on behalf of
// several callers and so with none of their deadlines.
const trackBatchTimeout = time.Minute

// Batch returns c with concurrent Track calls gathered into TrackMany
// requests when c declares CapTrackMany (and no CapTrackingPlan); any other
// c is returned as is. A Track call waits up to window for others; a batch goes
// at once when it holds MaxTrackBatch numbers. Each caller gets its own
// number's answer, so a tracking poll still applies only its own label's
// scans. A batch of one is a plain Track.
func Batch(c Carrier, window time.Duration) Carrier {
	if caps := c.Capabilities(); !caps.Has(CapTrackMany) || caps.Has(CapTrackingPlan) {
		return c
	}
	if window <= 0 {
		window = DefaultTrackBatchWindow
	}
	return &batched{Carrier: c, window: window, max: max(c.MaxTrackBatch(), 1)}
}

// Batch returns a registry of the same carriers, each batching its
// tracking calls (see Batch).
func (r *Registry) Batch(window time.Duration) *Registry {
	return r.each(func(c Carrier) Carrier { return Batch(c, window) })
}

// batched is a carrier whose Track calls are gathered; every other call is
// the carrier's own.
type batched struct {
	Carrier
	window time.Duration
	max    int

	mu      sync.Mutex
	pending *trackBatch
}

// trackBatch is the numbers gathered for one request, and its answer once
// done is closed.
type trackBatch struct {
	ctx     context.Context // the first caller's: its values (the trace) go along
	numbers []string
	claims  []TrackingClaim // the callers' (WithTrackingClaim), of those with one
	done    chan struct{}
	results []TrackResult
	err     error
}

func (b *batched) Track(ctx context.Context, trackingNumber string) (TrackingUpdate, error) {
	b.mu.Lock()
	bt := b.pending
	if bt == nil {
		bt = &trackBatch{ctx: ctx, done: make(chan struct{})}
		b.pending = bt
		time.AfterFunc(b.window, func() { b.send(bt) })
	}
	i := len(bt.numbers)
	bt.numbers = append(bt.numbers, trackingNumber)
	if claim, ok := trackingClaimOf(ctx); ok {
		bt.claims = append(bt.claims, claim)
	}
	full := len(bt.numbers) >= b.max
	b.mu.Unlock()
	if full {
		b.send(bt)
	}
	select {
	case <-bt.done:
	case <-ctx.Done():
		return TrackingUpdate{}, ctx.Err()
	}
	if bt.err != nil {
		return TrackingUpdate{}, bt.err
	}
	return bt.results[i].Update, bt.results[i].Err
}

// send makes bt's request, once: when the window ends or bt is full.
func (b *batched) send(bt *trackBatch) {
	b.mu.Lock()
	if b.pending != bt {
		b.mu.Unlock()
		return // already sent
	}
	b.pending = nil
	b.mu.Unlock()
	defer close(bt.done)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(bt.ctx), trackBatchTimeout)
	defer cancel()
	if len(bt.numbers) == 1 {
		up, err := b.Carrier.Track(ctx, bt.numbers[0])
		bt.results = []TrackResult{{Update: up, Err: err}}
		return
	}
	// One call for several polls draws on their account's share only when
	// they are all of one account (quota_fair.go).
	if claim, ok := batchClaim(bt.claims); ok {
		ctx = WithTrackingClaim(ctx, claim)
	}
	bt.results, bt.err = b.TrackMany(ctx, bt.numbers)
	if bt.err == nil && len(bt.results) != len(bt.numbers) {
		bt.err = fmt.Errorf("%s answered %d results for %d tracking numbers: %w", b.Name(), len(bt.results), len(bt.numbers), ErrFailed)
	}
}

package shipping

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Purchases have a queue of their own, so that tracking scans, voids and
// webhook deliveries never hold up a purchase (nor purchases them), with
// concurrency sized for waiting on carriers. Past MaxPurchaseBacklog waiting
// purchases, creates are refused at once rather than accepted to wait
// minutes: the client learns now, and retries after Retry-After.

// PurchaseQueue is the job queue of purchases.
const PurchaseQueue = "purchases"

// Defaults of the purchase queue (Config.PurchaseWorkers, MaxPurchaseBacklog).
const (
	DefaultPurchaseWorkers    = 64
	DefaultMaxPurchaseBacklog = 5000
)

// PurchaseQueueRetryAfter is the wait a refused create is told to observe.
const PurchaseQueueRetryAfter = 5 * time.Second

// backlogTTL is how long a count of the backlog is trusted. Counting on every
// create would add a query to the hottest write; a count a moment old only
// lets the bound overshoot by the creates of that moment.
const backlogTTL = 500 * time.Millisecond

// ErrPurchaseQueueFull: too many purchases wait for a worker; nothing was
// created (503 purchase_queue_full with Retry-After).
var ErrPurchaseQueueFull = fmt.Errorf("too many purchases are waiting for the carriers; retry in %d seconds (with the same idempotency key)", int(PurchaseQueueRetryAfter/time.Second))

// PurchaseQueueConfig names the purchase queue and its workers, for the job
// client; workers < 0: this instance does not work the queue.
func (s *Service) PurchaseQueueConfig() (name string, workers int) {
	return PurchaseQueue, s.cfg.PurchaseWorkers
}

// PurchaseBacklog is how many purchases wait for a worker, as last counted.
func (s *Service) PurchaseBacklog(ctx context.Context) (int, error) {
	return s.backlog.count(ctx)
}

// admitPurchase refuses a new purchase while the backlog is past its bound.
func (s *Service) admitPurchase(ctx context.Context) error {
	if s.cfg.MaxPurchaseBacklog < 0 {
		return nil
	}
	n, err := s.backlog.count(ctx)
	if err != nil {
		return err
	}
	if n >= s.cfg.MaxPurchaseBacklog {
		return ErrPurchaseQueueFull
	}
	return nil
}

// backlog caches the count of due purchase jobs for backlogTTL. One caller
// counts while the others use the last count, so a burst of creates costs
// one query per TTL.
type backlog struct {
	st interface {
		DueJobs(ctx context.Context, queue string) (int, error)
	}
	mu       sync.Mutex
	n        int
	at       time.Time
	counting bool
}

func (b *backlog) count(ctx context.Context) (int, error) {
	b.mu.Lock()
	if time.Since(b.at) < backlogTTL || (b.counting && !b.at.IsZero()) {
		n := b.n
		b.mu.Unlock()
		return n, nil
	}
	b.counting = true
	b.mu.Unlock()

	n, err := b.st.DueJobs(ctx, PurchaseQueue)

	b.mu.Lock()
	defer b.mu.Unlock()
	b.counting = false
	if err != nil {
		return 0, err
	}
	b.n, b.at = n, time.Now()
	return n, nil
}

package store

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/jmoiron/sqlx"
)

// Group commit on SQLite. A SQLite database has one writer: write
// transactions run one after the other whatever the number of callers. Each
// commit appends every page it changed to the WAL, and consecutive small
// transactions change the same pages (the tail of a table, the top of an
// index, River's queue), so most of a small transaction's cost is writing
// pages that the next one writes again. The committer runs the transactions
// that are waiting as one: each caller's function inside a savepoint of a
// shared transaction, which commits once.
//
// Store.Tx keeps its meaning for every caller: its function's writes commit
// exactly when Tx returns nil. A function that fails is rolled back to its
// savepoint, alone; the others commit. A function that panics is rolled back
// the same way and the panic is raised again in its caller. Only when the
// shared commit itself fails (the disk is full) do all of them get the error,
// and none of them committed. At low load a batch is one transaction: nothing
// waits for company.

// maxBatch bounds how many callers' transactions commit as one, so a
// caller's wait for the others stays short.
const maxBatch = 64

// errBatchClosed: the store was closed.
var errBatchClosed = errors.New("store: closed")

type pendingTx struct {
	ctx  context.Context
	fn   func(*Tx) error
	done chan txResult
}

type txResult struct {
	err      error
	panicked any
}

type committer struct {
	s       *Store
	w       *sqlx.DB
	pending chan *pendingTx

	// mu guards closed: a caller queues under the read lock, so once close
	// has set closed nothing is queued that the loop would not see.
	mu        sync.RWMutex
	closed    bool
	closeOnce sync.Once
	quit      chan struct{}
	stopped   chan struct{}
}

func newCommitter(s *Store, w *sqlx.DB) *committer {
	c := &committer{s: s, w: w, pending: make(chan *pendingTx, maxBatch), quit: make(chan struct{}), stopped: make(chan struct{})}
	go c.loop()
	return c
}

// run queues fn and waits for the commit of its batch.
func (c *committer) run(ctx context.Context, fn func(*Tx) error) error {
	p := &pendingTx{ctx: ctx, fn: fn, done: make(chan txResult, 1)}
	c.mu.RLock()
	if c.closed {
		c.mu.RUnlock()
		return errBatchClosed
	}
	select {
	case c.pending <- p:
		c.mu.RUnlock()
	case <-ctx.Done():
		c.mu.RUnlock()
		return ctx.Err()
	}
	// Once queued the function runs (unless its context ends first, see
	// runBatch), so wait for the outcome even if ctx ends meanwhile: the
	// caller must know whether its writes committed.
	r := <-p.done
	if r.panicked != nil {
		panic(r.panicked)
	}
	return r.err
}

func (c *committer) close() {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.closed = true
		c.mu.Unlock()
		close(c.quit)
		<-c.stopped
	})
}

func (c *committer) loop() {
	defer close(c.stopped)
	batch := make([]*pendingTx, 0, maxBatch)
	for {
		select {
		case <-c.quit:
			c.drain()
			return
		case p := <-c.pending:
			batch = append(batch[:0], p)
		}
	more:
		for len(batch) < maxBatch {
			select {
			case p := <-c.pending:
				batch = append(batch, p)
			default:
				break more
			}
		}
		c.runBatch(batch)
		clear(batch)
	}
}

// drain answers the transactions still queued at close.
func (c *committer) drain() {
	for {
		select {
		case p := <-c.pending:
			p.done <- txResult{err: errBatchClosed}
		default:
			return
		}
	}
}

func (c *committer) runBatch(batch []*pendingTx) {
	results := make([]txResult, len(batch))
	// The transaction is not any caller's: its life must not end with one
	// caller's context (database/sql rolls back a transaction whose context ends).
	tx, err := c.w.BeginTxx(context.Background(), nil)
	if err != nil {
		for _, p := range batch {
			p.done <- txResult{err: fmt.Errorf("begin: %w", err)}
		}
		return
	}
	t := &Tx{reader: reader{q: tx, d: c.s.dialect}, tx: tx, jobs: c.s.jobs, details: c.s.details, deferNew: true, notes: c.s.notes}
	var broken error
	for i, p := range batch {
		if broken != nil {
			results[i].err = fmt.Errorf("commit: %w", broken)
			continue
		}
		if err := p.ctx.Err(); err != nil {
			results[i].err = err // gone before its turn: nothing ran
			continue
		}
		results[i], broken = runOne(t, p)
	}
	if broken == nil {
		broken = t.insertDeferred() // the group's new jobs (EnqueueNew), as one insert
	}
	if broken == nil {
		broken = tx.Commit()
	} else {
		_ = tx.Rollback()
	}
	t.ended() // before any caller learns its outcome
	if broken == nil {
		t.wakeWorkers()
		if c.s.checkpoints != nil {
			c.s.checkpoints.committed()
		}
	}
	if broken != nil {
		// Nothing committed: the functions that succeeded learn it too.
		for i := range results {
			if results[i].err == nil && results[i].panicked == nil {
				results[i].err = fmt.Errorf("commit: %w", broken)
			}
		}
	}
	for i, p := range batch {
		p.done <- results[i]
	}
}

// runOne runs one caller's function inside a savepoint of the shared
// transaction, and rolls back to it when the function fails or panics.
// broken is not nil when the savepoint could not be taken, rolled back or
// released: SQLite ended the transaction by itself (a full disk, an I/O
// error), and nothing of the batch may commit.
func runOne(t *Tx, p *pendingTx) (r txResult, broken error) {
	ctx := context.WithoutCancel(p.ctx)
	if _, err := t.tx.ExecContext(ctx, "SAVEPOINT caller"); err != nil {
		return txResult{err: fmt.Errorf("savepoint: %w", err)}, err
	}
	newJobs := len(t.newJobs)
	defer func() {
		if v := recover(); v != nil {
			r = txResult{panicked: v}
		}
		if r.err != nil || r.panicked != nil {
			t.dropNewJobs(newJobs) // they go with its other writes
			if _, err := t.tx.ExecContext(ctx, "ROLLBACK TO caller"); err != nil {
				broken = fmt.Errorf("rollback to savepoint: %w", err)
			}
		}
		if _, err := t.tx.ExecContext(ctx, "RELEASE caller"); err != nil && broken == nil {
			broken = fmt.Errorf("release savepoint: %w", err)
		}
	}()
	return txResult{err: p.fn(t)}, nil
}

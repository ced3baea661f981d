package store

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// On PostgreSQL several instances (and the CLI) write the same rows, so an
// instance may keep what it read only if it hears of every change to it. It
// hears on one connection of its own, which LISTENs on two channels:
//
//   - shipd_tokens: a token may have changed (notifyTokenChange, sent by
//     the revoking transaction). TokensVersion counts these notices.
//   - shipd_details: a shipment row or a tracker's scans changed. Triggers
//     on shipments and tracking_events (migration 0023) send the key from
//     inside every transaction that writes one, whichever process or tool
//     wrote it, and PostgreSQL delivers the notice when that transaction
//     commits and never when it rolls back. The feed drops the key from the
//     detail cache (details.go).
//
// A notice arrives a little after its commit, so a cached row alone may be
// older than a commit that finished before a read began. A read that finds
// its row cached therefore waits for a barrier first: a query on the
// listening connection that began after the read did. PostgreSQL signals
// every listener before it answers a committing client, and a listening
// backend sends the notices it was signalled of before it answers its next
// query; so once the barrier is answered, the notice of every commit that
// finished before the read has been applied, and a row still cached is
// current. Concurrent reads share barriers (sharedCheck): a busy instance
// pays one round trip for a group of reads, where each read used to pay two
// queries.
//
// While the connection is not listening (starting, lost, reconnecting),
// barriers fail and reads go to the database; notices missed meanwhile are
// accounted for by dropping everything once it listens again.

const (
	// tokensChannel carries token changes; detailsChannel, the keys of
	// changed shipment rows ('s' and the shipment id) and scans ('e' and the
	// tracker id). Migration 0023 names detailsChannel in its triggers.
	tokensChannel  = "shipd_tokens"
	detailsChannel = "shipd_details"

	// barrierTimeout bounds a barrier's query: a listener that cannot
	// answer in that time is taken for lost and reconnects.
	barrierTimeout = 5 * time.Second

	// feedApplicationName is the listening connection's application_name.
	feedApplicationName = "shipd change feed"
)

// errNotListening: the feed is not listening now; read the database.
var errNotListening = errors.New("store: changes are not being listened to")

// changeFeed is PostgreSQL's listener of changes (see above).
type changeFeed struct {
	s *Store
	// details is the cache it keeps current.
	details *detailCache

	once    sync.Once
	closed  atomic.Bool
	stop    context.CancelFunc
	stopped chan struct{}

	tokenNotices atomic.Int64
	listening    atomic.Bool
	shared       sharedCheck

	mu sync.Mutex
	// waiting are the barriers asked for, answered after the next query;
	// wake ends the listener's wait for notices (nil while not waiting).
	waiting []chan error
	wake    context.CancelFunc
}

func newChangeFeed(s *Store, details *detailCache) *changeFeed {
	return &changeFeed{s: s, details: details}
}

// start begins listening, once, and waits briefly for the first LISTEN so
// that caches work from the start.
func (f *changeFeed) start() {
	f.once.Do(func() {
		if f.closed.Load() {
			return
		}
		ctx, cancel := context.WithCancel(context.Background())
		f.stop, f.stopped = cancel, make(chan struct{})
		go func() {
			defer close(f.stopped)
			backoff := 100 * time.Millisecond
			for ctx.Err() == nil {
				if err := f.listenOnce(ctx); err != nil && ctx.Err() == nil {
					time.Sleep(backoff)
					backoff = min(2*backoff, 5*time.Second)
				}
			}
		}()
		for range 50 {
			if f.listening.Load() {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}

// tokensVersion is TokensVersion on PostgreSQL: the count of token notices,
// which moves when the listener starts or stops listening too.
func (f *changeFeed) tokensVersion() (int64, error) {
	f.start()
	if !f.listening.Load() {
		return 0, ErrNoTokenVersion
	}
	return f.tokenNotices.Load(), nil
}

// barrier returns once every notice of a commit that finished before the
// call has been applied, or fails when that cannot be known.
func (f *changeFeed) barrier(ctx context.Context) error {
	f.start()
	if !f.listening.Load() {
		return errNotListening
	}
	_, err := f.shared.read(ctx, func(context.Context) (int64, error) {
		done := make(chan error, 1)
		f.mu.Lock()
		if !f.listening.Load() {
			f.mu.Unlock()
			return 0, errNotListening
		}
		f.waiting = append(f.waiting, done)
		if f.wake != nil {
			f.wake()
		}
		f.mu.Unlock()
		// The listener answers every barrier it took, even when it stops.
		return 0, <-done
	})
	return err
}

// listenOnce listens on a connection of its own until it fails or the
// store closes, answering barriers in between.
func (f *changeFeed) listenOnce(ctx context.Context) (err error) {
	cfg := f.s.listenerPool.Config().ConnConfig.Copy()
	cfg.OnNotification = func(_ *pgconn.PgConn, n *pgconn.Notification) { f.apply(n) }
	// Named, so that an operator (or a test) can tell it in pg_stat_activity.
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	cfg.RuntimeParams["application_name"] = feedApplicationName
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	pc := conn.PgConn()
	if err := pc.Exec(ctx, "LISTEN "+tokensChannel+"; LISTEN "+detailsChannel).Close(); err != nil {
		return err
	}
	// Notices may have been missed while not listening.
	f.resync()
	f.listening.Store(true)
	defer func() {
		f.mu.Lock()
		f.listening.Store(false)
		waiting := f.waiting
		f.waiting, f.wake = nil, nil
		f.mu.Unlock()
		for _, w := range waiting {
			w <- errNotListening
		}
		f.resync()
	}()
	for {
		var werr error
		f.mu.Lock()
		if len(f.waiting) == 0 {
			waitCtx, cancel := context.WithCancel(ctx)
			f.wake = cancel
			f.mu.Unlock()
			// Notices are applied as they arrive (OnNotification); a barrier
			// asked for cancels the wait, which leaves the connection usable.
			werr = pc.WaitForNotification(waitCtx)
			cancel()
			f.mu.Lock()
			f.wake = nil
		}
		// Barriers asked for while the last one ran go at once: under load
		// the connection runs one barrier after another.
		waiting := f.waiting
		f.waiting = nil
		f.mu.Unlock()
		if werr != nil && (ctx.Err() != nil || !errors.Is(werr, context.Canceled)) {
			for _, w := range waiting {
				w <- errNotListening
			}
			return werr
		}
		if len(waiting) == 0 {
			continue
		}
		qctx, qcancel := context.WithTimeout(ctx, barrierTimeout)
		qerr := pc.Exec(qctx, "SELECT 1").Close()
		qcancel()
		if qerr != nil {
			qerr = errors.Join(errNotListening, qerr)
		}
		for _, w := range waiting {
			w <- qerr
		}
		if qerr != nil {
			return qerr
		}
	}
}

// apply handles one notice.
func (f *changeFeed) apply(n *pgconn.Notification) {
	switch n.Channel {
	case tokensChannel:
		f.tokenNotices.Add(1)
	case detailsChannel:
		if k, ok := parseDetailNotice(n.Payload); ok {
			f.details.drop(k)
		} else {
			f.details.clear()
		}
	}
}

// resync forgets what notices may have been missed about.
func (f *changeFeed) resync() {
	f.tokenNotices.Add(1)
	f.details.clear()
}

// parseDetailNotice reads the key a trigger of migration 0023 sends.
func parseDetailNotice(payload string) (detailKey, bool) {
	if len(payload) < 2 {
		return detailKey{}, false
	}
	switch payload[0] {
	case 's':
		return detailKey{shipmentDetail, payload[1:]}, true
	case 'e':
		return detailKey{scansDetail, payload[1:]}, true
	}
	return detailKey{}, false
}

func (f *changeFeed) close() {
	if f.closed.Swap(true) {
		return // closed already: a store may be closed twice
	}
	f.once.Do(func() {}) // no listener starts after this
	if f.stop != nil {
		f.stop()
		<-f.stopped
	}
}

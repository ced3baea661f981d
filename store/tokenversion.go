package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

// A cache of tokens in front of TokenByHash must never serve a token after
// its revocation committed, whichever process revoked it (the server, the
// CLI, another instance). TokensVersion is what such a cache checks on every
// use: a number that changes whenever a token may have changed since the
// last call. It costs no table read:
//
//   - SQLite: PRAGMA data_version, which changes on a connection whenever
//     another connection (this process's writer, the CLI) committed. A few
//     connections of its own take turns; when one sees its value move, the
//     version moves. Any commit moves it, not only a revocation; a cache
//     then reads again.
//   - PostgreSQL: a revocation sends NOTIFY shipd_tokens in its transaction,
//     so the notice arrives when it commits; the change feed (changes.go)
//     counts the notices. While it is not listening, TokensVersion fails
//     and a cache must read the database.

// ErrNoTokenVersion: the version cannot be known now; read the token itself.
var ErrNoTokenVersion = errors.New("store: token changes are not being watched")

type tokenVersion struct {
	s    *Store
	once sync.Once

	// Idle watcher connections, and the version they move.
	conns   chan *watchConn
	version atomic.Int64
	shared  sharedCheck

	closed atomic.Bool
}

// TokensVersion returns a number that changes whenever a token may have
// changed (see above). Read it before reading a token to cache, and drop
// what was cached when it changes.
func (s *Store) TokensVersion(ctx context.Context) (int64, error) {
	if s.feed != nil {
		return s.feed.tokensVersion()
	}
	v := s.tokenVersion
	if v == nil || v.closed.Load() {
		return 0, ErrNoTokenVersion
	}
	v.once.Do(func() { v.prime(ctx) })
	return v.shared.read(ctx, s.dataVersion)
}

// dataVersion reads SQLite's data_version on a watcher connection.
func (s *Store) dataVersion(ctx context.Context) (int64, error) {
	v := s.tokenVersion
	var wc *watchConn
	select {
	case wc = <-v.conns:
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	defer func() { v.conns <- wc }()
	if wc.conn == nil {
		conn, err := s.r.Conn(ctx)
		if err != nil {
			return 0, fmt.Errorf("token version: %w", err)
		}
		wc.conn, wc.primed = conn, false
	}
	var n int64
	if err := wc.conn.QueryRowContext(ctx, "PRAGMA data_version").Scan(&n); err != nil {
		wc.conn.Close() // a fresh connection next time
		wc.conn = nil
		return 0, fmt.Errorf("token version: %w", err)
	}
	if !wc.primed || n != wc.seen {
		// New to this connection: a commit it had not seen, or a connection
		// that saw nothing yet. Either way a cache must read again.
		wc.seen, wc.primed = n, true
		return v.version.Add(1), nil
	}
	return v.version.Load(), nil
}

// prime opens the watcher connections and reads their first values, so
// that the version moves only with commits, not with which connection a
// call happens to take.
func (v *tokenVersion) prime(ctx context.Context) {
	for range watchConns {
		wc := <-v.conns
		if conn, err := v.s.r.Conn(ctx); err == nil {
			if err := conn.QueryRowContext(ctx, "PRAGMA data_version").Scan(&wc.seen); err == nil {
				wc.conn, wc.primed = conn, true
			} else {
				conn.Close()
			}
		}
		defer func() { v.conns <- wc }()
	}
}

// watchConn is a connection that reads SQLite's data_version, and the value it last read.
type watchConn struct {
	conn   *sql.Conn
	seen   int64
	primed bool
}

// watchConns is how many connections read data_version, each in turn.
const watchConns = 4

// newTokenVersion watches SQLite's data_version; PostgreSQL's version is
// the change feed's (changes.go).
func newTokenVersion(s *Store) *tokenVersion {
	v := &tokenVersion{s: s, conns: make(chan *watchConn, watchConns)}
	for range watchConns {
		v.conns <- &watchConn{}
	}
	return v
}

func (v *tokenVersion) close() {
	if v.closed.Swap(true) {
		return // closed already: a store may be closed twice
	}
	v.once.Do(func() {}) // no listener starts after this
	for range cap(v.conns) {
		wc := <-v.conns
		if wc.conn != nil {
			wc.conn.Close()
			wc.conn = nil
		}
		defer func() { v.conns <- wc }() // a late caller gets an error, not a wait
	}
}

// notifyTokenChange tells every instance's token cache, when tx commits,
// that a token changed.
func (t *Tx) notifyTokenChange(ctx context.Context) error {
	if t.d != postgresDialect {
		return nil // SQLite's data_version moves with any commit
	}
	_, err := t.exec(ctx, `SELECT pg_notify('`+tokensChannel+`', '')`)
	return err
}

// sharedCheck lets callers share one version check, so that a busy server
// pays for a check per group of concurrent requests rather than per request,
// without ever answering a caller from a check that began before it asked:
// a caller either starts a check or joins one that has not started yet.
// One check runs at a time.
type sharedCheck struct {
	mu sync.Mutex
	// next is the check waiting to start, which arriving callers join;
	// running is the one under way.
	next, running *checkRound
}

type checkRound struct {
	done    chan struct{}
	version int64
	err     error
}

func (c *sharedCheck) read(ctx context.Context, check func(context.Context) (int64, error)) (int64, error) {
	c.mu.Lock()
	if r := c.next; r != nil {
		c.mu.Unlock()
		select {
		case <-r.done:
			return r.version, r.err
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
	r := &checkRound{done: make(chan struct{})}
	prev := c.running
	c.next = r
	c.mu.Unlock()
	if prev != nil {
		<-prev.done // a check at a time; this one begins after it
	}
	// Let the goroutines that are ready to run first: under load they are
	// mostly requests on their way here, which then join this round instead
	// of starting the next one. A check is a few microseconds, as long as
	// the requests arrive apart, so without this each busy request paid for
	// a round of its own.
	runtime.Gosched()
	c.mu.Lock()
	c.next, c.running = nil, r
	c.mu.Unlock()
	// Its callers do not end with this one's context.
	r.version, r.err = check(context.WithoutCancel(ctx))
	c.mu.Lock()
	if c.running == r {
		c.running = nil
	}
	c.mu.Unlock()
	close(r.done)
	return r.version, r.err
}

package store

import (
	"context"
	"database/sql"
	"sync"
	"time"
)

// SQLite appends every commit to the WAL and copies it back into the
// database file at a checkpoint. By default the connection whose commit
// takes the WAL past 1,000 pages runs that checkpoint itself, inside its
// commit: on shipd's one writer connection, so every write waits while 4 MiB
// are copied and the database file is synced. The checkpointer runs them
// instead, on a connection of its own, while the writer goes on (SQLite lets
// a checkpoint run beside a writer). The writer still checkpoints by itself
// past maxWALPages, should the checkpointer fall behind or stop.

// checkpointInterval is how often at most the checkpointer copies what was
// committed. It runs after this process's commits (committed), and every
// idleCheckInterval for those of other processes (the CLI): an idle server
// does not query the database 20 times a second for nothing.
const (
	checkpointInterval = 50 * time.Millisecond
	idleCheckInterval  = time.Second
)

// maxWALPages is where the writer checkpoints by itself (64 MiB of WAL).
const maxWALPages = 16384

type checkpointer struct {
	db      *sql.DB
	stop    context.CancelFunc
	stopped chan struct{}
	// commits is signalled (without blocking) after each commit of the writer.
	commits   chan struct{}
	closeOnce sync.Once
	closeErr  error
}

func startCheckpointer(path string) (*checkpointer, error) {
	db, err := sql.Open("sqlite3", dsn(path, false))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	ctx, cancel := context.WithCancel(context.Background())
	c := &checkpointer{db: db, stop: cancel, stopped: make(chan struct{}), commits: make(chan struct{}, 1)}
	go c.run(ctx)
	return c, nil
}

func (c *checkpointer) run(ctx context.Context) {
	defer close(c.stopped)
	idle := time.NewTicker(idleCheckInterval)
	defer idle.Stop()
	var seen int64 = -1
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.commits:
		case <-idle.C:
		}
		// data_version moves when another connection committed: nothing to
		// copy otherwise.
		var version int64
		if err := c.db.QueryRowContext(ctx, "PRAGMA data_version").Scan(&version); err != nil || version == seen {
			continue
		}
		seen = version
		// PASSIVE copies what no reader still needs, without waiting for anyone.
		var busy, logFrames, copied int
		_ = c.db.QueryRowContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &logFrames, &copied)
		// At most one checkpoint per checkpointInterval under load, as a
		// ticker made before.
		select {
		case <-ctx.Done():
			return
		case <-time.After(checkpointInterval):
		}
	}
}

// committed tells the checkpointer that the writer committed.
func (c *checkpointer) committed() {
	select {
	case c.commits <- struct{}{}:
	default:
	}
}

func (c *checkpointer) close() error {
	c.closeOnce.Do(func() {
		c.stop()
		<-c.stopped
		c.closeErr = c.db.Close()
	})
	return c.closeErr
}

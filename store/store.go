// Package store keeps shipd's state in SQLite through sqlx.
//
// SQLite allows one writer at a time, so the store holds a single writer
// connection that opens every transaction with BEGIN IMMEDIATE (a write never
// fails half way with SQLITE_BUSY on lock upgrade), and a separate pool of
// read-only connections that WAL lets run beside the writer.
package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	_ "github.com/mattn/go-sqlite3" // the database/sql driver "sqlite3"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
)

// ErrNotFound is returned when a row does not exist for the account asking.
var ErrNotFound = errors.New("not found")

//go:embed migrations/*.sql
var migrationFS embed.FS

// Store is the database: one writer, a pool of readers.
type Store struct {
	W *sqlx.DB // the only connection that writes; shared with River
	R *sqlx.DB // read-only pool
}

// Open opens (creating if needed) the database at path and applies every
// migration, shipd's and River's.
func Open(ctx context.Context, path string) (*Store, error) {
	w, err := sqlx.Open("sqlite3", dsn(path, false))
	if err != nil {
		return nil, fmt.Errorf("open writer: %w", err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	if err := w.PingContext(ctx); err != nil {
		w.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	s := &Store{W: w}
	if err := s.migrate(ctx); err != nil {
		w.Close()
		return nil, err
	}
	r, err := sqlx.Open("sqlite3", dsn(path, true))
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("open readers: %w", err)
	}
	r.SetMaxOpenConns(8)
	r.SetMaxIdleConns(8)
	s.R = r
	return s, nil
}

func dsn(path string, readOnly bool) string {
	q := url.Values{}
	q.Set("_busy_timeout", "10000")
	q.Set("_foreign_keys", "on")
	q.Set("_journal_mode", "WAL")
	q.Set("_synchronous", "NORMAL")
	q.Set("_txlock", "immediate")
	q.Set("_stmt_cache_size", "128")
	if readOnly {
		q.Set("mode", "ro")
		q.Del("_journal_mode")
		q.Del("_txlock")
	}
	return "file:" + path + "?" + q.Encode()
}

// Close closes both pools.
func (s *Store) Close() error {
	var errs []error
	if s.R != nil {
		errs = append(errs, s.R.Close())
	}
	errs = append(errs, s.W.Close())
	return errors.Join(errs...)
}

// Ping checks that the database answers; /readyz uses it.
func (s *Store) Ping(ctx context.Context) error {
	var one int
	return s.R.GetContext(ctx, &one, "SELECT 1")
}

// Tx runs fn in one immediate write transaction, committed when fn returns nil.
func (s *Store) Tx(ctx context.Context, fn func(tx *sqlx.Tx) error) error {
	tx, err := s.W.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

func (s *Store) migrate(ctx context.Context) error {
	if _, err := s.W.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		name TEXT PRIMARY KEY, applied_at TIMESTAMP NOT NULL)`); err != nil {
		return fmt.Errorf("migrations table: %w", err)
	}
	names, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	for _, name := range names {
		base := strings.TrimPrefix(name, "migrations/")
		err := s.Tx(ctx, func(tx *sqlx.Tx) error {
			var applied int
			if err := tx.GetContext(ctx, &applied, `SELECT count(*) FROM schema_migrations WHERE name = ?`, base); err != nil {
				return err
			}
			if applied > 0 {
				return nil
			}
			body, err := migrationFS.ReadFile(name)
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, string(body)); err != nil {
				return fmt.Errorf("apply %s: %w", base, err)
			}
			_, err = tx.ExecContext(ctx, `INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)`, base, time.Now().UTC())
			return err
		})
		if err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
	}
	migrator, err := rivermigrate.New(riversqlite.New(s.W.DB), nil)
	if err != nil {
		return fmt.Errorf("river migrator: %w", err)
	}
	if _, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("river migrate: %w", err)
	}
	return nil
}

// notFound maps sql.ErrNoRows to ErrNotFound so callers never see driver errors.
func notFound(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	return err
}

// ReclaimOrphanedJobs makes jobs that a dead process left running available
// again. Only the holder of the ServerLock may call it: with one server per
// database, a running job at start has no worker alive.
func (s *Store) ReclaimOrphanedJobs(ctx context.Context, _ *ServerLock) (int64, error) {
	res, err := s.W.ExecContext(ctx, `UPDATE river_job SET state = 'available', scheduled_at = datetime('now', 'subsec') WHERE state = 'running'`)
	if err != nil {
		return 0, fmt.Errorf("reclaim jobs: %w", err)
	}
	return res.RowsAffected()
}

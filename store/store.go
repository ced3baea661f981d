// Package store is shipd's persistence: every SQL statement, the migrations,
// and River's tables. It has one API shape: read methods shared by *Store
// (the read pool) and *Tx (inside a write transaction), and write methods on
// *Tx only, so a write can never happen outside a transaction and the
// connections stay unexported.
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
	"github.com/mattn/go-sqlite3"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"
)

// ErrNotFound is returned when a row does not exist for the account asking.
var ErrNotFound = errors.New("not found")

//go:embed migrations/*.sql
var migrationFS embed.FS

// Store is the database: one writer, a pool of readers. Its read methods use
// the reader pool; writes go through Tx.
type Store struct {
	reader
	w, r *sqlx.DB
	// jobs inserts River jobs inside shipd's transactions; it runs nothing.
	jobs *river.Client[*sql.Tx]
}

// Tx is one write transaction: the read methods see its writes, and the write
// methods exist only here.
type Tx struct {
	reader
	tx   *sqlx.Tx
	jobs *river.Client[*sql.Tx]
}

// reader holds the read methods; both Store and Tx embed it.
type reader struct {
	q sqlx.QueryerContext
}

// Open opens (creating if needed) the database at path and applies every
// migration, shipd's and River's.
func Open(ctx context.Context, path string) (*Store, error) {
	w, err := sqlx.Open("sqlite3", dsn(path, false))
	if err != nil {
		return nil, fmt.Errorf("open writer: %w", err)
	}
	// SQLite has one writer: a pool of one connection queues writers in Go
	// instead of having them fail with SQLITE_BUSY.
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	if err := w.PingContext(ctx); err != nil {
		w.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	s := &Store{w: w}
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
	s.r = r
	s.reader = reader{q: r}
	s.jobs, err = river.NewClient(riversqlite.New(w.DB), &river.Config{
		Middleware: []rivertype.Middleware{river.JobInsertMiddlewareFunc(dueWithoutScheduler)},
	})
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("job insert client: %w", err)
	}
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
	if s.r != nil {
		errs = append(errs, s.r.Close())
	}
	errs = append(errs, s.w.Close())
	return errors.Join(errs...)
}

// Ping checks that the database answers; /readyz uses it.
func (s *Store) Ping(ctx context.Context) error {
	var one int
	return s.get(ctx, &one, "SELECT 1")
}

// Tx runs fn in one write transaction, committed when fn returns nil and
// rolled back otherwise.
func (s *Store) Tx(ctx context.Context, fn func(tx *Tx) error) error {
	tx, err := s.w.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := fn(&Tx{reader: reader{q: tx}, tx: tx, jobs: s.jobs}); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

func (r reader) get(ctx context.Context, dest any, query string, args ...any) error {
	return notFound(sqlx.GetContext(ctx, r.q, dest, query, args...))
}

func (r reader) sel(ctx context.Context, dest any, query string, args ...any) error {
	return sqlx.SelectContext(ctx, r.q, dest, query, args...)
}

func (t *Tx) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return t.tx.ExecContext(ctx, query, args...)
}

// execOne runs a statement that must change exactly one row; ErrNotFound when it changed none.
func (t *Tx) execOne(ctx context.Context, query string, args ...any) error {
	res, err := t.exec(ctx, query, args...)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return ErrNotFound
	}
	return nil
}

// insertSeq runs a named INSERT ... RETURNING seq and returns the new row's seq.
func (t *Tx) insertSeq(ctx context.Context, query string, arg any) (int64, error) {
	rows, err := sqlx.NamedQueryContext(ctx, t.tx, query, arg)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var seq int64
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return 0, err
		}
		return 0, ErrNotFound // ON CONFLICT DO NOTHING inserted nothing
	}
	if err := rows.Scan(&seq); err != nil {
		return 0, err
	}
	return seq, rows.Close()
}

func (s *Store) migrate(ctx context.Context) error {
	if _, err := s.w.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
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
		err := s.Tx(ctx, func(tx *Tx) error {
			var applied int
			if err := tx.get(ctx, &applied, `SELECT count(*) FROM schema_migrations WHERE name = ?`, base); err != nil {
				return err
			}
			if applied > 0 {
				return nil
			}
			body, err := migrationFS.ReadFile(name)
			if err != nil {
				return err
			}
			if _, err := tx.exec(ctx, string(body)); err != nil {
				return fmt.Errorf("apply %s: %w", base, err)
			}
			_, err = tx.exec(ctx, `INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)`, base, time.Now().UTC())
			return err
		})
		if err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
	}
	migrator, err := rivermigrate.New(riversqlite.New(s.w.DB), nil)
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

// isUniqueViolationOf reports whether err violates the unique index named
// index (PostgreSQL names it) whose columns SQLite names as column, so that
// one rule's violation is not mistaken for another's (a duplicate id is no
// duplicate URL).
func isUniqueViolationOf(err error, index, column string) bool {
	var e sqlite3.Error
	if errors.As(err, &e) && e.ExtendedCode == sqlite3.ErrConstraintUnique {
		return strings.Contains(e.Error(), column)
	}
	return false
}

// isUniqueViolation reports whether err is a UNIQUE or PRIMARY KEY violation.
func isUniqueViolation(err error) bool {
	var e sqlite3.Error
	if errors.As(err, &e) {
		return e.ExtendedCode == sqlite3.ErrConstraintUnique || e.ExtendedCode == sqlite3.ErrConstraintPrimaryKey
	}
	return false
}

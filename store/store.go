// Package store is shipd's persistence: every SQL statement, the migrations,
// and River's tables. It has one API shape: read methods shared by *Store
// (the read pool) and *Tx (inside a write transaction), and write methods on
// *Tx, so a write of the domain's happens inside a transaction and the
// connections stay unexported. Seven upkeep writes are on *Store and run
// their own short transactions: ReclaimOrphanedJobs and
// OrphanIdempotencyClaims at start (they take the ServerLock, so only the
// one server of a SQLite file runs them), PurgeIdempotencyKeys (in
// batches), and the instances' Heartbeat, Leave, ReclaimFromDeadInstances
// and HandBackJobs (instances.go: PostgreSQL's failover). Reads that may be
// served from what this server already read say so in their names
// (CachedShipment, CachedTrackingEvents).
//
// The domains declare what they consume of it (each one's Storage and
// TxStorage, in its storage.go); the conformance suite (storetest) checks
// every exported method on every backend.
//
// Two databases sit behind that shape: SQLite (a file; the embedded default,
// one writer and a reader pool) and PostgreSQL (a postgres:// URL; one pool
// that several shipd instances may share). What differs between them stays in
// this package: migration files per dialect (one numbered line, migrate.go), placeholders (written as ? and
// rebound), row locks, and the recognition of unique violations.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/jmoiron/sqlx"
	"github.com/mattn/go-sqlite3"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/rivertype"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// ErrNotFound is returned when a row does not exist for the account asking.
var ErrNotFound = errors.New("not found")

type dialect int

const (
	sqliteDialect dialect = iota
	postgresDialect
)

// Store is the database. Its read methods use the reader pool (on
// PostgreSQL, the one pool); writes go through Tx.
type Store struct {
	reader
	w, r    *sqlx.DB
	dialect dialect
	driver  riverdriver.Driver[*sql.Tx]
	// jobs inserts River jobs inside shipd's transactions; it runs nothing.
	jobs *river.Client[*sql.Tx]
	// pools are PostgreSQL's: the one behind w and r, and the one River
	// hijacks LISTEN connections from.
	pool, listenerPool *pgxpool.Pool
	// insertMiddleware runs around every job insert (SetJobInsertMiddleware).
	insertMiddleware []rivertype.Middleware
	// tracer, when set, traces every write transaction (SetTracerProvider).
	tracer trace.Tracer
	// batch commits SQLite's write transactions in groups (batch.go).
	batch *committer
	// tokenVersion tells token caches when to read again (tokenversion.go);
	// SQLite's only: on PostgreSQL the change feed does.
	tokenVersion *tokenVersion
	// details, when set, keeps shipment rows and scans read (details.go).
	details *detailCache
	// feed hears PostgreSQL's changes of tokens and details (changes.go).
	feed *changeFeed
	// checkpoints copies SQLite's WAL into the database beside the writer (checkpoint.go).
	checkpoints *checkpointer
	// notes carries River's notifications in this process (SQLite, see
	// localNotifier), sqliteDriver counts its job fetches; nil on PostgreSQL.
	notes        *localNotifier
	sqliteDriver *completingDriver
}

// Tx is one write transaction: the read methods see its writes, and the write
// methods exist only here.
type Tx struct {
	reader
	tx   *sqlx.Tx
	jobs *river.Client[*sql.Tx]
	// details and touched: the rows this transaction wrote, released from
	// the Store's cache when it ends (details.go).
	details *detailCache
	touched []detailKey
	// deferNew: EnqueueNew keeps its jobs in newJobs, and the group
	// committer inserts those of the whole group at once (batch.go).
	deferNew bool
	newJobs  []river.InsertManyParams
	// newJobCtxs[i] is the context that enqueued newJobs[i] (EnqueuerContext).
	newJobCtxs []context.Context
	// notes and wake: on SQLite, the workers of this process to tell of the
	// jobs inserted once the transaction commits (jobs.go).
	notes *localNotifier
	wake  jobWake
}

// queryer is a connection pool or a transaction; Rebind turns the ? of shipd's
// SQL into the database's placeholders.
type queryer interface {
	sqlx.QueryerContext
	Rebind(query string) string
}

// reader holds the read methods; both Store and Tx embed it.
type reader struct {
	q queryer
	d dialect
}

// IsPostgres reports whether dsn names a PostgreSQL database rather than a SQLite file.
func IsPostgres(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// Open opens the database dsn (a SQLite file path, created if needed, or a
// postgres:// URL) and applies every migration, shipd's and River's.
func Open(ctx context.Context, dsn string) (*Store, error) {
	if IsPostgres(dsn) {
		return openPostgres(ctx, dsn)
	}
	return openSQLite(ctx, dsn)
}

// Shared reports whether several shipd instances may use the database at
// once (PostgreSQL); a SQLite file has one server.
func (s *Store) Shared() bool { return s.dialect == postgresDialect }

func openSQLite(ctx context.Context, path string) (*Store, error) {
	if err := ownerOnly(path); err != nil {
		return nil, err
	}
	w := sqlx.NewDb(sql.OpenDB(&sqliteConnector{dsn: dsn(path, false), detached: true,
		pragmas: fmt.Sprintf("PRAGMA wal_autocheckpoint=%d", maxWALPages)}), "sqlite3")
	// SQLite has one writer: a pool of one connection queues writers in Go
	// instead of having them fail with SQLITE_BUSY.
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	if err := w.PingContext(ctx); err != nil {
		w.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	d := newCompletingDriver(w.DB)
	s := &Store{w: w, dialect: sqliteDialect, driver: d, sqliteDriver: d, notes: d.notes}
	s.reader = reader{q: w, d: sqliteDialect}
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
	s.reader = reader{q: r, d: sqliteDialect}
	if err := s.newJobInserter(); err != nil {
		s.Close()
		return nil, err
	}
	s.batch = newCommitter(s, w)
	s.tokenVersion = newTokenVersion(s)
	if s.checkpoints, err = startCheckpointer(path); err != nil {
		s.Close()
		return nil, fmt.Errorf("open checkpointer: %w", err)
	}
	return s, nil
}

func openPostgres(ctx context.Context, dsn string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		// The URL may hold a password: say what is wrong without it.
		return nil, errors.New("open PostgreSQL: the database URL does not parse")
	}
	if cfg.MaxConns < 16 {
		cfg.MaxConns = 16
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open PostgreSQL: %w", err)
	}
	lcfg := cfg.Copy()
	lcfg.MinConns, lcfg.MaxConns = 0, 2
	listenerPool, err := pgxpool.NewWithConfig(ctx, lcfg)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("open PostgreSQL: %w", err)
	}
	sqlDB := stdlib.OpenDBFromPool(pool)
	// The pgxpool is database/sql's alone, so database/sql may keep its
	// connections idle: given back to the pool after each query (the
	// default here), every query paid a connector round of its own.
	sqlDB.SetMaxOpenConns(int(cfg.MaxConns))
	sqlDB.SetMaxIdleConns(int(cfg.MaxConns))
	db := sqlx.NewDb(sqlDB, "pgx")
	s := &Store{w: db, r: db, dialect: postgresDialect, pool: pool, listenerPool: listenerPool,
		driver: pgJobDriver{riverdatabasesql.NewWithPgxListener(db.DB, listenerPool)}}
	s.reader = reader{q: db, d: postgresDialect}
	if err := db.PingContext(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("open PostgreSQL: %w", err)
	}
	if err := s.migrate(ctx); err != nil {
		s.Close()
		return nil, err
	}
	if err := s.newJobInserter(); err != nil {
		s.Close()
		return nil, err
	}
	s.details = newDetailCache()
	s.feed = newChangeFeed(s, s.details)
	return s, nil
}

func (s *Store) newJobInserter() error {
	var err error
	// River tells the workers of PostgreSQL's instances of new jobs with a
	// NOTIFY in the inserting transaction, at most once per FetchCooldown
	// and queue of the inserting client: at River's default 100 ms a
	// purchase waited 49 ms for its worker at the median (make bench, 100
	// creates/s). The workers fetch at most that often too (app.fetchCooldown).
	s.jobs, err = river.NewClient(s.driver, &river.Config{Middleware: s.jobMiddleware(), FetchCooldown: 10 * time.Millisecond})
	if err != nil {
		return fmt.Errorf("job insert client: %w", err)
	}
	return nil
}

// jobMiddleware is what runs around every job insert: future jobs inserted
// as due (dueWithoutScheduler), then SetJobInsertMiddleware's.
func (s *Store) jobMiddleware() []rivertype.Middleware {
	return append([]rivertype.Middleware{river.JobInsertMiddlewareFunc(dueWithoutScheduler)}, s.insertMiddleware...)
}

// SetJobInsertMiddleware runs mw around every job insert from now on (for
// example to carry a request's trace into its jobs' metadata). Call it before
// the store is used.
func (s *Store) SetJobInsertMiddleware(mw ...rivertype.Middleware) error {
	s.insertMiddleware = mw
	return s.newJobInserter()
}

// SetTracerProvider traces every write transaction with tp (nil: none).
// Call it before the store is used.
func (s *Store) SetTracerProvider(tp trace.TracerProvider) {
	s.tracer = nil
	if tp != nil {
		s.tracer = tp.Tracer("github.com/shipd-dev/shipd/store")
	}
}

// ownerOnly makes the database file readable by its owner only before SQLite
// opens it: the file holds token hashes, sealed secrets and customers'
// addresses. SQLite gives its -wal and -shm files the mode of the database
// file, so creating it 0600 covers them; an existing file (and its WAL) made
// by an older shipd with the umask's 0644 is tightened.
func ownerOnly(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	f.Close()
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("stat %s: %w", p, err)
		}
		if fi.Mode().Perm()&0o077 != 0 {
			if err := os.Chmod(p, fi.Mode().Perm()&0o700); err != nil {
				return fmt.Errorf("make %s owner-only: %w", p, err)
			}
		}
	}
	return nil
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

// Close closes the pools.
func (s *Store) Close() error {
	if s.tokenVersion != nil {
		s.tokenVersion.close()
	}
	if s.feed != nil {
		s.feed.close()
	}
	if s.batch != nil {
		s.batch.close()
	}
	var errs []error
	if s.checkpoints != nil {
		errs = append(errs, s.checkpoints.close())
	}
	if s.r != nil && s.r != s.w {
		errs = append(errs, s.r.Close())
	}
	if s.w != nil {
		errs = append(errs, s.w.Close())
	}
	if s.pool != nil {
		s.pool.Close()
		s.listenerPool.Close()
	}
	return errors.Join(errs...)
}

// Ping checks that the database answers; /readyz uses it.
func (s *Store) Ping(ctx context.Context) error {
	var one int
	return s.get(ctx, &one, "SELECT 1")
}

// Tx runs fn in one write transaction, committed when fn returns nil and
// rolled back otherwise.
func (s *Store) Tx(ctx context.Context, fn func(tx *Tx) error) (err error) {
	if s.tracer != nil {
		var span trace.Span
		ctx, span = s.tracer.Start(ctx, "db.tx", trace.WithSpanKind(trace.SpanKindClient),
			trace.WithAttributes(attribute.String("db.system.name", s.systemName())))
		defer func() {
			if err != nil {
				span.RecordError(err)
				span.SetStatus(codes.Error, "rolled back")
			}
			span.End()
		}()
	}
	if s.batch != nil {
		return s.batch.run(ctx, fn)
	}
	tx, err := s.w.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	t := &Tx{reader: reader{q: tx, d: s.dialect}, tx: tx, jobs: s.jobs, details: s.details, notes: s.notes}
	defer t.ended()
	if err := fn(t); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	t.wakeWorkers()
	return nil
}

// systemName is the database's name in OpenTelemetry's vocabulary.
func (s *Store) systemName() string {
	if s.dialect == postgresDialect {
		return "postgresql"
	}
	return "sqlite"
}

func (r reader) get(ctx context.Context, dest any, query string, args ...any) error {
	return notFound(sqlx.GetContext(ctx, r.q, dest, r.q.Rebind(query), args...))
}

func (r reader) sel(ctx context.Context, dest any, query string, args ...any) error {
	return sqlx.SelectContext(ctx, r.q, dest, r.q.Rebind(query), args...)
}

// forUpdate ends a SELECT that the transaction must hold until it ends. A
// SQLite write transaction (BEGIN IMMEDIATE) already holds the whole
// database; PostgreSQL locks the rows read.
func (r reader) forUpdate() string {
	if r.d == postgresDialect {
		return " FOR UPDATE"
	}
	return ""
}

func (t *Tx) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return t.tx.ExecContext(ctx, t.tx.Rebind(query), args...)
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
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == pgUniqueViolation {
		return pe.ConstraintName == index
	}
	return false
}

// pgUniqueViolation is PostgreSQL's SQLSTATE for a unique violation.
const pgUniqueViolation = "23505"

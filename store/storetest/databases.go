package storetest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the PostgreSQL driver of the admin connection

	"github.com/shipd-dev/shipd/store"
)

// DatabaseURLEnv names the variable that points the tests at a PostgreSQL
// server: a URL whose user may create databases (scripts/pg-test.sh starts a
// throwaway server and sets it). Without it, tests use SQLite files.
const DatabaseURLEnv = "SHIPD_TEST_DATABASE_URL"

// Postgres reports whether the tests run on PostgreSQL.
func Postgres() bool { return os.Getenv(DatabaseURLEnv) != "" }

// NewDatabase returns the DSN of a fresh, empty database for one test: a
// SQLite file in the test's temporary directory or, on PostgreSQL, a new
// database copied from a migrated template (fast), dropped when the test ends.
func NewDatabase(tb testing.TB) string {
	tb.Helper()
	if !Postgres() {
		return filepath.Join(tb.TempDir(), "shipd.db")
	}
	dsn, drop, err := CreatePostgres(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(drop)
	return dsn
}

// CreatePostgres makes a fresh PostgreSQL database (see NewDatabase) for
// code that has no testing.TB; drop removes it.
func CreatePostgres(ctx context.Context) (dsn string, drop func(), err error) {
	admin := os.Getenv(DatabaseURLEnv)
	db, err := sql.Open("pgx", admin)
	if err != nil {
		return "", nil, err
	}
	defer db.Close()
	template, err := ensureTemplate(ctx, db, admin)
	if err != nil {
		return "", nil, fmt.Errorf("PostgreSQL template: %w", err)
	}
	name := "shipd_t_" + randomHex(8)
	if _, err := db.ExecContext(ctx, "CREATE DATABASE "+name+" TEMPLATE "+template); err != nil {
		return "", nil, fmt.Errorf("create test database: %w", err)
	}
	drop = func() {
		db, err := sql.Open("pgx", admin)
		if err != nil {
			return
		}
		defer db.Close()
		_, _ = db.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	}
	return withDatabase(admin, name), drop, nil
}

// Open opens a fresh database for one test (see NewDatabase); it is closed when the test ends.
func Open(tb testing.TB) *store.Store {
	tb.Helper()
	st, err := store.Open(context.Background(), NewDatabase(tb))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	return st
}

// ensureTemplate makes sure a template database with every migration exists
// and returns its name. The name carries a hash of the migrations, so a
// changed schema gets a new template; an advisory lock keeps the test
// binaries of several packages, which run at once, from building it twice.
func ensureTemplate(ctx context.Context, db *sql.DB, admin string) (string, error) {
	sum := sha256.New()
	err := fs.WalkDir(store.Migrations(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := fs.ReadFile(store.Migrations(), path)
		sum.Write([]byte(path))
		sum.Write(body)
		return err
	})
	if err != nil {
		return "", err
	}
	name := "shipd_tmpl_" + hex.EncodeToString(sum.Sum(nil))[:12]
	conn, err := db.Conn(ctx)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock(7320114)"); err != nil {
		return "", err
	}
	defer conn.ExecContext(context.Background(), "SELECT pg_advisory_unlock(7320114)")
	var exists bool
	if err := conn.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return "", err
	}
	if exists {
		return name, nil
	}
	building := name + "_building"
	if _, err := conn.ExecContext(ctx, "DROP DATABASE IF EXISTS "+building+" WITH (FORCE)"); err != nil {
		return "", err
	}
	if _, err := conn.ExecContext(ctx, "CREATE DATABASE "+building); err != nil {
		return "", err
	}
	st, err := store.Open(ctx, withDatabase(admin, building))
	if err != nil {
		return "", fmt.Errorf("migrate the template: %w", err)
	}
	if err := st.Close(); err != nil {
		return "", err
	}
	// Renamed only once complete, so no test copies a half-migrated template.
	if _, err := conn.ExecContext(ctx, "ALTER DATABASE "+building+" RENAME TO "+name); err != nil {
		return "", err
	}
	return name, nil
}

// withDatabase is the admin URL pointed at another database.
func withDatabase(admin, name string) string {
	u, err := url.Parse(admin)
	if err != nil {
		return admin
	}
	u.Path = "/" + name
	return u.String()
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

package store_test

import (
	"database/sql"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/shipd-dev/shipd/store"
	"github.com/shipd-dev/shipd/store/storetest"
)

// TestPostgres runs the conformance suite on PostgreSQL; scripts/pg-test.sh
// (make test-postgres) gives it a throwaway server.
func TestPostgres(t *testing.T) {
	if !storetest.Postgres() {
		t.Skip("set " + storetest.DatabaseURLEnv + " (or run make test-postgres) to run the suite on PostgreSQL")
	}
	storetest.Run(t, func(t *testing.T) *store.Store { return storetest.Open(t) })
}

// TestPostgresInstancesShareFreshness: two instances of shipd on one
// database, each with its cache of shipment rows and scans; one writes,
// the other's reads never fall behind a finished commit.
func TestPostgresInstancesShareFreshness(t *testing.T) {
	dsn := newPostgres(t)
	storetest.FreshAcrossInstances(t, openOn(t, dsn), openOn(t, dsn))
}

// newPostgres is a fresh database's URL, or skips the test without PostgreSQL.
func newPostgres(t *testing.T) string {
	t.Helper()
	if !storetest.Postgres() {
		t.Skip("set " + storetest.DatabaseURLEnv + " (or run make test-postgres) to run it on PostgreSQL")
	}
	return storetest.NewDatabase(t)
}

// openOn opens a Store on dsn, closed when the test ends.
func openOn(t *testing.T, dsn string) *store.Store {
	t.Helper()
	s, err := store.Open(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// outsideOf is a connection to dsn that is not shipd's, closed when the test ends.
func outsideOf(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestPostgresCacheHearsOutsideWrites: rows changed by SQL that is not
// shipd's are read again (the triggers of migration 0023 tell the cache).
func TestPostgresCacheHearsOutsideWrites(t *testing.T) {
	dsn := newPostgres(t)
	s, outside := openOn(t, dsn), outsideOf(t, dsn)
	storetest.FreshAfterOutsideWrite(t, s, func(query string, args ...any) error {
		_, err := outside.ExecContext(t.Context(), sqlx.Rebind(sqlx.DOLLAR, query), args...)
		return err
	})
}

// TestPostgresCacheSurvivesALostListener: when the change feed's connection
// is cut (a restarted database, a proxy's idle timeout), a change committed
// meanwhile is not hidden by the cache: reads go to the database until the
// feed listens again, and then start from nothing cached.
func TestPostgresCacheSurvivesALostListener(t *testing.T) {
	dsn := newPostgres(t)
	s, admin := openOn(t, dsn), outsideOf(t, dsn)
	cut := func() {
		// Cut the feed's connection (once it has one again), then write
		// while it reconnects.
		deadline := time.Now().Add(10 * time.Second)
		for {
			var n int
			err := admin.QueryRowContext(t.Context(), `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
				WHERE application_name = 'shipd change feed' AND datname = current_database()`).Scan(&n)
			if err != nil {
				t.Fatal(err)
			}
			if n == 1 {
				return
			}
			if n > 1 || time.Now().After(deadline) {
				t.Fatalf("%d change feed connections, want 1", n)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	listening := func() {
		// The feed is back: its connection has run its LISTEN (or later a
		// barrier's SELECT 1).
		deadline := time.Now().Add(10 * time.Second)
		for {
			var n int
			err := admin.QueryRowContext(t.Context(), `SELECT count(*) FROM pg_stat_activity
				WHERE application_name = 'shipd change feed' AND datname = current_database()
				AND (query LIKE 'LISTEN%' OR query = 'SELECT 1')`).Scan(&n)
			if err != nil {
				t.Fatal(err)
			}
			if n == 1 {
				time.Sleep(50 * time.Millisecond) // past the LISTEN's answer
				return
			}
			if time.Now().After(deadline) {
				t.Fatal("the change feed did not listen again")
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	storetest.FreshAfterOutsideWrite(t, s, func(query string, args ...any) error {
		cut()
		_, err := admin.ExecContext(t.Context(), sqlx.Rebind(sqlx.DOLLAR, query), args...)
		// Read once it listens again: what it cached before must be gone,
		// for it never heard of this write.
		listening()
		return err
	})
}

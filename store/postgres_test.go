package store_test

import (
	"database/sql"
	"testing"

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
	if !storetest.Postgres() {
		t.Skip("set " + storetest.DatabaseURLEnv + " (or run make test-postgres) to run it on PostgreSQL")
	}
	dsn := storetest.NewDatabase(t)
	open := func() *store.Store {
		s, err := store.Open(t.Context(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	storetest.FreshAcrossInstances(t, open(), open())
}

// TestPostgresCacheHearsOutsideWrites: rows changed by SQL that is not
// shipd's are read again (the triggers of migration 0023 tell the cache).
func TestPostgresCacheHearsOutsideWrites(t *testing.T) {
	if !storetest.Postgres() {
		t.Skip("set " + storetest.DatabaseURLEnv + " (or run make test-postgres) to run it on PostgreSQL")
	}
	dsn := storetest.NewDatabase(t)
	s, err := store.Open(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	outside, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer outside.Close()
	storetest.FreshAfterOutsideWrite(t, s, func(query string, args ...any) error {
		_, err := outside.ExecContext(t.Context(), sqlx.Rebind(sqlx.DOLLAR, query), args...)
		return err
	})
}

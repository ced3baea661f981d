package store_test

import (
	"testing"

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

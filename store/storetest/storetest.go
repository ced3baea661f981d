// Package storetest is the conformance suite of store's backends: what every
// database behind *store.Store must do, whatever its SQL dialect. A backend
// runs it from its own test with a function that opens a fresh database:
//
//	func TestSQLite(t *testing.T) { storetest.Run(t, openSQLite) }
//
// The suite uses only store's exported API (and River's client for jobs), so
// it holds no SQL of its own and proves behaviour, not statements.
package storetest

import (
	"testing"

	"github.com/shipd-dev/shipd/store"
)

// Opener gives a fresh, migrated, empty database for one test; it registers
// the database's Close with t.Cleanup.
type Opener func(t *testing.T) *store.Store

// Run runs the whole suite against the backend open returns, one group of
// parallel subtests per file of package store.
func Run(t *testing.T, open func(t *testing.T) *store.Store) {
	groups := []struct {
		name string
		run  func(t *testing.T, open Opener)
	}{
		{"tx", testTx},
		{"accounts", testAccounts},
		{"tokens", testTokens},
		{"addresses", testAddresses},
		{"shipments", testShipments},
		{"returns", testReturns},
		{"trackers", testTrackers},
		{"standalone trackers", testStandaloneTrackers},
		{"events", testEvents},
		{"subscriptions", testSubscriptions},
		{"deliveries", testDeliveries},
		{"ledger", testLedger},
		{"idempotency", testIdempotency},
		{"pages", testPages},
		{"jobs", testJobs},
		{"users", testUsers},
		{"sessions", testSessions},
		{"audit", testAudit},
		{"freshness", testFreshness},
		{"documents", testDocuments},
		{"batches", testBatches},
		{"instances", testInstances},
		{"manifests", testManifests},
		{"pickups", testPickups},
		{"carrier accounts", testCarrierAccounts},
		{"purchase attempts", testPurchaseAttempts},
		{"upkeep", testUpkeep},
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			// Parallel groups let the leaves of every group share the CPUs,
			// instead of each group waiting for the slowest leaf of the previous one.
			t.Parallel()
			g.run(t, Opener(open))
		})
	}
}

// leaf runs fn as a parallel subtest with its own fresh database, so that no
// test depends on what another one wrote.
func leaf(t *testing.T, open Opener, name string, fn func(t *testing.T, s *store.Store)) {
	t.Helper()
	t.Run(name, func(t *testing.T) {
		t.Parallel()
		fn(t, open(t))
	})
}

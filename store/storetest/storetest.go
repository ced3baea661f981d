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

// Run runs the whole suite against the backend open returns: a group per
// storage contract a domain declares (accounts.Storage, shipping.Storage,
// batches.Storage …; each names its groups), then the store's own
// machinery (transactions, pages, jobs, caches, instances, upkeep). The
// groups run in parallel, and so do their leaves.
func Run(t *testing.T, open func(t *testing.T) *store.Store) {
	type part struct {
		name string
		run  func(t *testing.T, open Opener)
	}
	groups := []struct {
		name  string
		parts []part
	}{
		{"accounts", []part{{"accounts", testAccounts}, {"tokens", testTokens}, {"users", testUsers}, {"sessions", testSessions}, {"audit", testAudit}}},
		{"shipments and ledger", []part{{"shipments", testShipments}, {"returns", testReturns}, {"ledger", testLedger},
			{"addresses", testAddresses}, {"documents", testDocuments}, {"purchase attempts", testPurchaseAttempts}}},
		{"trackers", []part{{"trackers", testTrackers}, {"standalone trackers", testStandaloneTrackers}}},
		{"batches", []part{{"batches", testBatches}}},
		{"manifests", []part{{"manifests", testManifests}}},
		{"pickups", []part{{"pickups", testPickups}}},
		{"carrier accounts", []part{{"carrier accounts", testCarrierAccounts}}},
		{"webhooks", []part{{"events", testEvents}, {"subscriptions", testSubscriptions}, {"deliveries", testDeliveries}}},
		{"idempotency", []part{{"idempotency", testIdempotency}}},
		{"store", []part{{"tx", testTx}, {"pages", testPages}, {"jobs", testJobs}, {"freshness", testFreshness},
			{"instances", testInstances}, {"upkeep", testUpkeep}}},
	}
	for _, g := range groups {
		for _, p := range g.parts {
			t.Run(g.name+"/"+p.name, func(t *testing.T) {
				// Parallel groups let the leaves of every group share the CPUs,
				// instead of each group waiting for the slowest leaf of the previous one.
				t.Parallel()
				p.run(t, Opener(open))
			})
		}
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

package store_test

import (
	"database/sql"
	"io/fs"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	_ "github.com/mattn/go-sqlite3"

	"github.com/shipd-dev/shipd/store"
)

// A database made before trackers of any package (the migrations up to
// 0006, with labels' trackers and their scans) keeps every row through
// 0007, which rebuilds trackers and tracking_events, and keeps the foreign
// key from scans to their tracker.
func TestSQLiteStandaloneTrackersMigrationKeepsTrackers(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "shipd.db")
	db, err := sql.Open("sqlite3", "file:"+path+"?_foreign_keys=on")
	if err != nil {
		t.Fatal(err)
	}
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%.60s: %v", q, err)
		}
	}
	exec(`CREATE TABLE schema_migrations (name TEXT PRIMARY KEY, applied_at TIMESTAMP NOT NULL)`)
	names, err := fs.Glob(store.Migrations(), "migrations/sqlite/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	for _, name := range names {
		base := filepath.Base(name)
		if base >= "0007" {
			break
		}
		body, err := fs.ReadFile(store.Migrations(), name)
		if err != nil {
			t.Fatal(err)
		}
		exec(string(body))
		exec(`INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)`, base, time.Now().UTC())
	}
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	exec(`INSERT INTO accounts (id, name, created_at) VALUES ('acct_old', 'Old', ?)`, t0)
	for i, id := range []string{"shp_b", "shp_a"} {
		exec(`INSERT INTO shipments (id, account_id, mode, status, created_at, updated_at, carrier, service, service_category,
			carrier_rate_cents, platform_fee_cents, customer_price_cents, balance_applied_cents, charge_amount_cents, currency,
			estimated_days, request) VALUES (?, 'acct_old', 'test', 'purchased', ?, ?, 'USPS', 'Priority', 'standard', 1, 1, 2, 0, 2, 'USD', 2, '{}')`,
			id, t0, t0)
		// shp_b's tracker was created first.
		exec(`INSERT INTO trackers (id, account_id, mode, shipment_id, carrier, tracking_number, status, plan, created_at, updated_at)
			VALUES (?, 'acct_old', 'test', ?, 'USPS', ?, 'in_transit', '[]', ?, ?)`,
			"trk_"+id[4:], id, "940011189922334455667"+id[4:], t0.Add(time.Duration(i)*time.Hour), t0)
	}
	exec(`INSERT INTO tracking_events (tracker_id, scan_index, status, message, location, occurred_at)
		VALUES ('trk_a', 0, 'pre_transit', 'Shipping label created', 'New York, NY', ?)`, t0)
	exec(`INSERT INTO tracking_events (tracker_id, scan_index, status, message, location, occurred_at)
		VALUES ('trk_a', 1, 'in_transit', 'Departed', 'New York, NY', ?)`, t0.Add(time.Hour))
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	s := openSQLiteAt(t, path) // applies 0007
	a, err := s.Tracker(ctx, "acct_old", "trk_a")
	if err != nil {
		t.Fatalf("the label's tracker after the migration: %v", err)
	}
	if a.ShipmentID == nil || *a.ShipmentID != "shp_a" || a.Status != "in_transit" || a.Seq != 2 {
		t.Errorf("trk_a after the migration: %+v", a)
	}
	b, err := s.Tracker(ctx, "acct_old", "trk_b")
	if err != nil || b.Seq != 1 {
		t.Errorf("trk_b after the migration: %+v, %v (want seq 1: created first)", b, err)
	}
	evs, err := s.TrackingEvents(ctx, "trk_a", 10)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range evs {
		got = append(got, e.Message)
	}
	if diff := cmp.Diff([]string{"Departed", "Shipping label created"}, got); diff != "" {
		t.Errorf("scans after the migration (-want +got):\n%s", diff)
	}
	// The scans still need their tracker; a new tracker follows the others.
	err = s.Tx(ctx, func(tx *store.Tx) error {
		_, err := tx.InsertTrackingEvent(ctx, &store.TrackingEvent{TrackerID: "trk_missing", Status: "in_transit", OccurredAt: t0})
		return err
	})
	if err == nil {
		t.Error("a scan of no tracker was stored: the foreign key is gone")
	}
	tr := store.Tracker{ID: "trk_new", AccountID: "acct_old", Mode: "test", Carrier: "UPS", TrackingNumber: "1Z999AA10123456784",
		Status: "unknown", Plan: "[]", CreatedAt: t0, UpdatedAt: t0}
	if err := s.Tx(ctx, func(tx *store.Tx) error { _, err := tx.InsertStandaloneTracker(ctx, &tr); return err }); err != nil {
		t.Fatal(err)
	}
	if tr.Seq != 3 {
		t.Errorf("a new tracker's seq = %d, want 3", tr.Seq)
	}
}

package store_test

import (
	"database/sql"
	"errors"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	_ "github.com/mattn/go-sqlite3"

	"github.com/shipd-dev/shipd/store"
)

// The migration that records trackers' ends ends the standalone trackers
// already at a final status (at their last update), and only those: the
// others count against the account's limit until they end.
func TestSQLiteTrackerEndsMigration(t *testing.T) {
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
		if strings.Contains(base, "tracker_ends") {
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
	for i, status := range []string{"delivered", "in_transit", "unknown", "return_to_sender"} {
		exec(`INSERT INTO trackers (id, account_id, mode, carrier, tracking_number, status, plan, created_at, updated_at)
			VALUES (?, 'acct_old', 'live', 'USPS', ?, ?, '[]', ?, ?)`,
			"trk_"+status, "94001118992233445566"+string(rune('0'+i))+"0", status, t0, t0.Add(time.Duration(i+1)*time.Hour))
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	s := openSQLiteAt(t, path)
	type end struct {
		EndedAt   *time.Time
		EndReason *string
	}
	got := map[string]end{}
	for _, status := range []string{"delivered", "in_transit", "unknown", "return_to_sender"} {
		tr, err := s.Tracker(ctx, "acct_old", "trk_"+status)
		if err != nil {
			t.Fatal(err)
		}
		got[status] = end{tr.EndedAt, tr.EndReason}
	}
	at := func(h int) *time.Time { v := t0.Add(time.Duration(h) * time.Hour); return &v }
	final := "final_status"
	want := map[string]end{"delivered": {at(1), &final}, "in_transit": {}, "unknown": {}, "return_to_sender": {at(4), &final}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ends after the migration (-want +got):\n%s", diff)
	}
	// The two trackers still followed are the account's active ones.
	err = s.Tx(ctx, func(tx *store.Tx) error {
		_, err := tx.InsertStandaloneTrackerWithin(ctx, &store.Tracker{ID: "trk_new", AccountID: "acct_old", Mode: "live", Carrier: "USPS",
			TrackingNumber: "9400111899223344556699", Status: "unknown", Plan: "[]", CreatedAt: t0, UpdatedAt: t0},
			store.ActiveTrackers{Max: 2, Since: t0.Add(-time.Hour)})
		return err
	})
	if !errors.Is(err, store.ErrActiveTrackersLimit) {
		t.Errorf("a third active tracker under a limit of 2: %v, want ErrActiveTrackersLimit", err)
	}
}

package store_test

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivertype"

	"github.com/shipd-dev/shipd/store"
)

// The store inserts River's jobs on SQLite with River's statement for one
// job bound column by column: the rows must be the ones River's own insert
// writes, for a bare job, one with every column set, and one whose times
// are left to the database.
func TestSQLiteJobInsertIsRivers(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "shipd.db")
	openSQLiteAt(t, path) // migrates River's tables
	db, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=10000&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	at := time.Date(2026, 3, 2, 9, 30, 0, 123456000, time.UTC)
	later := at.Add(90 * time.Minute)
	jobs := func(tag string) *riverdriver.JobInsertFastManyParams {
		return &riverdriver.JobInsertFastManyParams{Jobs: []*riverdriver.JobInsertFastParams{
			{CreatedAt: &at, ScheduledAt: &at, EncodedArgs: []byte(`{"shipment_id":"shp_` + tag + `"}`), Kind: "purchase_label",
				MaxAttempts: 25, Priority: 1, Queue: "purchases", State: rivertype.JobStateAvailable, Tags: []string{}},
			{CreatedAt: &at, ScheduledAt: &later, EncodedArgs: []byte(`{"tracker_id":"trk_` + tag + `", "n": 2}`), Kind: "scan",
				MaxAttempts: 40000, Priority: 4, Queue: "default", State: rivertype.JobStateScheduled, Tags: []string{"a", "b \"c\""},
				Metadata: []byte(`{"traceparent":"00-abc-def-01","k":[1,2]}`), UniqueKey: []byte("unique-" + tag), UniqueStates: 0b1110_0110},
			{EncodedArgs: []byte(`{"delivery_id":"dlv_` + tag + `"}`), Kind: "deliver", MaxAttempts: 3, Priority: 2,
				Queue: "deliveries", State: rivertype.JobStateAvailable, Tags: []string{"x"}},
		}}
	}
	insert := func(name string, fn func(tx *sql.Tx) (int, error)) {
		t.Helper()
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		n, err := fn(tx)
		if err != nil || n != 3 {
			t.Fatalf("%s: %d inserted, %v", name, n, err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	insert("River's insert", func(tx *sql.Tx) (int, error) {
		return riversqlite.New(db).UnwrapExecutor(tx).JobInsertFastManyNoReturning(ctx, jobs("river"))
	})
	insert("the store's insert", func(tx *sql.Tx) (int, error) { return store.InsertJobsNativelySQLite(ctx, tx, jobs("store")) })
	// The same unique key again is skipped, as River skips it.
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	again := jobs("store")
	again.Jobs = again.Jobs[1:2]
	again.Jobs[0].EncodedArgs = []byte(`{"tracker_id":"trk_again"}`)
	if n, err := store.InsertJobsNativelySQLite(ctx, tx, again); n != 0 || err != nil {
		t.Errorf("a job of a unique key already there: %d inserted, %v", n, err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}

	rows := func(tag string) []map[string]any {
		t.Helper()
		// The columns as River reads them back; times the database chose
		// are compared by whether they are recent.
		r, err := db.QueryContext(ctx, `SELECT replace(json(args), ?1, 'X'), typeof(args), created_at, created_at >= datetime('now', '-1 minute'),
				kind, max_attempts, json(metadata), typeof(metadata), priority, queue, scheduled_at, scheduled_at >= datetime('now', '-1 minute'),
				state, json(tags), typeof(tags), replace(cast(unique_key AS text), ?1, 'X'), typeof(unique_key), unique_states
			FROM river_job WHERE json(args) LIKE '%' || ?1 || '%' ORDER BY id`, tag)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		var out []map[string]any
		for r.Next() {
			var (
				args, argsType, created, kind, metadata, metadataType, queue, scheduled, state, tags, tagsType, uniqueKeyType string
				uniqueKey                                                                                                     sql.NullString
				uniqueStates                                                                                                  sql.NullInt64
				createdRecent, scheduledRecent                                                                                bool
				maxAttempts, priority                                                                                         int
			)
			if err := r.Scan(&args, &argsType, &created, &createdRecent, &kind, &maxAttempts, &metadata, &metadataType, &priority, &queue,
				&scheduled, &scheduledRecent, &state, &tags, &tagsType, &uniqueKey, &uniqueKeyType, &uniqueStates); err != nil {
				t.Fatal(err)
			}
			row := map[string]any{"args": args, "argsType": argsType, "created": created, "kind": kind, "maxAttempts": maxAttempts,
				"metadata": metadata, "metadataType": metadataType, "priority": priority, "queue": queue, "scheduled": scheduled,
				"state": state, "tags": tags, "tagsType": tagsType, "uniqueKey": uniqueKey, "uniqueKeyType": uniqueKeyType, "uniqueStates": uniqueStates}
			if createdRecent {
				row["created"] = "recent"
			}
			if scheduledRecent {
				row["scheduled"] = "recent"
			}
			out = append(out, row)
		}
		if err := r.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	river, ours := rows("river"), rows("store")
	if len(river) != 3 {
		t.Fatalf("River's insert: %d rows", len(river))
	}
	if diff := cmp.Diff(river, ours); diff != "" {
		t.Errorf("rows (-River's +the store's):\n%s", diff)
	}
	// A batch larger than the largest statement's 16 rows.
	many := &riverdriver.JobInsertFastManyParams{}
	for i := range 19 {
		many.Jobs = append(many.Jobs, &riverdriver.JobInsertFastParams{EncodedArgs: []byte(fmt.Sprintf(`{"n":%d,"batch":"many"}`, i)),
			Kind: "deliver", MaxAttempts: 3, Priority: 1, Queue: "deliveries", State: rivertype.JobStateAvailable, Tags: []string{}})
	}
	insert19, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := store.InsertJobsNativelySQLite(ctx, insert19, many); n != 19 || err != nil {
		t.Errorf("19 jobs: %d inserted, %v", n, err)
	}
	if err := insert19.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := len(rows("many")); got != 19 {
		t.Errorf("19 jobs inserted: %d rows", got)
	}
	if river[2]["created"] != "recent" || river[2]["scheduled"] != "recent" {
		t.Errorf("a job without times: created %v, scheduled %v; want the database's now", river[2]["created"], river[2]["scheduled"])
	}
}

package store_test

import (
	"database/sql"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/rivertype"

	"github.com/shipd-dev/shipd/store"
)

// The store inserts River's jobs on PostgreSQL with its own binding of
// River's statement: the rows must be the ones River's own insert writes,
// for a bare job and for one with every column set.
func TestPostgresJobInsertIsRivers(t *testing.T) {
	dsn := newPostgres(t)
	openOn(t, dsn) // migrates River's tables
	db := outsideOf(t, dsn)
	ctx := t.Context()
	at := time.Date(2026, 3, 2, 9, 30, 0, 123456000, time.UTC)
	later := at.Add(90 * time.Minute)
	jobs := func(tag string) *riverdriver.JobInsertFastManyParams {
		return &riverdriver.JobInsertFastManyParams{Jobs: []*riverdriver.JobInsertFastParams{
			{CreatedAt: &at, ScheduledAt: &at, EncodedArgs: []byte(`{"shipment_id":"shp_` + tag + `"}`), Kind: "purchase_label",
				MaxAttempts: 25, Priority: 1, Queue: "purchases", State: rivertype.JobStateAvailable},
			{CreatedAt: &at, ScheduledAt: &later, EncodedArgs: []byte(`{"tracker_id":"trk_` + tag + `","n":2}`), Kind: "scan",
				MaxAttempts: 40000, Priority: 4, Queue: "default", State: rivertype.JobStateScheduled, Tags: []string{"a", "b c"},
				Metadata: []byte(`{"traceparent":"00-abc-def-01","k":[1,2]}`), UniqueKey: []byte("unique-" + tag), UniqueStates: 0b1110_0110},
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
		if err != nil || n != 2 {
			t.Fatalf("%s: %d inserted, %v", name, n, err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	insert("River's insert", func(tx *sql.Tx) (int, error) {
		return riverdatabasesql.New(db).UnwrapExecutor(tx).JobInsertFastManyNoReturning(ctx, jobs("river"))
	})
	insert("the store's insert", func(tx *sql.Tx) (int, error) { return store.InsertJobsNatively(ctx, tx, jobs("store")) })
	// The same unique key again is skipped, as River skips it.
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	again := jobs("store")
	again.Jobs = again.Jobs[1:]
	again.Jobs[0].EncodedArgs = []byte(`{"tracker_id":"trk_again"}`)
	if n, err := store.InsertJobsNatively(ctx, tx, again); n != 0 || err != nil {
		t.Errorf("a job of a unique key already there: %d inserted, %v", n, err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}

	rows := func(tag string) []map[string]any {
		t.Helper()
		r, err := db.QueryContext(ctx, `SELECT replace(args::text, $1, 'X'), created_at, kind, max_attempts, metadata::text, priority, queue,
				scheduled_at, state::text, array_to_string(tags, '|'), replace(encode(unique_key, 'escape'), $1, 'X'), unique_states::text
			FROM river_job WHERE args::text LIKE '%' || $1 || '%' OR encode(unique_key, 'escape') LIKE '%' || $1 ORDER BY id`, tag)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		var out []map[string]any
		for r.Next() {
			var (
				args, kind, metadata, queue, state, tags string
				uniqueKey, uniqueStates                  sql.NullString
				created, scheduled                       time.Time
				maxAttempts, priority                    int
			)
			if err := r.Scan(&args, &created, &kind, &maxAttempts, &metadata, &priority, &queue, &scheduled, &state, &tags, &uniqueKey, &uniqueStates); err != nil {
				t.Fatal(err)
			}
			out = append(out, map[string]any{"args": args, "created": created.UTC(), "kind": kind, "maxAttempts": maxAttempts, "metadata": metadata,
				"priority": priority, "queue": queue, "scheduled": scheduled.UTC(), "state": state, "tags": tags, "uniqueKey": uniqueKey, "uniqueStates": uniqueStates})
		}
		if err := r.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	river, ours := rows("river"), rows("store")
	if len(river) != 2 {
		t.Fatalf("River's insert: %d rows", len(river))
	}
	if diff := cmp.Diff(river, ours); diff != "" {
		t.Errorf("rows (-River's +the store's):\n%s", diff)
	}
}

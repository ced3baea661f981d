package store_test

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivertype"

	"github.com/shipd-dev/shipd/store"
)

func BenchmarkSQLiteJobInsert(b *testing.B) {
	for _, n := range []int{1, 10} {
		b.Run(fmt.Sprint(n), func(b *testing.B) { benchmarkSQLiteJobInsert(b, n) })
	}
}

func benchmarkSQLiteJobInsert(b *testing.B, jobsPerInsert int) {
	ctx := b.Context()
	path := filepath.Join(b.TempDir(), "shipd.db")
	s, err := store.Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	s.Close()
	db, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=10000&_txlock=immediate&_journal_mode=WAL&_synchronous=NORMAL&_stmt_cache_size=128")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	now := time.Now()
	job := &riverdriver.JobInsertFastParams{ScheduledAt: &now, EncodedArgs: []byte(`{"shipment_id":"shp_0123456789abcdef"}`), Kind: "purchase_label",
		MaxAttempts: 25, Priority: 1, Queue: "purchases", State: rivertype.JobStateAvailable, Tags: []string{}}
	params := &riverdriver.JobInsertFastManyParams{}
	for range jobsPerInsert {
		params.Jobs = append(params.Jobs, job)
	}
	for _, way := range []struct {
		name   string
		insert func(tx *sql.Tx) (int, error)
	}{
		{"river", func(tx *sql.Tx) (int, error) {
			return riversqlite.New(db).UnwrapExecutor(tx).JobInsertFastManyNoReturning(ctx, params)
		}},
		{"store", func(tx *sql.Tx) (int, error) { return store.InsertJobsNativelySQLite(ctx, tx, params) }},
	} {
		b.Run(way.name, func(b *testing.B) {
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer tx.Rollback()
			for b.Loop() {
				if _, err := way.insert(tx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

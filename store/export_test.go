package store

import (
	"context"
	"database/sql"

	"github.com/riverqueue/river/riverdriver"
)

// WaitSwept waits until the sweep of stale temporary files that OpenBlobs
// started on a file:// store has ended.
func (b *Blobs) WaitSwept() {
	if b.swept != nil {
		<-b.swept
	}
}

// StaleTempAge is staleTempAge, for tests.
const StaleTempAge = staleTempAge

// InsertJobsNatively is the store's insert of River jobs on PostgreSQL
// (pgJobExecutorTx), in tx.
func InsertJobsNatively(ctx context.Context, tx *sql.Tx, params *riverdriver.JobInsertFastManyParams) (int, error) {
	return pgJobExecutorTx{tx: tx}.JobInsertFastManyNoReturning(ctx, params)
}

// InsertJobsNativelySQLite is the store's insert of River jobs on SQLite
// (storeTx), in tx.
func InsertJobsNativelySQLite(ctx context.Context, tx *sql.Tx, params *riverdriver.JobInsertFastManyParams) (int, error) {
	return storeTx{tx: tx, inserts: newSQLiteJobInserts()}.JobInsertFastManyNoReturning(ctx, params)
}

package store

import (
	"cmp"
	"context"
	"database/sql"
	"math"
	"strings"
	"time"

	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
)

// River's database/sql driver sends each column of a job insert as lib/pq's
// text form of an array ("{...}"), which pgx's stdlib parses back into an
// array and encodes again: 9% of shipd's CPU in make bench's PostgreSQL
// write phase, for two job inserts per label. pgJobDriver is that driver
// with one difference: in the store's transactions, the fast insert of jobs
// (every job shipd enqueues) is River's own statement with its arrays as Go
// slices, which pgx encodes once, in binary. Anything else goes to River
// unchanged.
type pgJobDriver struct {
	*riverdatabasesql.Driver
}

// UnwrapExecutor is River's executor in a transaction of the store's.
func (d pgJobDriver) UnwrapExecutor(tx *sql.Tx) riverdriver.ExecutorTx {
	return pgJobExecutorTx{ExecutorTx: d.Driver.UnwrapExecutor(tx), tx: tx}
}

type pgJobExecutorTx struct {
	riverdriver.ExecutorTx
	tx *sql.Tx
}

// pgJobInsert is River's JobInsertFastManyNoReturning (riverdatabasesql
// v0.51.1, schema left to the search path), with its enum and jsonb arrays
// cast from text arrays so that pgx encodes every parameter natively.
const pgJobInsert = `INSERT INTO river_job(
    args, created_at, kind, max_attempts, metadata, priority, queue, scheduled_at, state, tags, unique_key, unique_states
) SELECT
    unnest($1::text[])::jsonb,
    unnest($2::timestamptz[]),
    unnest($3::text[]),
    unnest($4::smallint[]),
    unnest($5::text[])::jsonb,
    unnest($6::smallint[]),
    unnest($7::text[]),
    unnest($8::timestamptz[]),
    unnest($9::text[])::river_job_state,
    string_to_array(unnest($10::text[]), ','),
    nullif(unnest($11::bytea[]), ''),
    nullif(unnest($12::integer[]), 0)::bit(8)
ON CONFLICT (unique_key)
    WHERE unique_key IS NOT NULL
        AND unique_states IS NOT NULL
        AND river_job_state_in_bitmask(unique_states, state)
DO NOTHING`

func (e pgJobExecutorTx) JobInsertFastManyNoReturning(ctx context.Context, params *riverdriver.JobInsertFastManyParams) (int, error) {
	if params.Schema != "" {
		return e.ExecutorTx.JobInsertFastManyNoReturning(ctx, params)
	}
	n := len(params.Jobs)
	var (
		args, kinds, metadata, queues, states, tags = make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		createdAt, scheduledAt                      = make([]time.Time, n), make([]time.Time, n)
		maxAttempts, priorities                     = make([]int16, n), make([]int16, n)
		uniqueKeys                                  = make([][]byte, n)
		uniqueStates                                = make([]int32, n)
	)
	now := time.Now().UTC()
	for i, j := range params.Jobs {
		createdAt[i], scheduledAt[i] = now, now
		if j.CreatedAt != nil {
			createdAt[i] = *j.CreatedAt
		}
		if j.ScheduledAt != nil {
			scheduledAt[i] = *j.ScheduledAt
		}
		args[i] = cmp.Or(string(j.EncodedArgs), "{}")
		kinds[i] = j.Kind
		maxAttempts[i] = int16(min(j.MaxAttempts, math.MaxInt16)) //nolint:gosec // bounded above
		metadata[i] = cmp.Or(string(j.Metadata), "{}")
		priorities[i] = int16(min(j.Priority, math.MaxInt16)) //nolint:gosec // bounded above
		queues[i] = j.Queue
		states[i] = string(j.State)
		tags[i] = strings.Join(j.Tags, ",")
		uniqueKeys[i] = j.UniqueKey
		uniqueStates[i] = int32(j.UniqueStates)
	}
	res, err := e.tx.ExecContext(ctx, pgJobInsert, args, createdAt, kinds, maxAttempts, metadata, priorities, queues, scheduledAt,
		states, tags, uniqueKeys, uniqueStates)
	if err != nil {
		return 0, err
	}
	inserted, err := res.RowsAffected()
	return int(inserted), err
}

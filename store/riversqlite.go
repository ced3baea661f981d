package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivertype"
)

// River's SQLite driver records each finished job with a statement of its
// own: an UPDATE of one row that re-checks, per row, whether a cancellation
// was asked for, may merge metadata and append an error, and returns the
// whole row converted from JSONB. Completing a batch of successful jobs does
// none of that, yet it cost about 190 µs of the single writer per job: a
// fifth of the CPU of a webhook fan-out, a tenth of a burst of purchases.
//
// completingDriver is riversqlite's driver with one difference: a batch in
// which every job simply completed (no error, no metadata, no new schedule)
// is recorded by one UPDATE for the whole batch, and the rows River hands to
// its subscribers are read back by River's own JobGetByIDMany. A job of the
// batch that was no longer running (cancelled meanwhile, say) is left to
// River's statement, in the same transaction, which decides what happens to
// it exactly as before. Anything else goes to River unchanged.
//
// It also carries River's notifications in process instead of through the
// database (see localNotifier), and counts the job fetches (JobFetches).
type completingDriver struct {
	*riversqlite.Driver
	db    *sql.DB
	notes *localNotifier
	// fetches counts JobGetAvailable calls: how often workers looked for jobs.
	fetches atomic.Int64
	inserts *sqliteJobInserts
}

func newCompletingDriver(db *sql.DB) *completingDriver {
	return &completingDriver{Driver: riversqlite.New(db), db: db, notes: newLocalNotifier(), inserts: newSQLiteJobInserts()}
}

// GetExecutor is River's executor with batched completions and in-process
// notifications.
func (d *completingDriver) GetExecutor() riverdriver.Executor {
	return &completingExecutor{Executor: d.Driver.GetExecutor(), d: d}
}

// GetListener hears the notifications of this process's River clients.
func (d *completingDriver) GetListener(params *riverdriver.GetListenenerParams) riverdriver.Listener {
	return &localListener{n: d.notes, schema: params.Schema}
}

// UnwrapExecutor is River's executor in a transaction of the store's, which
// the store commits: River's insert notifications there are dropped, because
// the store wakes the queues of the jobs its transactions inserted once they
// commit (Tx.wake), for every job, where River sends one per queue and
// 100 ms at most. River sends nothing else in a caller's transaction that
// shipd uses; anything else fails loudly rather than being lost.
func (d *completingDriver) UnwrapExecutor(tx *sql.Tx) riverdriver.ExecutorTx {
	return storeTx{ExecutorTx: d.Driver.UnwrapExecutor(tx), tx: tx, inserts: d.inserts}
}

type storeTx struct {
	riverdriver.ExecutorTx
	tx      *sql.Tx
	inserts *sqliteJobInserts
}

// River's SQLite driver inserts jobs with one statement that takes them all
// as one JSON array and reads each column with json_extract, which parses a
// job's JSON again for each of its twelve columns, after encoding the jobs
// to JSON in Go: about 38 µs for one job, 190 µs for ten
// (BenchmarkSQLiteJobInsert), 6% of the CPU of a label on SQLite.
// sqliteJobInserts is that statement (riversqlite v0.51.1, schema left to
// the search path) with the jobs' columns bound as parameters, one VALUES
// row per job: 11 µs for one job. The values and their conversions are
// River's, so the rows are the ones River writes
// (TestSQLiteJobInsertIsRivers).
//
// A batch is inserted in chunks of 16, 8, 4, 2 and 1 rows, so that five
// statements, each kept prepared by the connection, serve any batch.
type sqliteJobInserts [5]string

const sqliteJobColumns = `INSERT INTO river_job(
    args, created_at, kind, max_attempts, metadata, priority, queue, scheduled_at, state, tags, unique_key, unique_states
) VALUES `

const sqliteJobRow = `(jsonb(?), coalesce(?, datetime('now', 'subsec')), ?, ?, jsonb(?), ?, ?, coalesce(?, datetime('now', 'subsec')), ?, jsonb(?), ?, ?)`

const sqliteJobConflict = `
ON CONFLICT (unique_key)
    WHERE unique_key IS NOT NULL
        AND unique_states IS NOT NULL
        AND CASE state
                WHEN 'available' THEN unique_states & (1 << 0)
                WHEN 'cancelled' THEN unique_states & (1 << 1)
                WHEN 'completed' THEN unique_states & (1 << 2)
                WHEN 'discarded' THEN unique_states & (1 << 3)
                WHEN 'pending'   THEN unique_states & (1 << 4)
                WHEN 'retryable' THEN unique_states & (1 << 5)
                WHEN 'running'   THEN unique_states & (1 << 6)
                WHEN 'scheduled' THEN unique_states & (1 << 7)
                ELSE 0
            END >= 1
DO NOTHING`

// newSQLiteJobInserts builds the statements: element i inserts 1<<i rows.
func newSQLiteJobInserts() *sqliteJobInserts {
	var st sqliteJobInserts
	for i := range st {
		rows := make([]string, 1<<i)
		for r := range rows {
			rows[r] = sqliteJobRow
		}
		st[i] = sqliteJobColumns + strings.Join(rows, ",\n    ") + sqliteJobConflict
	}
	return &st
}

// JobInsertFastManyNoReturning inserts the jobs by sqliteJobInserts, in the
// store's transaction.
func (e storeTx) JobInsertFastManyNoReturning(ctx context.Context, params *riverdriver.JobInsertFastManyParams) (int, error) {
	if params.Schema != "" {
		return e.ExecutorTx.JobInsertFastManyNoReturning(ctx, params)
	}
	inserted := 0
	args := make([]any, 0, 12*min(len(params.Jobs), 1<<(len(e.inserts)-1)))
	for jobs := params.Jobs; len(jobs) > 0; {
		size := len(e.inserts) - 1
		for 1<<size > len(jobs) {
			size--
		}
		args = args[:0]
		for _, j := range jobs[:1<<size] {
			var err error
			if args, err = appendSQLiteJob(args, j); err != nil {
				return inserted, err
			}
		}
		jobs = jobs[1<<size:]
		res, err := e.tx.ExecContext(ctx, e.inserts[size], args...)
		if err != nil {
			return inserted, err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return inserted, err
		}
		inserted += int(n)
	}
	return inserted, nil
}

// appendSQLiteJob appends j's columns as River's statement reads them from
// its JSON: a time absent is NULL (the database's now), a JSON null (nil
// tags) is SQL's NULL, an empty unique key is NULL, unique states 0 are NULL.
func appendSQLiteJob(args []any, j *riverdriver.JobInsertFastParams) ([]any, error) {
	var createdAt, scheduledAt, tags, uniqueKey, uniqueStates any
	if j.CreatedAt != nil {
		createdAt = sqliteTime(*j.CreatedAt)
	}
	if j.ScheduledAt != nil {
		scheduledAt = sqliteTime(*j.ScheduledAt)
	}
	if j.Tags != nil {
		encoded, err := json.Marshal(j.Tags)
		if err != nil {
			return args, fmt.Errorf("encode job tags: %w", err)
		}
		tags = string(encoded)
	}
	if len(j.UniqueKey) > 0 {
		uniqueKey = j.UniqueKey
	}
	if j.UniqueStates != 0 {
		uniqueStates = int64(j.UniqueStates)
	}
	metadata := string(j.Metadata)
	if metadata == "" {
		metadata = "{}"
	}
	// JSON as text, not a blob: jsonb() reads a blob as JSONB already encoded.
	return append(args, string(j.EncodedArgs), createdAt, j.Kind, int64(j.MaxAttempts), metadata, int64(j.Priority), j.Queue,
		scheduledAt, string(j.State), tags, uniqueKey, uniqueStates), nil
}

type completingExecutor struct {
	riverdriver.Executor
	d *completingDriver
}

// Begin is River's transaction, which keeps its notifications until it commits.
func (e *completingExecutor) Begin(ctx context.Context) (riverdriver.ExecutorTx, error) {
	tx, err := e.Executor.Begin(ctx)
	if err != nil {
		return nil, err
	}
	return &notifyingTx{ExecutorTx: tx, n: e.d.notes}, nil
}

// NotifyMany outside a transaction: delivered at once.
func (e *completingExecutor) NotifyMany(_ context.Context, params *riverdriver.NotifyManyParams) error {
	e.d.notes.publish(params.Topic, params.Payload)
	return nil
}

func (e *completingExecutor) JobGetAvailable(ctx context.Context, params *riverdriver.JobGetAvailableParams) (*riverdriver.JobGetAvailableResult, error) {
	e.d.fetches.Add(1)
	return e.Executor.JobGetAvailable(ctx, params)
}

// sqliteTime is how River's SQLite driver writes a time: compared as text,
// so it must be exactly this format.
func sqliteTime(t time.Time) string {
	return t.UTC().Round(time.Millisecond).Format("2006-01-02 15:04:05.000")
}

// onlyCompletions reports whether every job of params simply completed.
func onlyCompletions(p *riverdriver.JobSetStateIfRunningManyParams) bool {
	if p.Schema != "" {
		return false
	}
	for i := range p.ID {
		if p.State[i] != rivertype.JobStateCompleted || p.Attempt[i] != nil || p.ErrData[i] != nil ||
			p.MetadataDoMerge[i] || p.ScheduledAt[i] != nil || p.FinalizedAt[i] == nil {
			return false
		}
	}
	return len(p.ID) > 0
}

func (e *completingExecutor) JobSetStateIfRunningMany(ctx context.Context, params *riverdriver.JobSetStateIfRunningManyParams) ([]*rivertype.JobRow, error) {
	if !onlyCompletions(params) {
		return e.Executor.JobSetStateIfRunningMany(ctx, params)
	}
	batch := make([][2]any, len(params.ID))
	for i, id := range params.ID {
		batch[i] = [2]any{id, sqliteTime(*params.FinalizedAt[i])}
	}
	encoded, err := json.Marshal(batch)
	if err != nil {
		return nil, err
	}
	tx, err := e.d.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("complete jobs: %w", err)
	}
	defer tx.Rollback()
	// The batch is materialized first, so that the plan walks it and finds
	// each job by id; joined as a subquery, SQLite walked the running jobs
	// and parsed the whole batch again for each.
	rows, err := tx.QueryContext(ctx, `WITH done (job_id, at) AS MATERIALIZED (
			SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?))
		UPDATE river_job SET state = 'completed', finalized_at = done.at FROM done
		WHERE river_job.id = done.job_id AND river_job.state = 'running'
		RETURNING river_job.id`, string(encoded))
	if err != nil {
		return nil, fmt.Errorf("complete jobs: %w", err)
	}
	completed := make(map[int64]bool, len(params.ID))
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, fmt.Errorf("complete jobs: %w", err)
		}
		completed[id] = true
	}
	if err := rows.Close(); err != nil {
		return nil, fmt.Errorf("complete jobs: %w", err)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("complete jobs: %w", err)
	}

	exec := e.d.Driver.UnwrapExecutor(tx)
	var out []*rivertype.JobRow
	if len(completed) > 0 {
		ids := make([]int64, 0, len(completed))
		for _, id := range params.ID {
			if completed[id] {
				ids = append(ids, id)
			}
		}
		if out, err = exec.JobGetByIDMany(ctx, &riverdriver.JobGetByIDManyParams{ID: ids}); err != nil {
			return nil, err
		}
	}
	if rest := notIn(params, completed); len(rest.ID) > 0 {
		more, err := exec.JobSetStateIfRunningMany(ctx, rest)
		if err != nil {
			return nil, err
		}
		out = append(out, more...)
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("complete jobs: %w", err)
	}
	return out, nil
}

// notIn is params without the jobs in skip.
func notIn(p *riverdriver.JobSetStateIfRunningManyParams, skip map[int64]bool) *riverdriver.JobSetStateIfRunningManyParams {
	rest := &riverdriver.JobSetStateIfRunningManyParams{Schema: p.Schema}
	for i, id := range p.ID {
		if skip[id] {
			continue
		}
		rest.ID = append(rest.ID, id)
		rest.Attempt = append(rest.Attempt, p.Attempt[i])
		rest.ErrData = append(rest.ErrData, p.ErrData[i])
		rest.FinalizedAt = append(rest.FinalizedAt, p.FinalizedAt[i])
		rest.MetadataDoMerge = append(rest.MetadataDoMerge, p.MetadataDoMerge[i])
		rest.MetadataUpdates = append(rest.MetadataUpdates, p.MetadataUpdates[i])
		rest.ScheduledAt = append(rest.ScheduledAt, p.ScheduledAt[i])
		rest.State = append(rest.State, p.State[i])
	}
	return rest
}

// River's SQLite driver delivers notifications (a job was inserted in a
// queue, a queue was paused, a leader resigned) through a table: NotifyMany
// inserts rows in the writer's transaction, and every client polls the table
// every 50 ms. On a SQLite database served by one process (ServerLock) the
// only listeners are in that process, so localNotifier hands them over in
// memory: nothing written, nothing polled, and delivered at the commit of
// the transaction that sent them, not up to 50 ms later. A job inserted by
// another process (the CLI) is found by the workers' fetch poll instead.
type localNotifier struct {
	mu        sync.Mutex
	listeners map[*localListener]struct{}
}

// insertTopic is River's topic for "jobs were inserted in a queue"
// (notifier.NotificationTopicInsert, internal to River), whose payload names
// the queue; a producer fetches at once when it hears its queue.
const insertTopic = "river_insert"

func newLocalNotifier() *localNotifier {
	return &localNotifier{listeners: map[*localListener]struct{}{}}
}

func (n *localNotifier) publish(topic string, payloads []string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for l := range n.listeners {
		l.deliver(topic, payloads)
	}
}

// wake tells the workers of queues that jobs are due there.
func (n *localNotifier) wake(queues ...string) {
	payloads := make([]string, len(queues))
	for i, q := range queues {
		b, _ := json.Marshal(struct {
			Queue string `json:"queue"`
		}{q})
		payloads[i] = string(b)
	}
	n.publish(insertTopic, payloads)
}

// localListener is one River notifier's listener on a localNotifier.
type localListener struct {
	n      *localNotifier
	schema string

	mu     sync.Mutex
	topics map[string]bool
	ch     chan *riverdriver.Notification
}

func (l *localListener) Connect(context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ch != nil {
		return errors.New("connection already established")
	}
	// River's notifier buffers 1,000 too and drops beyond; a dropped
	// insert notification costs a job at most one fetch poll.
	l.ch = make(chan *riverdriver.Notification, 1000)
	l.topics = map[string]bool{}
	l.n.mu.Lock()
	l.n.listeners[l] = struct{}{}
	l.n.mu.Unlock()
	return nil
}

func (l *localListener) Close(context.Context) error {
	l.n.mu.Lock()
	delete(l.n.listeners, l)
	l.n.mu.Unlock()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ch, l.topics = nil, nil
	return nil
}

func (l *localListener) Listen(_ context.Context, topic string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ch == nil {
		return errors.New("listener is not connected")
	}
	l.topics[topic] = true
	return nil
}

func (l *localListener) Unlisten(_ context.Context, topic string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ch == nil {
		return errors.New("listener is not connected")
	}
	delete(l.topics, topic)
	return nil
}

func (l *localListener) Ping(context.Context) error { return nil }
func (l *localListener) Schema() string             { return l.schema }
func (l *localListener) SetAfterConnectExec(string) {}

func (l *localListener) WaitForNotification(ctx context.Context) (*riverdriver.Notification, error) {
	l.mu.Lock()
	ch := l.ch
	l.mu.Unlock()
	if ch == nil {
		return nil, errors.New("listener is not connected")
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case n := <-ch:
		return n, nil
	}
}

// deliver is called under the notifier's lock, never blocks.
func (l *localListener) deliver(topic string, payloads []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.topics[topic] {
		return
	}
	for _, p := range payloads {
		select {
		case l.ch <- &riverdriver.Notification{Topic: topic, Payload: p}:
		default:
		}
	}
}

// notifyingTx is a transaction River began: its notifications are delivered
// when it commits, as PostgreSQL delivers a NOTIFY, and dropped if it rolls
// back. A nested one (a savepoint) hands them to its parent.
type notifyingTx struct {
	riverdriver.ExecutorTx
	n       *localNotifier
	parent  *notifyingTx
	pending []riverdriver.NotifyManyParams
}

func (t *notifyingTx) NotifyMany(_ context.Context, params *riverdriver.NotifyManyParams) error {
	t.pending = append(t.pending, riverdriver.NotifyManyParams{Topic: params.Topic, Payload: append([]string(nil), params.Payload...)})
	return nil
}

func (t *notifyingTx) Begin(ctx context.Context) (riverdriver.ExecutorTx, error) {
	tx, err := t.ExecutorTx.Begin(ctx)
	if err != nil {
		return nil, err
	}
	return &notifyingTx{ExecutorTx: tx, n: t.n, parent: t}, nil
}

func (t *notifyingTx) Commit(ctx context.Context) error {
	if err := t.ExecutorTx.Commit(ctx); err != nil {
		return err
	}
	if t.parent != nil {
		t.parent.pending = append(t.parent.pending, t.pending...)
	} else {
		for _, p := range t.pending {
			t.n.publish(p.Topic, p.Payload)
		}
	}
	t.pending = nil
	return nil
}

func (t *notifyingTx) Rollback(ctx context.Context) error {
	t.pending = nil
	return t.ExecutorTx.Rollback(ctx)
}

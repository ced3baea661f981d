package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// Enqueue inserts jobs in the transaction, so they exist exactly when the
// change they belong to commits. Jobs with unique options that already exist
// are skipped.
func (t *Tx) Enqueue(ctx context.Context, jobs ...river.InsertManyParams) error {
	if len(jobs) == 0 {
		return nil
	}
	if _, err := t.jobs.InsertManyTx(t.wakeContext(ctx), t.tx.Tx, jobs); err != nil {
		return fmt.Errorf("enqueue: %w", err)
	}
	return nil
}

// EnqueueNew inserts jobs that cannot collide with existing ones (no unique
// options, or a key never used before) without reading anything back: the
// cheapest insert, for the hot path of accepting a purchase.
//
// In a group commit on SQLite the jobs of every transaction of the group are
// inserted together just before the commit, as one statement: a River insert
// costs about half as much per job that way. The jobs of a transaction that
// fails are dropped with its other writes; if the shared insert fails, no
// transaction of the group commits, as when the commit itself fails.
func (t *Tx) EnqueueNew(ctx context.Context, jobs ...river.InsertManyParams) error {
	if len(jobs) == 0 {
		return nil
	}
	if t.deferNew {
		t.newJobs = append(t.newJobs, jobs...)
		for range jobs {
			t.newJobCtxs = append(t.newJobCtxs, ctx)
		}
		return nil
	}
	return t.insertNew(ctx, jobs)
}

// dropNewJobs forgets the deferred jobs from index from on: their
// transaction failed.
func (t *Tx) dropNewJobs(from int) {
	clear(t.newJobs[from:])
	clear(t.newJobCtxs[from:])
	t.newJobs, t.newJobCtxs = t.newJobs[:from], t.newJobCtxs[:from]
}

// insertDeferred inserts the deferred jobs of a group commit, each with the
// context that enqueued it at hand for the insert middleware (EnqueuerContext).
func (t *Tx) insertDeferred() error {
	if len(t.newJobs) == 0 {
		return nil
	}
	return t.insertNew(context.WithValue(context.Background(), enqueuersKey{}, t.newJobCtxs), t.newJobs)
}

type enqueuersKey struct{}

// EnqueuerContext is the context that enqueued the i-th job of an insert, for
// an insert middleware that reads one (a trace, say): a group commit inserts
// the jobs of many transactions at once, under a context of its own.
// Otherwise it is ctx.
func EnqueuerContext(ctx context.Context, i int) context.Context {
	if ctxs, ok := ctx.Value(enqueuersKey{}).([]context.Context); ok && i < len(ctxs) {
		return ctxs[i]
	}
	return ctx
}

func (t *Tx) insertNew(ctx context.Context, jobs []river.InsertManyParams) error {
	if _, err := t.jobs.InsertManyFastTx(t.wakeContext(ctx), t.tx.Tx, jobs); err != nil {
		return fmt.Errorf("enqueue: %w", err)
	}
	return nil
}

// jobWake is what the workers must be told once a transaction that inserted
// jobs commits: on SQLite, where this process holds the database
// (ServerLock), they learn of new jobs only so (localNotifier) and otherwise
// poll for them but rarely (a second, by default).
type jobWake struct {
	// due are the queues with jobs due now.
	due map[string]struct{}
	// later are the times at which jobs inserted as available but due in
	// the future (dueWithoutScheduler) become due, per queue; rounded up to
	// wakeGrain, so that many jobs due at about the same time share a timer.
	later map[wakeAt]struct{}
}

type wakeAt struct {
	queue string
	at    time.Time
}

// wakeGrain: jobs due within this of each other wake their queue together.
const wakeGrain = 10 * time.Millisecond

type jobWakeKey struct{}

// wakeContext carries the transaction's jobWake to dueWithoutScheduler,
// which sees every job as River will insert it (queue, state, time).
func (t *Tx) wakeContext(ctx context.Context) context.Context {
	if t.notes == nil {
		return ctx // PostgreSQL: River's NOTIFY wakes every instance
	}
	return context.WithValue(ctx, jobWakeKey{}, &t.wake)
}

func (w *jobWake) add(p *rivertype.JobInsertParams, now time.Time) {
	if p.ScheduledAt == nil || !p.ScheduledAt.After(now) {
		if w.due == nil {
			w.due = map[string]struct{}{}
		}
		w.due[p.Queue] = struct{}{}
		return
	}
	if w.later == nil {
		w.later = map[wakeAt]struct{}{}
	}
	at := p.ScheduledAt.Add(wakeGrain - 1).Truncate(wakeGrain)
	w.later[wakeAt{p.Queue, at}] = struct{}{}
}

// wakeWorkers tells this process's workers of the jobs a transaction
// committed: at once for the jobs due now, and by a timer for the ones that
// become due within dueHorizon, which River would otherwise find only at
// its next fetch poll.
func (t *Tx) wakeWorkers() {
	if t.notes == nil {
		return
	}
	if len(t.wake.due) > 0 {
		queues := make([]string, 0, len(t.wake.due))
		for q := range t.wake.due {
			queues = append(queues, q)
		}
		t.notes.wake(queues...)
	}
	for w := range t.wake.later {
		notes, queue := t.notes, w.queue
		time.AfterFunc(time.Until(w.at), func() { notes.wake(queue) })
	}
	t.wake = jobWake{}
}

// JobClient returns a River client on this database with cfg (workers,
// queues, polling); the caller starts and stops it. Future jobs are inserted
// as due at their scheduled time (see dueWithoutScheduler).
func (s *Store) JobClient(cfg *river.Config) (*river.Client[*sql.Tx], error) {
	c := *cfg
	c.Middleware = append(s.jobMiddleware(), c.Middleware...)
	return river.NewClient(s.driver, &c)
}

// JobFetches counts the times this process's job workers looked for due jobs
// in a SQLite database (0 on PostgreSQL): each is a write transaction, so an
// idle server should make few.
func (s *Store) JobFetches() int64 {
	if s.sqliteDriver == nil {
		return 0
	}
	return s.sqliteDriver.fetches.Load()
}

// ReclaimOrphanedJobs makes jobs that a dead process left running available
// again. Only the holder of the ServerLock may call it: with one server per
// database, a job running at start has no worker alive.
func (s *Store) ReclaimOrphanedJobs(ctx context.Context, _ *ServerLock) (int64, error) {
	if s.dialect != sqliteDialect {
		// Instances share a PostgreSQL database: a running job may belong to
		// a live instance. River's rescuer retries the ones whose instance died.
		return 0, errors.New("reclaim jobs: only a SQLite database has one server")
	}
	res, err := s.w.ExecContext(ctx, `UPDATE river_job SET state = 'available', scheduled_at = datetime('now', 'subsec') WHERE state = 'running'`)
	if err != nil {
		return 0, fmt.Errorf("reclaim jobs: %w", err)
	}
	return res.RowsAffected()
}

// dueHorizon is how far ahead a job may be due and still be inserted as
// available (see dueWithoutScheduler).
const dueHorizon = 30 * time.Second

// dueWithoutScheduler inserts jobs due within dueHorizon as available with
// their scheduled_at instead of as scheduled. River's fetch already waits for
// scheduled_at, but it promotes scheduled jobs only every 5 s, a fixed
// interval far coarser than a sandbox tracking scan or a purchase retry needs;
// this way such a job starts within one poll interval.
//
// Jobs due later stay scheduled, for River's scheduler: every poll of a queue
// walks all of its available jobs that are not yet due (River's fetch ranges
// over priority before scheduled_at), so a tracking poll due in an hour for
// each shipment in transit would make every poll, fifty a second, read them
// all. Five seconds late on a job an hour away is nothing.
//
// On SQLite it also notes in the transaction's jobWake (wakeContext) the
// queues and times at which to wake the workers once it commits.
func dueWithoutScheduler(ctx context.Context, params []*rivertype.JobInsertParams, doInner func(context.Context) ([]*rivertype.JobInsertResult, error)) ([]*rivertype.JobInsertResult, error) {
	now := time.Now()
	soon := now.Add(dueHorizon)
	wake, _ := ctx.Value(jobWakeKey{}).(*jobWake)
	for _, p := range params {
		if p.State == rivertype.JobStateScheduled && p.ScheduledAt != nil && p.ScheduledAt.Before(soon) {
			p.State = rivertype.JobStateAvailable
		}
		if wake != nil && p.State == rivertype.JobStateAvailable {
			wake.add(p, now)
		}
	}
	return doInner(ctx)
}

// DueJobs counts the work of queue's jobs that are due and wait for a worker
// (neither running nor scheduled for later): a job counts once, or once per
// id of its args' shipment_ids when it has them (a job buying several
// labels). It is the backlog a bound on accepted work looks at; River's fetch
// index (state, queue, priority, scheduled_at) serves it.
func (r reader) DueJobs(ctx context.Context, queue string) (int, error) {
	now := "now()"
	typ, length := "jsonb_typeof(args->'shipment_ids')", "jsonb_array_length(args->'shipment_ids')"
	if r.d == sqliteDialect {
		now = "datetime('now', 'subsec')" // how River's SQLite driver writes times
		typ, length = "json_type(args, '$.shipment_ids')", "json_array_length(args, '$.shipment_ids')"
	}
	// Nested, not AND: PostgreSQL does not promise to stop at a false AND,
	// and the length of anything but an array is an error there.
	work := `CASE WHEN ` + typ + ` = 'array' THEN CASE WHEN ` + length + ` > 0 THEN ` + length + ` ELSE 1 END ELSE 1 END`
	var n int
	err := r.get(ctx, &n, `SELECT coalesce(sum(`+work+`), 0) FROM river_job
		WHERE state = 'available' AND queue = ? AND scheduled_at <= `+now, queue)
	if err != nil {
		return 0, fmt.Errorf("count due jobs: %w", err)
	}
	return n, nil
}

// JobQueueStat is one (queue, kind, state) of the jobs not yet finished.
type JobQueueStat struct {
	Queue, Kind string
	// State is River's, except that a job available but scheduled for later
	// (see dueWithoutScheduler) counts as scheduled: available means due.
	State string
	Count int64
	// OldestAgeSeconds is, for available jobs, how long the one waiting
	// longest has been due; 0 for the other states.
	OldestAgeSeconds float64
}

// JobQueueStats counts the unfinished jobs per queue, kind and state, and
// measures how long the oldest due job has waited. It reads River's fetch
// index (state, queue, priority, scheduled_at) over the unfinished states
// only, so the finished jobs kept for a while do not slow it down.
func (r reader) JobQueueStats(ctx context.Context) ([]JobQueueStat, error) {
	now, age, state := "now()", "EXTRACT(EPOCH FROM (now() - scheduled_at))::float8", "state::text"
	if r.d == sqliteDialect {
		now = "datetime('now', 'subsec')" // how River's SQLite driver writes times
		age = "(julianday('now') - julianday(scheduled_at)) * 86400.0"
		state = "state"
	}
	due := "state = 'available' AND scheduled_at <= " + now
	var rows []struct {
		Queue  string  `db:"queue"`
		Kind   string  `db:"kind"`
		State  string  `db:"st"`
		Count  int64   `db:"n"`
		Oldest float64 `db:"oldest"`
	}
	err := r.sel(ctx, &rows, `SELECT queue, kind,
		CASE WHEN state = 'available' AND NOT (`+due+`) THEN 'scheduled' ELSE `+state+` END AS st,
		count(*) AS n,
		COALESCE(MAX(CASE WHEN `+due+` THEN `+age+` END), 0) AS oldest
		FROM river_job WHERE state IN ('available', 'scheduled', 'retryable', 'running', 'pending')
		GROUP BY queue, kind, st`)
	if err != nil {
		return nil, fmt.Errorf("job queue stats: %w", err)
	}
	out := make([]JobQueueStat, len(rows))
	for i, row := range rows {
		out[i] = JobQueueStat{Queue: row.Queue, Kind: row.Kind, State: row.State, Count: row.Count, OldestAgeSeconds: max(row.Oldest, 0)}
	}
	return out, nil
}

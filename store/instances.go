package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
)

// Instances share a PostgreSQL database. Each writes its heartbeat (a row
// per node id) every second or so; when one's heartbeat is stale by a bound,
// a survivor takes back the jobs River says it was running, at once instead
// of after River's rescuer's much longer wait. Every time here is the
// database's: instances' clocks need not agree.

// ErrOneServer is returned by the instance methods that only make sense
// when several instances share the database (PostgreSQL).
var ErrOneServer = errors.New("a SQLite database has one server")

// Heartbeat records that node is alive now. A heartbeat that follows the
// previous one by more than gap starts a new run (alive_since): the
// instance, or the database, was away, and its view of the others is not
// to be trusted until it has watched them for a whole bound again.
func (s *Store) Heartbeat(ctx context.Context, node string, gap time.Duration) error {
	q := `INSERT INTO instances (node_id, seen_at, alive_since) VALUES (?, now(), now())
		ON CONFLICT (node_id) DO UPDATE SET
			alive_since = CASE WHEN instances.seen_at < now() - make_interval(secs => ?::float8)
				THEN now() ELSE instances.alive_since END,
			seen_at = now()`
	if s.dialect == sqliteDialect {
		q = `INSERT INTO instances (node_id, seen_at, alive_since) VALUES (?, datetime('now', 'subsec'), datetime('now', 'subsec'))
		ON CONFLICT (node_id) DO UPDATE SET
			alive_since = CASE WHEN instances.seen_at < datetime('now', 'subsec', printf('-%f seconds', ?))
				THEN datetime('now', 'subsec') ELSE instances.alive_since END,
			seen_at = datetime('now', 'subsec')`
	}
	if _, err := s.w.ExecContext(ctx, s.w.Rebind(q), node, gap.Seconds()); err != nil {
		return fmt.Errorf("heartbeat: %w", err)
	}
	return nil
}

// Leave marks node's heartbeat as long stale: a clean shutdown says it is
// gone rather than let the others wait for its heartbeat to go stale. The
// row stays, so that a job it could not hand back is reclaimed at once.
func (s *Store) Leave(ctx context.Context, node string) error {
	q := `UPDATE instances SET seen_at = 'epoch' WHERE node_id = ?`
	if s.dialect == sqliteDialect {
		q = `UPDATE instances SET seen_at = '1970-01-01 00:00:00' WHERE node_id = ?`
	}
	if _, err := s.w.ExecContext(ctx, s.w.Rebind(q), node); err != nil {
		return fmt.Errorf("leave: %w", err)
	}
	return nil
}

// LiveInstances names the instances whose last heartbeat is more recent
// than deadAfter, sorted.
func (r reader) LiveInstances(ctx context.Context, deadAfter time.Duration) ([]string, error) {
	q := `SELECT node_id FROM instances WHERE seen_at >= now() - make_interval(secs => ?::float8) ORDER BY node_id`
	if r.d == sqliteDialect {
		q = `SELECT node_id FROM instances WHERE seen_at >= datetime('now', 'subsec', printf('-%f seconds', ?)) ORDER BY node_id`
	}
	nodes := []string{}
	if err := r.sel(ctx, &nodes, q, deadAfter.Seconds()); err != nil {
		return nil, fmt.Errorf("live instances: %w", err)
	}
	return nodes, nil
}

// ReclaimedJob is a job taken back from an instance.
type ReclaimedJob struct {
	ID   int64  `db:"id"`
	Kind string `db:"kind"`
	Node string `db:"node"` // the instance that was running it
}

// ReclaimFromDeadInstances makes available, due now, every job running on
// an instance (the last client in River's attempted_by) whose heartbeat is
// older than deadAfter, on behalf of self, and returns them.
//
// It is one guarded UPDATE: a job is taken back only while it is still
// running on the dead instance, so two survivors never both take the same
// job (the second one's UPDATE waits for the first one's row lock, then
// finds the job no longer running). And self reclaims only if its own
// heartbeats have run unbroken for at least deadAfter: it has watched the
// other stay silent for the whole bound while the database was there. After
// the database was away, every heartbeat is stale, and every instance's run
// starts again with its next heartbeat, so nobody declares the others dead.
// An instance with no heartbeat row at all (an older shipd) is left to
// River's rescuer.
func (s *Store) ReclaimFromDeadInstances(ctx context.Context, self string, deadAfter time.Duration) ([]ReclaimedJob, error) {
	if s.dialect == sqliteDialect {
		return nil, fmt.Errorf("reclaim jobs: %w", ErrOneServer)
	}
	var jobs []ReclaimedJob
	err := sqlx.SelectContext(ctx, s.w, &jobs, `UPDATE river_job SET state = 'available', scheduled_at = now()
		WHERE state = 'running'
		AND attempted_by[cardinality(attempted_by)] IN (
			SELECT node_id FROM instances WHERE node_id <> $1 AND seen_at < now() - make_interval(secs => $2::float8))
		AND EXISTS (SELECT 1 FROM instances WHERE node_id = $1
			AND seen_at >= now() - make_interval(secs => $2::float8)
			AND alive_since <= now() - make_interval(secs => $2::float8))
		RETURNING id, kind, attempted_by[cardinality(attempted_by)] AS node`, self, deadAfter.Seconds())
	if err != nil {
		return nil, fmt.Errorf("reclaim jobs: %w", err)
	}
	return jobs, nil
}

// HandBackJobs makes available, due now, those of ids that node's attempt
// left unfinished: still running, or waiting for a retry after the attempt
// was cut off (River writes a retry due soon as available with a later
// scheduled_at). A stopping instance calls it once its job client has stopped
// (nothing of node runs any more), so that another instance runs them at
// once instead of after River's rescuer or the retry's backoff.
func (s *Store) HandBackJobs(ctx context.Context, node string, ids []int64) (int64, error) {
	if s.dialect == sqliteDialect {
		return 0, fmt.Errorf("hand back jobs: %w", ErrOneServer)
	}
	if len(ids) == 0 {
		return 0, nil
	}
	res, err := s.w.ExecContext(ctx, `UPDATE river_job SET state = 'available', scheduled_at = now()
		WHERE id = ANY($2::bigint[]) AND state IN ('running', 'retryable', 'available')
		AND attempted_by[cardinality(attempted_by)] = $1`, node, ids)
	if err != nil {
		return 0, fmt.Errorf("hand back jobs: %w", err)
	}
	return res.RowsAffected()
}

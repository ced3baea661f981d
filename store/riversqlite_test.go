package store

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivertype"
)

type completionArgs struct {
	N int `json:"n"`
}

func (completionArgs) Kind() string { return "completion_test" }

// completingDriver records a batch of completed jobs with one statement: the
// jobs, and the rows returned for River's subscribers, are exactly what
// River's own driver makes of the same batch, including for a job of the
// batch that was no longer running.
func TestBatchedCompletionsAreRiversCompletions(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "shipd.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })

	// Two identical sets of jobs: three running, and one cancelled while it
	// ran (no longer running when its completion is recorded).
	newSet := func() []int64 {
		var ids []int64
		for n := range 4 {
			err := s.Tx(ctx, func(tx *Tx) error {
				return tx.Enqueue(ctx, river.InsertManyParams{Args: completionArgs{N: n}})
			})
			if err != nil {
				t.Fatal(err)
			}
			var id int64
			if err := s.w.GetContext(ctx, &id, `SELECT max(id) FROM river_job`); err != nil {
				t.Fatal(err)
			}
			state := "running"
			if n == 3 {
				state = "cancelled"
			}
			_, err = s.w.ExecContext(ctx, `UPDATE river_job SET state = ?, attempt = 1, attempted_at = '2026-11-24 10:00:00.000',
				attempted_by = jsonb('["node-a"]'), created_at = '2026-11-24 09:59:59.000', scheduled_at = '2026-11-24 09:59:59.000',
				finalized_at = CASE WHEN ? = 'cancelled' THEN '2026-11-24 10:00:00.500' END,
				metadata = CASE WHEN ? = 'cancelled' THEN jsonb('{"cancel_attempted_at":"2026-11-24T10:00:00.4Z"}') ELSE jsonb('{}') END
				WHERE id = ?`, state, state, state, id)
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		return ids
	}
	river1, ours := newSet(), newSet()
	finished := time.Date(2026, 11, 24, 10, 0, 1, 234_000_000, time.UTC)
	params := func(ids []int64) *riverdriver.JobSetStateIfRunningManyParams {
		p := &riverdriver.JobSetStateIfRunningManyParams{}
		for _, id := range ids {
			c := riverdriver.JobSetStateCompleted(id, finished, nil)
			p.ID = append(p.ID, c.ID)
			p.Attempt = append(p.Attempt, c.Attempt)
			p.ErrData = append(p.ErrData, c.ErrData)
			p.FinalizedAt = append(p.FinalizedAt, c.FinalizedAt)
			p.MetadataDoMerge = append(p.MetadataDoMerge, c.MetadataDoMerge)
			p.MetadataUpdates = append(p.MetadataUpdates, c.MetadataUpdates)
			p.ScheduledAt = append(p.ScheduledAt, c.ScheduledAt)
			p.State = append(p.State, c.State)
		}
		return p
	}
	if !onlyCompletions(params(ours)) {
		t.Fatal("a batch of completions does not take the batched path")
	}

	theirs, err := riversqlite.New(s.w.DB).GetExecutor().JobSetStateIfRunningMany(ctx, params(river1))
	if err != nil {
		t.Fatalf("River's completion: %v", err)
	}
	got, err := s.driver.GetExecutor().JobSetStateIfRunningMany(ctx, params(ours))
	if err != nil {
		t.Fatalf("batched completion: %v", err)
	}
	// Jobs differ only by id; compare the rest, job by job in insert order.
	byOrder := func(rows []*rivertype.JobRow, ids []int64) []rivertype.JobRow {
		pos := map[int64]int{}
		for i, id := range ids {
			pos[id] = i
		}
		out := make([]rivertype.JobRow, len(ids))
		for _, r := range rows {
			row := *r
			row.ID = 0
			out[pos[r.ID]] = row
		}
		return out
	}
	if len(got) != len(theirs) {
		t.Fatalf("batched completion returned %d rows, River %d", len(got), len(theirs))
	}
	if d := cmp.Diff(byOrder(theirs, river1), byOrder(got, ours)); d != "" {
		t.Errorf("returned rows (-River +batched):\n%s", d)
	}
	stored := func(ids []int64) []rivertype.JobRow {
		rows, err := s.driver.GetExecutor().JobGetByIDMany(ctx, &riverdriver.JobGetByIDManyParams{ID: ids})
		if err != nil {
			t.Fatal(err)
		}
		return byOrder(rows, ids)
	}
	want := stored(river1)
	if d := cmp.Diff(want, stored(ours)); d != "" {
		t.Errorf("stored jobs (-River +batched):\n%s", d)
	}
	for i, row := range want[:3] {
		if row.State != rivertype.JobStateCompleted || row.FinalizedAt == nil || !row.FinalizedAt.Equal(finished) {
			t.Errorf("job %d after completion: %s, finalized %v", i, row.State, row.FinalizedAt)
		}
	}
	// SQLite compares times as text: the text must be River's too.
	rawFinalized := func(ids []int64) []string {
		var out []string
		for _, id := range ids {
			var at string
			if err := s.w.GetContext(ctx, &at, `SELECT CAST(finalized_at AS TEXT) FROM river_job WHERE id = ?`, id); err != nil {
				t.Fatal(err)
			}
			out = append(out, at)
		}
		return out
	}
	if d := cmp.Diff(rawFinalized(river1), rawFinalized(ours)); d != "" {
		t.Errorf("finalized_at as stored (-River +batched):\n%s", d)
	}
	if want[3].State != rivertype.JobStateCancelled {
		t.Errorf("the cancelled job became %s", want[3].State)
	}
}

package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/shipd-dev/shipd/store"
)

// noteArgs is a job kind of the suite's own; no worker runs it.
type noteArgs struct {
	Note string `json:"note"`
}

func (noteArgs) Kind() string { return "storetest_note" }

// labelsArgs is a job doing the work of several labels, as a batch's
// purchase job does (shipping.PurchaseBatchArgs).
type labelsArgs struct {
	ShipmentIDs []string `json:"shipment_ids"`
}

func (labelsArgs) Kind() string { return "storetest_labels" }

// testJobs covers jobs.go: jobs exist exactly when their transaction commits.
// River's table is read through a River client, never with SQL.
func testJobs(t *testing.T, open Opener) {
	enqueuers := []struct {
		name    string
		enqueue func(ctx context.Context, tx *store.Tx, jobs ...river.InsertManyParams) error
	}{
		{"Enqueue", func(ctx context.Context, tx *store.Tx, jobs ...river.InsertManyParams) error {
			return tx.Enqueue(ctx, jobs...)
		}},
		{"EnqueueNew", func(ctx context.Context, tx *store.Tx, jobs ...river.InsertManyParams) error {
			return tx.EnqueueNew(ctx, jobs...)
		}},
	}
	for _, e := range enqueuers {
		leaf(t, open, e.name+" in a failed transaction leaves no job", func(t *testing.T, s *store.Store) {
			ctx := t.Context()
			errAbort := errors.New("abort")
			err := s.Tx(ctx, func(tx *store.Tx) error {
				noErr(t, e.name, e.enqueue(ctx, tx, river.InsertManyParams{Args: noteArgs{Note: "rolled back"}}))
				return errAbort
			})
			wantErr(t, "Tx", err, errAbort)
			if jobs := listJobs(t, s); len(jobs) != 0 {
				t.Errorf("%d jobs after the failed transaction, want none", len(jobs))
			}
		})

		leaf(t, open, e.name+" in a committed transaction leaves the jobs", func(t *testing.T, s *store.Store) {
			mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
				return e.enqueue(ctx, tx,
					river.InsertManyParams{Args: noteArgs{Note: "first"}},
					river.InsertManyParams{Args: noteArgs{Note: "second"}, InsertOpts: &river.InsertOpts{Queue: "webhooks", Priority: 2}})
			})
			jobs := listJobs(t, s)
			if len(jobs) != 2 {
				t.Fatalf("%d jobs after the commit, want 2", len(jobs))
			}
			type job struct {
				Note, Queue string
				Priority    int
				State       rivertype.JobState
			}
			var got []job
			for _, j := range jobs {
				var args noteArgs
				noErr(t, "decode job args", json.Unmarshal(j.EncodedArgs, &args))
				got = append(got, job{args.Note, j.Queue, j.Priority, j.State})
			}
			want := []job{
				{"first", river.QueueDefault, 1, rivertype.JobStateAvailable},
				{"second", "webhooks", 2, rivertype.JobStateAvailable},
			}
			if d := diff(want, got); d != "" {
				t.Errorf("jobs (-want +got):\n%s", d)
			}
		})
	}

	leaf(t, open, "Enqueue skips a unique job that exists", func(t *testing.T, s *store.Store) {
		unique := river.InsertManyParams{Args: noteArgs{Note: "once"}, InsertOpts: &river.InsertOpts{UniqueOpts: river.UniqueOpts{ByArgs: true}}}
		for range 2 { // a retried request or job enqueues the same job again
			mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.Enqueue(ctx, unique) })
		}
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			return tx.Enqueue(ctx, river.InsertManyParams{Args: noteArgs{Note: "other args"}, InsertOpts: unique.InsertOpts})
		})
		if jobs := listJobs(t, s); len(jobs) != 2 {
			t.Errorf("%d jobs after enqueueing a unique job twice and another once, want 2", len(jobs))
		}
	})

	leaf(t, open, "a job due soon is inserted due at its time, a later one scheduled", func(t *testing.T, s *store.Store) {
		// The store inserts jobs due within half a minute as available, not
		// scheduled: River's fetch waits for scheduled_at itself, and its
		// scheduler would add up to 5 s of delay. Jobs due later are
		// scheduled, so that polls never walk them (jobs.go).
		soon := time.Now().Add(10 * time.Second).UTC().Truncate(time.Microsecond)
		later := time.Now().Add(time.Hour).UTC().Truncate(time.Microsecond)
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			return tx.Enqueue(ctx,
				river.InsertManyParams{Args: noteArgs{Note: "soon"}, InsertOpts: &river.InsertOpts{ScheduledAt: soon}},
				river.InsertManyParams{Args: noteArgs{Note: "later"}, InsertOpts: &river.InsertOpts{ScheduledAt: later}})
		})
		type job struct {
			State       rivertype.JobState
			ScheduledAt time.Time
		}
		var got []job
		for _, j := range listJobs(t, s) {
			got = append(got, job{j.State, j.ScheduledAt})
		}
		want := []job{{rivertype.JobStateAvailable, soon}, {rivertype.JobStateScheduled, later}}
		if d := diff(want, got); d != "" {
			t.Errorf("jobs due in 10 s and in an hour (-want +got):\n%s", d)
		}
	})

	leaf(t, open, "DueJobs counts a queue's jobs waiting for a worker", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			var jobs []river.InsertManyParams
			for i := range 3 {
				jobs = append(jobs, river.InsertManyParams{Args: noteArgs{Note: fmt.Sprint("due ", i)}, InsertOpts: &river.InsertOpts{Queue: "purchases"}})
			}
			jobs = append(jobs,
				river.InsertManyParams{Args: noteArgs{Note: "past"}, InsertOpts: &river.InsertOpts{Queue: "purchases", ScheduledAt: time.Now().Add(-time.Minute)}},
				river.InsertManyParams{Args: noteArgs{Note: "later"}, InsertOpts: &river.InsertOpts{Queue: "purchases", ScheduledAt: time.Now().Add(time.Hour)}},
				river.InsertManyParams{Args: noteArgs{Note: "other queue"}},
			)
			return tx.EnqueueNew(ctx, jobs...)
		})
		n, err := s.DueJobs(ctx, "purchases")
		noErr(t, "DueJobs", err)
		if n != 4 {
			t.Errorf("DueJobs(purchases) = %d, want 4 (3 due now, 1 overdue; not the one due in an hour nor another queue's)", n)
		}
		// A job naming several shipments counts each, whichever way it was
		// inserted (with its transaction's other jobs, or on its own).
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			purchases := &river.InsertOpts{Queue: "purchases"}
			if err := tx.EnqueueNew(ctx, river.InsertManyParams{Args: labelsArgs{ShipmentIDs: []string{"shp_a", "shp_b", "shp_c"}}, InsertOpts: purchases}); err != nil {
				return err
			}
			return tx.Enqueue(ctx, river.InsertManyParams{Args: labelsArgs{ShipmentIDs: []string{"shp_d", "shp_e"}}, InsertOpts: purchases},
				river.InsertManyParams{Args: labelsArgs{}, InsertOpts: purchases})
		})
		n, err = s.DueJobs(ctx, "purchases")
		noErr(t, "DueJobs", err)
		if n != 4+3+2+1 {
			t.Errorf("DueJobs(purchases) = %d, want 10 (4 jobs, one of 3 labels, one of 2, one naming none)", n)
		}
		if n, err := s.DueJobs(ctx, "nothing here"); err != nil || n != 0 {
			t.Errorf("DueJobs of an empty queue = %d, %v", n, err)
		}
	})

	leaf(t, open, "enqueueing nothing is a no-op", func(t *testing.T, s *store.Store) {
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			noErr(t, "Enqueue", tx.Enqueue(ctx))
			return tx.EnqueueNew(ctx)
		})
		if jobs := listJobs(t, s); len(jobs) != 0 {
			t.Errorf("%d jobs, want none", len(jobs))
		}
	})
}

// listJobs returns the suite's jobs, oldest first, read with a River client
// that inserts and works nothing.
func listJobs(t *testing.T, s *store.Store) []*rivertype.JobRow {
	t.Helper()
	client, err := s.JobClient(&river.Config{})
	noErr(t, "JobClient", err)
	res, err := client.JobList(t.Context(), river.NewJobListParams().Kinds(noteArgs{}.Kind()).First(100))
	noErr(t, "JobList", err)
	return res.Jobs
}

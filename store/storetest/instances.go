package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/shipd-dev/shipd/store"
)

// holdArgs is a job kind whose worker runs until its context ends: a job
// that stays running.
type holdArgs struct {
	Queue string `json:"queue"`
}

func (holdArgs) Kind() string { return "storetest_hold" }

type holdWorker struct {
	river.WorkerDefaults[holdArgs]
}

func (holdWorker) Work(ctx context.Context, _ *river.Job[holdArgs]) error {
	<-ctx.Done()
	return ctx.Err()
}

// holding runs a River client named node with one worker on its own queue,
// and one job on that queue that it keeps running: with its only worker
// busy, the client fetches nothing more (a reclaimed job stays available).
func holding(t *testing.T, s *store.Store, node string) int64 {
	id, _ := holdingStoppable(t, s, node)
	return id
}

// holdingStoppable is holding, and stops the client (cancelling the job).
func holdingStoppable(t *testing.T, s *store.Store, node string) (int64, func()) {
	t.Helper()
	workers := river.NewWorkers()
	river.AddWorker(workers, holdWorker{})
	queue := "hold_" + node
	client, err := s.JobClient(&river.Config{ID: node, Workers: workers, FetchPollInterval: 20 * time.Millisecond, FetchCooldown: 10 * time.Millisecond,
		Queues: map[string]river.QueueConfig{queue: {MaxWorkers: 1}}, JobTimeout: -1})
	noErr(t, "JobClient", err)
	noErr(t, "Start", client.Start(context.WithoutCancel(t.Context())))
	stop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = client.StopAndCancel(ctx)
	}
	t.Cleanup(stop)
	var id int64
	mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
		return tx.Enqueue(ctx, river.InsertManyParams{Args: holdArgs{Queue: queue}, InsertOpts: &river.InsertOpts{Queue: queue}})
	})
	deadline := time.Now().Add(10 * time.Second)
	for {
		res, err := client.JobList(t.Context(), river.NewJobListParams().Queues(queue).First(1))
		noErr(t, "JobList", err)
		if len(res.Jobs) == 1 && res.Jobs[0].State == rivertype.JobStateRunning {
			id = res.Jobs[0].ID
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s's job never ran", node)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return id, stop
}

func jobState(t *testing.T, s *store.Store, id int64) rivertype.JobState {
	t.Helper()
	client, err := s.JobClient(&river.Config{})
	noErr(t, "JobClient", err)
	job, err := client.JobGet(t.Context(), id)
	noErr(t, "JobGet", err)
	return job.State
}

// testInstances covers instances.go: heartbeats, and the jobs of a dead
// instance taken back by one that has watched it stay silent.
func testInstances(t *testing.T, open Opener) {
	leaf(t, open, "heartbeats make instances live; leaving makes one gone", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		for _, n := range []string{"b", "a"} {
			noErr(t, "Heartbeat", s.Heartbeat(ctx, n, time.Second))
		}
		noErr(t, "Heartbeat again", s.Heartbeat(ctx, "a", time.Second))
		live, err := s.LiveInstances(ctx, 10*time.Second)
		noErr(t, "LiveInstances", err)
		if d := diff([]string{"a", "b"}, live); d != "" {
			t.Errorf("live (-want +got):\n%s", d)
		}
		noErr(t, "Leave", s.Leave(ctx, "a"))
		live, err = s.LiveInstances(ctx, 10*time.Second)
		noErr(t, "LiveInstances", err)
		if d := diff([]string{"b"}, live); d != "" {
			t.Errorf("live after a left (-want +got):\n%s", d)
		}
	})
	leaf(t, open, "a survivor takes back the running jobs of a dead instance only, once", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		if !s.Shared() {
			if _, err := s.ReclaimFromDeadInstances(ctx, "self", time.Second); !errors.Is(err, store.ErrOneServer) {
				t.Fatalf("ReclaimFromDeadInstances on SQLite: %v, want ErrOneServer", err)
			}
			return
		}
		const bound, gap = 600 * time.Millisecond, 300 * time.Millisecond
		deadJob, liveJob := holding(t, s, "dead"), holding(t, s, "live")
		for _, n := range []string{"dead", "live", "self", "other"} {
			noErr(t, "Heartbeat", s.Heartbeat(ctx, n, gap))
		}
		// Too early: nobody has watched "dead" stay silent for the bound.
		got, err := s.ReclaimFromDeadInstances(ctx, "self", bound)
		noErr(t, "ReclaimFromDeadInstances", err)
		if len(got) != 0 {
			t.Fatalf("reclaimed %+v before the bound", got)
		}
		// "dead" goes silent; the others heartbeat on past the bound.
		for range 9 {
			time.Sleep(bound / 8)
			for _, n := range []string{"live", "self", "other"} {
				noErr(t, "Heartbeat", s.Heartbeat(ctx, n, gap))
			}
		}
		// Two survivors at once: the job is taken back by exactly one.
		results := make([][]store.ReclaimedJob, 2)
		errs := race(2, func(i int) error {
			var err error
			results[i], err = s.ReclaimFromDeadInstances(ctx, []string{"self", "other"}[i], bound)
			return err
		})
		for _, err := range errs {
			noErr(t, "ReclaimFromDeadInstances", err)
		}
		all := append(results[0], results[1]...)
		if d := diff([]store.ReclaimedJob{{ID: deadJob, Kind: holdArgs{}.Kind(), Node: "dead"}}, all); d != "" {
			t.Errorf("reclaimed (-want +got):\n%s", d)
		}
		if st := jobState(t, s, deadJob); st != rivertype.JobStateAvailable {
			t.Errorf("the dead instance's job is %s, want available", st)
		}
		if st := jobState(t, s, liveJob); st != rivertype.JobStateRunning {
			t.Errorf("the live instance's job is %s, want running", st)
		}
	})
	leaf(t, open, "an instance whose heartbeats broke off reclaims nothing until it has watched a whole bound", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		if !s.Shared() {
			t.Skip("one server on SQLite")
		}
		const bound, gap = 600 * time.Millisecond, 300 * time.Millisecond
		job := holding(t, s, "peer")
		noErr(t, "Heartbeat", s.Heartbeat(ctx, "peer", gap))
		noErr(t, "Heartbeat", s.Heartbeat(ctx, "self", gap))
		// The database is away for longer than the bound: nobody heartbeats.
		time.Sleep(bound + bound/2)
		// self's heartbeat comes back first; peer's will, a moment later.
		noErr(t, "Heartbeat", s.Heartbeat(ctx, "self", gap))
		got, err := s.ReclaimFromDeadInstances(ctx, "self", bound)
		noErr(t, "ReclaimFromDeadInstances", err)
		if len(got) != 0 {
			t.Errorf("reclaimed %+v right after the heartbeats resumed", got)
		}
		if st := jobState(t, s, job); st != rivertype.JobStateRunning {
			t.Errorf("peer's job is %s, want running", st)
		}
	})
	leaf(t, open, "a stopping instance hands back its unfinished jobs only", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		if !s.Shared() {
			if _, err := s.HandBackJobs(ctx, "self", []int64{1}); !errors.Is(err, store.ErrOneServer) {
				t.Fatalf("HandBackJobs on SQLite: %v, want ErrOneServer", err)
			}
			return
		}
		mine, theirs := holding(t, s, "me"), holding(t, s, "them")
		// A job whose attempt the stop cut off waits for its retry.
		cut, stop := holdingStoppable(t, s, "me2")
		stop()
		n, err := s.HandBackJobs(ctx, "me", []int64{mine, theirs})
		noErr(t, "HandBackJobs", err)
		if n != 1 {
			t.Errorf("handed back %d jobs, want 1", n)
		}
		n, err = s.HandBackJobs(ctx, "me2", []int64{cut})
		noErr(t, "HandBackJobs", err)
		if n != 1 {
			t.Errorf("handed back %d cut-off jobs, want 1", n)
		}
		client, err := s.JobClient(&river.Config{})
		noErr(t, "JobClient", err)
		job, err := client.JobGet(ctx, cut)
		noErr(t, "JobGet", err)
		if job.State != rivertype.JobStateAvailable || job.ScheduledAt.After(time.Now().Add(time.Second)) {
			t.Errorf("the cut-off job is %s, due %s; want available now", job.State, job.ScheduledAt)
		}
		if st := jobState(t, s, mine); st != rivertype.JobStateAvailable {
			t.Errorf("my job is %s, want available", st)
		}
		if st := jobState(t, s, theirs); st != rivertype.JobStateRunning {
			t.Errorf("their job is %s, want running", st)
		}
	})
}

package app

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/shipd-dev/shipd/store"
	"github.com/shipd-dev/shipd/telemetry"
)

// Failover between instances of one PostgreSQL database: each instance
// heartbeats, a survivor takes back at once the jobs of an instance whose
// heartbeat went stale, and a stopping instance hands back the jobs it
// could not finish. River's rescuer (JobRescueAfter) stays the last resort.

// DefaultInstanceDeadAfter is how stale an instance's heartbeat must be
// before the others take back its running jobs.
const DefaultInstanceDeadAfter = 10 * time.Second

// failover is an App's part of it; nil on SQLite (one server, trivially
// alive) and without a NodeID (cmd/shipd always sets one).
type failover struct {
	st        *store.Store
	tel       *telemetry.Telemetry
	log       *slog.Logger
	node      string
	every     time.Duration // heartbeat interval
	deadAfter time.Duration

	running   sync.Map     // job id → struct{}: the jobs this instance is working
	reclaimed atomic.Int64 // jobs taken back from dead instances or handed back
	alive     atomic.Pointer[[]string]
	stop      context.CancelFunc
	done      chan struct{}
}

func newFailover(cfg Config) *failover {
	if !cfg.Store.Shared() || cfg.NodeID == "" {
		// Without a node id River names the client itself, and nothing
		// would tie this instance's heartbeat to the jobs it runs.
		return nil
	}
	deadAfter := cfg.InstanceDeadAfter
	if deadAfter <= 0 {
		deadAfter = DefaultInstanceDeadAfter
	}
	// Several heartbeats per bound: one slow write (a busy database, a
	// paused process) does not make an instance look dead.
	every := min(time.Second, deadAfter/5)
	return &failover{st: cfg.Store, tel: cfg.Telemetry, log: cfg.Logger, node: cfg.NodeID, every: every, deadAfter: deadAfter}
}

// middleware keeps the ids of the jobs being worked, for the hand-back.
func (f *failover) middleware() []rivertype.Middleware {
	if f == nil {
		return nil
	}
	return []rivertype.Middleware{river.WorkerMiddlewareFunc(func(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
		f.running.Store(job.ID, struct{}{})
		defer f.running.Delete(job.ID)
		return doInner(ctx)
	})}
}

// start heartbeats every f.every until stopped, and after each heartbeat
// written takes back the jobs of dead instances.
func (f *failover) start(ctx context.Context) {
	if f == nil {
		return
	}
	ctx, f.stop = context.WithCancel(ctx)
	f.done = make(chan struct{})
	go func() {
		defer close(f.done)
		t := time.NewTicker(f.every)
		defer t.Stop()
		failing := false
		for {
			f.beat(ctx, &failing)
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
}

func (f *failover) beat(ctx context.Context, failing *bool) {
	// A heartbeat's run is broken after half the bound without one; the
	// instance then waits a whole bound before it reclaims anything.
	if err := f.st.Heartbeat(ctx, f.node, f.deadAfter/2); err != nil {
		if !*failing && ctx.Err() == nil {
			f.log.Warn("heartbeat failed; no jobs are taken back from other instances until heartbeats resume", slog.Any("error", err))
		}
		*failing = true
		return
	}
	if *failing {
		f.log.Info("heartbeat resumed")
		*failing = false
	}
	jobs, err := f.st.ReclaimFromDeadInstances(ctx, f.node, f.deadAfter)
	if err != nil {
		if ctx.Err() == nil {
			f.log.Warn("taking back the jobs of dead instances failed", slog.Any("error", err))
		}
	} else if len(jobs) > 0 {
		f.tel.JobsReclaimed(telemetry.ReclaimDeadInstance, len(jobs))
		f.reclaimed.Add(int64(len(jobs)))
		byNode := map[string][]int64{}
		for _, j := range jobs {
			byNode[j.Node] = append(byNode[j.Node], j.ID)
		}
		for node, ids := range byNode {
			f.log.Warn("took back the jobs of a dead instance", slog.String("dead_node_id", node),
				slog.Int("jobs", len(ids)), slog.Any("job_ids", ids), slog.Duration("heartbeat_stale_for", f.deadAfter))
		}
	}
	if alive, err := f.st.LiveInstances(ctx, f.deadAfter); err == nil {
		f.alive.Store(&alive)
		f.tel.InstancesAlive(len(alive))
	}
}

// runningIDs are the jobs being worked now; none without failover (SQLite).
func (f *failover) runningIDs() []int64 {
	if f == nil {
		return nil
	}
	var ids []int64
	f.running.Range(func(k, _ any) bool {
		ids = append(ids, k.(int64))
		return true
	})
	return ids
}

// handBack, once the job client has stopped, makes the jobs of ids that
// this instance left unfinished available to the others at once, stops
// heartbeating and marks this instance gone. Returns how many it handed back.
func (f *failover) handBack(ctx context.Context, ids []int64) (int64, error) {
	if f == nil {
		return 0, nil
	}
	if f.stop != nil {
		f.stop()
		<-f.done
	}
	n, err := f.st.HandBackJobs(ctx, f.node, ids)
	if err == nil && n > 0 {
		f.tel.JobsReclaimed(telemetry.ReclaimShutdown, int(n))
		f.reclaimed.Add(n)
	}
	if lerr := f.st.Leave(ctx, f.node); err == nil {
		err = lerr
	}
	f.log.Info("handed back unfinished jobs", slog.Int64("jobs", n), slog.Any("job_ids", ids))
	return n, err
}

// aliveInstances are the instances seen alive at the last heartbeat; nil
// on SQLite or before the first one.
func (f *failover) aliveInstances() []string {
	if f == nil {
		return nil
	}
	if p := f.alive.Load(); p != nil {
		return *p
	}
	return nil
}

// readyDetails are /readyz's failover fields: the instances seen alive at
// the last heartbeat and the jobs this instance took back. Nothing on SQLite.
func (f *failover) readyDetails() map[string]any {
	if f == nil {
		return nil
	}
	alive := f.aliveInstances()
	if alive == nil {
		alive = []string{}
	}
	return map[string]any{"nodeId": f.node, "instancesAlive": alive, "jobsReclaimed": f.reclaimed.Load()}
}

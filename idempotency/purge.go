package idempotency

import (
	"context"
	"log/slog"
	"time"

	"github.com/riverqueue/river"
)

// PurgeInterval is how often expired keys are deleted.
const PurgeInterval = time.Hour

type purgeArgs struct{}

func (purgeArgs) Kind() string { return "purge_idempotency_keys" }

type purgeWorker struct {
	river.WorkerDefaults[purgeArgs]
	s *Service
}

func (w *purgeWorker) Work(ctx context.Context, _ *river.Job[purgeArgs]) error {
	n, err := w.s.Purge(ctx)
	if err != nil {
		return err
	}
	if n > 0 {
		w.s.log.InfoContext(ctx, "purged expired idempotency keys", slog.Int64("deleted", n))
	}
	return nil
}

// RegisterWorkers adds the purge worker.
func (s *Service) RegisterWorkers(w *river.Workers) {
	river.AddWorker(w, &purgeWorker{s: s})
}

// PeriodicJobs schedules the purge hourly, and once at start.
func (s *Service) PeriodicJobs() []*river.PeriodicJob {
	return []*river.PeriodicJob{
		river.NewPeriodicJob(river.PeriodicInterval(PurgeInterval),
			func() (river.JobArgs, *river.InsertOpts) { return purgeArgs{}, nil },
			&river.PeriodicJobOpts{ID: "purge_idempotency_keys", RunOnStart: true}),
	}
}

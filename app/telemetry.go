package app

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/server"
	"github.com/shipd-dev/shipd/telemetry"
	"github.com/shipd-dev/shipd/webhooks"
)

// instrument wires cfg.Telemetry (a new one, metrics without traces, when
// nil) into what New builds from cfg: log lines carry the trace and request
// ids, the store traces its transactions and writes the inserting trace into
// each job, the collectors read the store at scrape time, and every carrier
// call is observed.
func instrument(cfg *Config) error {
	if cfg.Telemetry == nil {
		t, err := telemetry.New(telemetry.Config{})
		if err != nil {
			return fmt.Errorf("telemetry: %w", err)
		}
		cfg.Telemetry = t
	}
	tel := cfg.Telemetry
	cfg.Logger = slog.New(telemetry.LogHandler(cfg.Logger.Handler(), server.RequestID))
	cfg.AccessLog = slog.New(telemetry.LogHandler(cfg.AccessLog.Handler(), server.RequestID))
	cfg.Store.SetTracerProvider(tel.TracerProvider())
	if err := cfg.Store.SetJobInsertMiddleware(telemetry.JobInsertMiddleware()); err != nil {
		return err
	}
	if err := tel.RegisterStore(cfg.Store); err != nil {
		return fmt.Errorf("telemetry: %w", err)
	}
	// Observed innermost, so that what is counted as a carrier call reached
	// the carrier; the budget around it; and batching outermost, so that a
	// batch of tracking numbers takes one call of the budget.
	cfg.Carriers = cfg.Carriers.Instrument(tel.ObserveCarrier).
		Limit(carriers.QuotaConfig{Quotas: cfg.CarrierQuotas, Limiter: cfg.CarrierLimiter, Now: cfg.Now, OnDecision: tel.CarrierQuotaDecision}).
		Batch(carriers.DefaultTrackBatchWindow)
	// Carrier accounts' clients are observed too, and draw on budgets of
	// their own client ids, never the operator's (the carrier limits each
	// client by its own credentials).
	cfg.CarrierAccounts = cfg.CarrierAccounts.Observed(tel.ObserveCarrier).
		Limited(carriers.QuotaConfig{Quotas: cfg.CarrierAccountQuotas, Limiter: cfg.CarrierLimiter, Now: cfg.Now, OnDecision: tel.CarrierQuotaDecision})
	return nil
}

// jobMiddleware measures and traces every job, and gives the delivery jobs
// (on deliveryQueue) the webhooks observer.
func jobMiddleware(tel *telemetry.Telemetry, deliveryQueue string) []rivertype.Middleware {
	obs := tel.Webhooks()
	return []rivertype.Middleware{
		tel.JobWorkerMiddleware(),
		river.WorkerMiddlewareFunc(func(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
			if job.Queue == deliveryQueue {
				ctx = webhooks.ContextWithObserver(ctx, obs)
			}
			return doInner(ctx)
		}),
	}
}

// Telemetry is the App's metrics registry and tracer provider.
func (a *App) Telemetry() *telemetry.Telemetry { return a.cfg.Telemetry }

// ReadyTimeout bounds the database's answer to a readiness check.
const ReadyTimeout = time.Second

// Ready reports whether shipd can do its work: the database answers within
// ReadyTimeout and the job workers run. Otherwise it returns a
// *server.NotReadyError with the state of each check.
func (a *App) Ready(ctx context.Context) error {
	checks := map[string]string{"database": "ok", "jobs": "ok"}
	dctx, cancel := context.WithTimeout(ctx, ReadyTimeout)
	defer cancel()
	if err := a.cfg.Store.Ping(dctx); err != nil {
		checks["database"] = fmt.Sprintf("the database does not answer within %s", ReadyTimeout)
	}
	switch done := a.jobsDone.Load(); {
	case a.stopping.Load():
		checks["jobs"] = "stopping"
	case done == nil:
		checks["jobs"] = "not started"
	default:
		select {
		case <-*done:
			checks["jobs"] = "stopped"
		default:
		}
	}
	for _, state := range checks {
		if state != "ok" {
			return &server.NotReadyError{Checks: checks}
		}
	}
	return nil
}

// DrainReport says what Drain waited for and how long it took.
type DrainReport struct {
	// JobsRunning were being worked when the stop began; JobsCancelled of
	// them were still running when the grace ended and were cancelled
	// (River runs them again); the others finished.
	JobsRunning, JobsCancelled int64
	// JobsHandedBack of the cancelled ones were made available at once to
	// the other instances (PostgreSQL).
	JobsHandedBack int64
	// TokenUsageFlushed: the pending token use was written.
	TokenUsageFlushed bool
	Took              time.Duration
}

// LogValue makes a report one log attribute.
func (r DrainReport) LogValue() slog.Value {
	return slog.GroupValue(
		slog.Int64("jobs_running", r.JobsRunning),
		slog.Int64("jobs_finished", r.JobsRunning-r.JobsCancelled),
		slog.Int64("jobs_cancelled", r.JobsCancelled),
		slog.Int64("jobs_handed_back", r.JobsHandedBack),
		slog.Bool("token_usage_flushed", r.TokenUsageFlushed),
		slog.Float64("took_ms", float64(r.Took.Microseconds())/1000),
	)
}

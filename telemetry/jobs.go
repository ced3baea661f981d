package telemetry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/shipd-dev/shipd/store"
)

// A job carries the trace of the code that queued it in its metadata, as a
// W3C traceparent: under metaTraceParent when the job is due at once (its
// span is then a child of the enqueuer's: one purchase is one trace from the
// 202 to the webhook), under metaTraceLink when it is scheduled for later (a
// retry after a backoff, a tracking scan, a void recheck: its span starts a
// trace of its own, linked to the enqueuer's, so that a label's life of days
// is not one endless trace).
const (
	metaTraceParent = "traceparent"
	metaTraceLink   = "trace_link"
)

// laterThan is how far in the future a job must be scheduled to count as a
// follow-up rather than the continuation of its enqueuer's work.
const laterThan = time.Second

// JobInsertMiddleware writes the trace of the context that enqueued each job
// (store.EnqueuerContext) into the job's metadata. It keeps no state: it
// reads only the contexts, and writes nothing for a job whose context has no
// trace (tracing off and no traceparent received).
func JobInsertMiddleware() rivertype.Middleware {
	return river.JobInsertMiddlewareFunc(func(ctx context.Context, params []*rivertype.JobInsertParams, doInner func(context.Context) ([]*rivertype.JobInsertResult, error)) ([]*rivertype.JobInsertResult, error) {
		later := time.Now().Add(laterThan)
		for i, p := range params {
			tp := traceParent(store.EnqueuerContext(ctx, i))
			if tp == "" {
				continue
			}
			key := metaTraceParent
			if p.ScheduledAt != nil && p.ScheduledAt.After(later) {
				key = metaTraceLink
			}
			md, err := withMetadata(p.Metadata, key, tp)
			if err != nil {
				return nil, err
			}
			p.Metadata = md
		}
		return doInner(ctx)
	})
}

// traceParent is ctx's trace as a W3C traceparent, or "" without one.
func traceParent(ctx context.Context) string {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return ""
	}
	carrier := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(ctx, carrier)
	return carrier.Get("traceparent")
}

// withMetadata sets key to value in a job's JSON metadata.
func withMetadata(md []byte, key, value string) ([]byte, error) {
	if len(bytes.TrimSpace(md)) == 0 || bytes.Equal(md, []byte("{}")) {
		return json.Marshal(map[string]string{key: value})
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(md, &m); err != nil {
		return nil, err
	}
	v, err := json.Marshal(value)
	if err != nil {
		return nil, err
	}
	if m == nil {
		m = map[string]json.RawMessage{}
	}
	m[key] = v
	return json.Marshal(m)
}

// jobTrace reads the trace a job was queued with.
func jobTrace(md []byte) (parent, link trace.SpanContext) {
	if !bytes.Contains(md, []byte(`"trace`)) {
		return parent, link
	}
	var m struct {
		Parent string `json:"traceparent"`
		Link   string `json:"trace_link"`
	}
	if json.Unmarshal(md, &m) != nil {
		return parent, link
	}
	return remoteSpanContext(m.Parent), remoteSpanContext(m.Link)
}

func remoteSpanContext(traceparent string) trace.SpanContext {
	if traceparent == "" {
		return trace.SpanContext{}
	}
	ctx := propagation.TraceContext{}.Extract(context.Background(), propagation.MapCarrier{"traceparent": traceparent})
	return trace.SpanContextFromContext(ctx)
}

// jobMetrics are the metrics of running jobs; the depth of the queues is
// read from the database at scrape time (collectors.go).
type jobMetrics struct {
	wait     *prometheus.HistogramVec
	run      *prometheus.HistogramVec
	finished *prometheus.CounterVec

	mu     sync.RWMutex
	byKind map[jobKey]*kindMetrics
}

type jobKey struct{ kind, queue string }

// kindMetrics are one kind's observers, looked up once.
type kindMetrics struct {
	wait, run prometheus.Observer
	outcomes  map[string]prometheus.Counter
	spanName  string
}

// Job outcomes (shipd_jobs_finished_total).
var jobOutcomes = []string{"completed", "retried", "discarded", "cancelled", "snoozed"}

func newJobMetrics(reg prometheus.Registerer) (*jobMetrics, error) {
	m := &jobMetrics{
		wait: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "shipd_job_wait_seconds",
			Help:    "Time from a job being due (inserted, or its scheduled time) to a worker starting it, by kind and queue.",
			Buckets: []float64{.001, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300},
		}, []string{"kind", "queue"}),
		run: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "shipd_job_run_seconds",
			Help:    "Time a job's run took, by kind and queue.",
			Buckets: []float64{.001, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
		}, []string{"kind", "queue"}),
		finished: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "shipd_jobs_finished_total",
			Help: "Job runs by kind, queue and outcome: completed, retried (failed, River runs it again), discarded (failed its last attempt), cancelled or snoozed.",
		}, []string{"kind", "queue", "outcome"}),
		byKind: map[jobKey]*kindMetrics{},
	}
	return m, registerAll(reg, m.wait, m.run, m.finished)
}

func (m *jobMetrics) of(kind, queue string) *kindMetrics {
	k := jobKey{kind, queue}
	m.mu.RLock()
	km := m.byKind[k]
	m.mu.RUnlock()
	if km != nil {
		return km
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if km = m.byKind[k]; km != nil {
		return km
	}
	km = &kindMetrics{
		wait: m.wait.WithLabelValues(kind, queue), run: m.run.WithLabelValues(kind, queue),
		outcomes: make(map[string]prometheus.Counter, len(jobOutcomes)),
		spanName: "job " + kind,
	}
	for _, o := range jobOutcomes {
		km.outcomes[o] = m.finished.WithLabelValues(kind, queue, o)
	}
	m.byKind[k] = km
	return km
}

// JobWorkerMiddleware measures every job run (wait, run time, outcome),
// counts the running jobs, and runs each job in a span continuing (or
// linked to) the trace it was queued in.
func (t *Telemetry) JobWorkerMiddleware() rivertype.Middleware {
	return river.WorkerMiddlewareFunc(t.workJob)
}

func (t *Telemetry) workJob(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) (err error) {
	km := t.jobs.of(job.Kind, job.Queue)
	start := time.Now()
	if job.AttemptedAt != nil {
		if wait := job.AttemptedAt.Sub(job.ScheduledAt); wait >= 0 {
			km.wait.Observe(wait.Seconds())
		}
	}
	parent, link := jobTrace(job.Metadata)
	var span trace.Span
	switch {
	case t.tracer != nil:
		opts := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindConsumer), trace.WithAttributes(
			attribute.String("shipd.job.kind", job.Kind), attribute.String("shipd.job.queue", job.Queue),
			attribute.Int64("shipd.job.id", job.ID), attribute.Int("shipd.job.attempt", job.Attempt))}
		if parent.IsValid() {
			ctx = trace.ContextWithRemoteSpanContext(ctx, parent)
		} else {
			opts = append(opts, trace.WithNewRoot())
		}
		if link.IsValid() {
			opts = append(opts, trace.WithLinks(trace.Link{SpanContext: link}))
		}
		ctx, span = t.tracer.Start(ctx, km.spanName, opts...)
	case parent.IsValid():
		// Not tracing, but the request that queued the job came with a
		// traceparent: the job's log lines carry its trace id.
		ctx = trace.ContextWithRemoteSpanContext(ctx, parent)
	}
	t.runningJobs.Add(1)
	finished := false
	defer func() {
		t.runningJobs.Add(-1)
		outcome := jobOutcome(job, err, !finished)
		km.run.Observe(time.Since(start).Seconds())
		km.outcomes[outcome].Inc()
		if span != nil {
			span.SetAttributes(attribute.String("shipd.job.outcome", outcome))
			if !finished {
				span.SetStatus(codes.Error, "panic")
			} else if outcome != "completed" && outcome != "snoozed" {
				span.RecordError(err)
				span.SetStatus(codes.Error, outcome)
			}
			span.End()
		}
	}()
	err = doInner(ctx)
	finished = true
	return err
}

// jobOutcome names what a run came to, as River will record it.
func jobOutcome(job *rivertype.JobRow, err error, panicked bool) string {
	var (
		cancel *rivertype.JobCancelError
		snooze *rivertype.JobSnoozeError
	)
	switch {
	case !panicked && err == nil:
		return "completed"
	case !panicked && errors.As(err, &cancel):
		return "cancelled"
	case !panicked && errors.As(err, &snooze):
		return "snoozed"
	case job.Attempt >= job.MaxAttempts:
		return "discarded"
	default:
		return "retried"
	}
}

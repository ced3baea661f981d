// Package telemetry is what an operator sees of one shipd: the Prometheus
// registry of an App with the metrics of its jobs, shipments, webhooks and
// carriers and the collectors read at scrape time, the OpenTelemetry tracer
// provider (off unless the OTEL_* environment turns it on), the River
// middleware that carries a request's trace into the jobs it queues, and the
// log handler that writes the trace id on every line of a traced request.
//
// The HTTP metrics are the server's own (server/metrics.go): telemetry only
// hands it the registry and the tracer provider.
package telemetry

import (
	"log/slog"
	"net/http"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/trace"
)

// Config is what telemetry is made of; the zero value has metrics and no traces.
type Config struct {
	// TracerProvider traces requests, transactions, carrier calls, jobs and
	// webhook attempts; nil: nothing is traced (TracerProviderFromEnv makes one).
	TracerProvider trace.TracerProvider
}

// Telemetry is one App's metrics registry and tracer provider. Nothing in it
// is global: two Apps in one process (tests) have two of them.
type Telemetry struct {
	reg    *prometheus.Registry
	tp     trace.TracerProvider // nil: tracing off
	tracer trace.Tracer         // nil: tracing off

	inFlight    atomic.Int64 // HTTP requests being served
	runningJobs atomic.Int64 // jobs being worked

	jobs     *jobMetrics
	shipping *ShipmentMetrics
	webhooks *WebhookMetrics
	carriers *carrierMetrics
	failover *failoverMetrics
}

// instrumentation is the name of shipd's tracers.
const instrumentation = "github.com/shipd-dev/shipd"

// New makes an App's telemetry: a fresh registry with the Go runtime and
// process collectors and shipd's own metrics.
func New(cfg Config) (*Telemetry, error) {
	t := &Telemetry{reg: prometheus.NewRegistry(), tp: cfg.TracerProvider}
	if t.tp != nil {
		t.tracer = t.tp.Tracer(instrumentation)
	}
	var err error
	if t.jobs, err = newJobMetrics(t.reg); err != nil {
		return nil, err
	}
	if t.shipping, err = newShipmentMetrics(t.reg); err != nil {
		return nil, err
	}
	if t.webhooks, err = newWebhookMetrics(t.reg, t.tracer); err != nil {
		return nil, err
	}
	if t.carriers, err = newCarrierMetrics(t.reg, t.tracer); err != nil {
		return nil, err
	}
	if t.failover, err = newFailoverMetrics(t.reg); err != nil {
		return nil, err
	}
	err = registerAll(t.reg,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "shipd_http_requests_in_flight",
			Help: "HTTP requests being served (API and settings UI).",
		}, func() float64 { return float64(t.inFlight.Load()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "shipd_jobs_running",
			Help: "Jobs being worked by this instance.",
		}, func() float64 { return float64(t.runningJobs.Load()) }),
	)
	if err != nil {
		return nil, err
	}
	return t, nil
}

// Registerer is where the other layers (the HTTP server, the store's
// collectors) register their metrics.
func (t *Telemetry) Registerer() prometheus.Registerer { return t.reg }

// Gatherer reads every metric, as a scrape does.
func (t *Telemetry) Gatherer() prometheus.Gatherer { return t.reg }

// Handler serves the metrics in Prometheus's exposition formats: for the
// metrics listener only, never the API's. A collector that fails (the
// database does not answer in time) leaves its metrics out of that scrape,
// with a warning to log (nil: none); the others are served.
func (t *Telemetry) Handler(log *slog.Logger) http.Handler {
	opts := promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError}
	if log != nil {
		opts.ErrorLog = slog.NewLogLogger(log.Handler(), slog.LevelWarn)
	}
	return promhttp.HandlerFor(t.reg, opts)
}

// TracerProvider is the provider spans are made with; nil when tracing is off.
func (t *Telemetry) TracerProvider() trace.TracerProvider { return t.tp }

// InFlight counts the requests h is serving (shipd_http_requests_in_flight,
// and what a shutdown waits for).
func (t *Telemetry) InFlight(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.inFlight.Add(1)
		defer t.inFlight.Add(-1)
		h.ServeHTTP(w, r)
	})
}

// InFlightRequests is the number of requests being served now.
func (t *Telemetry) InFlightRequests() int64 { return t.inFlight.Load() }

// RunningJobs is the number of jobs being worked now.
func (t *Telemetry) RunningJobs() int64 { return t.runningJobs.Load() }

// Shipments is the shipping service's observer (shipping.Observer).
func (t *Telemetry) Shipments() *ShipmentMetrics { return t.shipping }

// Webhooks is the delivery jobs' observer (webhooks.Observer).
func (t *Telemetry) Webhooks() *WebhookMetrics { return t.webhooks }

func registerAll(reg prometheus.Registerer, cs ...prometheus.Collector) error {
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}

package server

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/shipd-dev/shipd/idempotency"
)

// The API's metrics and traces. Every label value is fixed when the server
// is built: the operation is the contract's operationId (read from the
// route, never the raw path), "healthz" or "readyz" for the probes, and
// "unknown" for a path no route matches; the method is the route's; the
// status is its class. A request looks its observers up in a map by
// (method, route) and allocates nothing for them.

// unknownOperation is the operation label of requests no route matches.
const unknownOperation = "unknown"

// routeID is a map key made of the request's method and Echo route; unlike
// routeKey it needs no allocation.
type routeID struct{ method, path string }

// statusClasses are the status classes observed, index = status/100 - 1.
var statusClasses = [...]string{"1xx", "2xx", "3xx", "4xx", "5xx"}

// opMetrics are one operation's observers, label values bound. The series
// of a status class are made the first time a request ends in it, so a
// scrape shows what happened rather than every possible combination.
type opMetrics struct {
	name    string // operationId: also the span's name
	method  string
	classes [len(statusClasses)]atomic.Pointer[classMetrics]
	sizes   atomic.Pointer[sizeMetrics]
	// replays and collisions are nil unless the operation takes an idempotencyKey.
	replays, collisions prometheus.Counter
	vecs                *httpVecs
}

type classMetrics struct {
	requests prometheus.Counter
	duration prometheus.Observer
}

type sizeMetrics struct{ req, res prometheus.Observer }

type httpVecs struct {
	requests, replays, collisions *prometheus.CounterVec
	duration, reqSize, resSize    *prometheus.HistogramVec
}

func (m *opMetrics) class(status int) *classMetrics {
	i := min(max(status/100, 1), len(statusClasses)) - 1
	if c := m.classes[i].Load(); c != nil {
		return c
	}
	c := &classMetrics{ // the vectors give every caller the same series
		requests: m.vecs.requests.WithLabelValues(m.name, m.method, statusClasses[i]),
		duration: m.vecs.duration.WithLabelValues(m.name, m.method, statusClasses[i]),
	}
	m.classes[i].Store(c)
	return c
}

func (m *opMetrics) size() *sizeMetrics {
	if s := m.sizes.Load(); s != nil {
		return s
	}
	s := &sizeMetrics{req: m.vecs.reqSize.WithLabelValues(m.name, m.method), res: m.vecs.resSize.WithLabelValues(m.name, m.method)}
	m.sizes.Store(s)
	return s
}

type httpMetrics struct {
	ops     map[routeID]*opMetrics
	unknown map[string]*opMetrics // by method; other methods share "other"
	limited map[Group]prometheus.Counter
	// configuration counts the 5xx answers that are an operator's
	// configuration gap (configurationCodes), by code.
	configuration *prometheus.CounterVec
}

// configurationCodes are the 500 codes that mean "the operator has not
// configured this" rather than "the server failed": alerts on 5xx subtract
// them (shipd_configuration_errors_total).
var configurationCodes = map[string]bool{"carrier_not_configured": true, "verifier_not_configured": true}

// knownMethods are the method label values of unknown routes; the rest are "other".
var knownMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions, "other"}

func newHTTPMetrics(reg prometheus.Registerer, ops operations) (*httpMetrics, error) {
	requests := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "shipd_http_requests_total",
		Help: "HTTP requests answered by the API, by operation (the contract's operationId), method and status class.",
	}, []string{"operation", "method", "status_class"})
	duration := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "shipd_http_request_duration_seconds",
		Help:    "Time the API took to answer, by operation, method and status class.",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
	}, []string{"operation", "method", "status_class"})
	sizes := prometheus.ExponentialBuckets(64, 4, 9) // 64 B to 4 MiB
	reqSize := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "shipd_http_request_size_bytes",
		Help:    "Request body sizes (Content-Length), by operation and method.",
		Buckets: sizes,
	}, []string{"operation", "method"})
	resSize := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "shipd_http_response_size_bytes",
		Help:    "Response body sizes, by operation and method.",
		Buckets: sizes,
	}, []string{"operation", "method"})
	replays := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "shipd_idempotency_replays_total",
		Help: "Creates answered with the stored result of an earlier request with the same idempotencyKey, by operation.",
	}, []string{"operation"})
	collisions := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "shipd_idempotency_collisions_total",
		Help: "Creates refused because their idempotencyKey was used with a different body (409), by operation.",
	}, []string{"operation"})
	limited := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "shipd_rate_limited_requests_total",
		Help: "Requests refused with 429 by rate limiting, by endpoint group (failed_auth: failed authentications per client address).",
	}, []string{"group"})
	configuration := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "shipd_configuration_errors_total",
		Help: "Requests answered 500 because the operator has not configured what they need (carrier_not_configured, verifier_not_configured), by code; also counted in shipd_http_requests_total's 5xx.",
	}, []string{"code"})
	for _, c := range []prometheus.Collector{requests, duration, reqSize, resSize, replays, collisions, limited, configuration} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}

	vecs := &httpVecs{requests: requests, replays: replays, collisions: collisions, duration: duration, reqSize: reqSize, resSize: resSize}
	op := func(name, method string, idempotent bool) *opMetrics {
		m := &opMetrics{name: name, method: method, vecs: vecs}
		if idempotent {
			m.replays, m.collisions = replays.WithLabelValues(name), collisions.WithLabelValues(name)
		}
		return m
	}
	m := &httpMetrics{ops: map[routeID]*opMetrics{}, unknown: map[string]*opMetrics{}, limited: map[Group]prometheus.Counter{}, configuration: configuration}
	for key, o := range ops {
		method, path, _ := strings.Cut(key, " ")
		m.ops[routeID{method, path}] = op(o.route.Operation.OperationID, method, o.idempotent)
	}
	m.ops[routeID{http.MethodGet, "/healthz"}] = op("healthz", http.MethodGet, false)
	m.ops[routeID{http.MethodGet, "/readyz"}] = op("readyz", http.MethodGet, false)
	for _, method := range knownMethods {
		m.unknown[method] = op(unknownOperation, method, false)
	}
	for _, g := range limitedGroups() {
		m.limited[g] = limited.WithLabelValues(string(g))
	}
	return m, nil
}

// of returns the observers of a request's route.
func (m *httpMetrics) of(method, path string) *opMetrics {
	if o := m.ops[routeID{method, path}]; o != nil {
		return o
	}
	if o := m.unknown[method]; o != nil {
		return o
	}
	return m.unknown["other"]
}

// operationName is the operationId of a request's route, for its span.
func (s *Server) operationName(method, path string) string {
	if s.metrics != nil {
		return s.metrics.of(method, path).name
	}
	if o := s.ops[routeKey(method, path)]; o != nil {
		return o.route.Operation.OperationID
	}
	return unknownOperation
}

// measure observes each request's status class, latency and sizes, and the
// idempotent replays and collisions. It sits inside the access log and
// answers errors itself (writeError), so that it sees both the error and
// the status it was answered with; the access log then has nothing to write.
func (s *Server) measure(next echo.HandlerFunc) echo.HandlerFunc {
	if s.metrics == nil {
		return next
	}
	return func(c echo.Context) error {
		start := time.Now()
		err := next(c)
		req := c.Request()
		m := s.metrics.of(req.Method, c.Path())
		if err != nil {
			if m.collisions != nil && errors.Is(err, idempotency.ErrCollision) {
				m.collisions.Inc()
			}
			s.writeError(c, err)
		}
		res := c.Response()
		class := m.class(res.Status)
		class.requests.Inc()
		class.duration.Observe(time.Since(start).Seconds())
		size := m.size()
		if req.ContentLength >= 0 {
			size.req.Observe(float64(req.ContentLength))
		}
		size.res.Observe(float64(res.Size))
		if m.replays != nil {
			if meta, _ := req.Context().Value(responseKey).(*responseMeta); meta != nil && meta.replayed {
				m.replays.Inc()
			}
		}
		return nil
	}
}

// traceRequests runs each request in a span named by its operationId,
// continuing the caller's trace when it sends a W3C traceparent. Without a
// tracer it still honours a traceparent: the request's log lines and the
// jobs it queues carry the caller's trace id.
func (s *Server) traceRequests(next echo.HandlerFunc) echo.HandlerFunc {
	prop := propagation.TraceContext{}
	if s.tracer == nil {
		return func(c echo.Context) error {
			req := c.Request()
			if _, ok := req.Header["Traceparent"]; !ok {
				return next(c)
			}
			ctx := prop.Extract(req.Context(), propagation.HeaderCarrier(req.Header))
			c.SetRequest(req.WithContext(ctx))
			return next(c)
		}
	}
	return func(c echo.Context) error {
		req := c.Request()
		ctx := prop.Extract(req.Context(), propagation.HeaderCarrier(req.Header))
		ctx, span := s.tracer.Start(ctx, s.operationName(req.Method, c.Path()), trace.WithSpanKind(trace.SpanKindServer),
			trace.WithAttributes(
				attribute.String("http.request.method", req.Method),
				attribute.String("http.route", c.Path()),
				attribute.String("shipd.request_id", requestIDFrom(ctx)),
			))
		defer span.End()
		c.SetRequest(req.WithContext(ctx))
		err := next(c)
		status := c.Response().Status
		span.SetAttributes(attribute.Int("http.response.status_code", status))
		if status >= 500 {
			span.SetStatus(codes.Error, http.StatusText(status))
		}
		return err
	}
}

// countingLimiter counts the requests its Limiter refuses (each one a 429), per group.
type countingLimiter struct {
	Limiter
	counted map[Group]prometheus.Counter
}

func (l countingLimiter) Allow(ctx context.Context, key string, group Group, now time.Time) Decision {
	d := l.Limiter.Allow(ctx, key, group, now)
	if !d.Allowed {
		if c := l.counted[group]; c != nil {
			c.Inc()
		}
	}
	return d
}

// RequestID is the id of the request ctx belongs to ("" outside one): the
// X-Request-Id the response carries, for log lines written deeper down.
func RequestID(ctx context.Context) string { return requestIDFrom(ctx) }

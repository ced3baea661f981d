package telemetry

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/webhooks"
)

var (
	_ shipping.Observer = (*ShipmentMetrics)(nil)
	_ webhooks.Observer = (*WebhookMetrics)(nil)
)

// ShipmentMetrics counts purchases, voids and label documents; it is the
// shipping service's Observer.
type ShipmentMetrics struct {
	purchases       *prometheus.CounterVec
	purchaseLatency *prometheus.HistogramVec
	refunds         *prometheus.CounterVec
	labels          prometheus.Counter
	unusable        *prometheus.CounterVec
}

func newShipmentMetrics(reg prometheus.Registerer) (*ShipmentMetrics, error) {
	m := &ShipmentMetrics{
		purchases: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "shipd_purchases_total",
			Help: "Purchase attempts by carrier and outcome: purchased, deferred (carrier unavailable, retried later) or failed.",
		}, []string{"carrier", "outcome"}),
		purchaseLatency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "shipd_purchase_duration_seconds",
			Help:    "Time from a label's create request to its purchase, by carrier.",
			Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300},
		}, []string{"carrier"}),
		refunds: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "shipd_refunds_total",
			Help: "Void attempts by carrier and outcome: voided, requested (the carrier settles later), rejected or error (retried).",
		}, []string{"carrier", "outcome"}),
		labels: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "shipd_label_documents_stored_total",
			Help: "Label documents written to the label store.",
		}),
		unusable: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "shipd_unusable_labels_total",
			Help: "Voids of labels a carrier sold for a purchase whose answer could not be used, by carrier and outcome: voided, requested (the carrier settles later), not_sold (the carrier says it sold nothing), error (retried) or not_voided (for good: settle the label with the carrier).",
		}, []string{"carrier", "outcome"}),
	}
	return m, registerAll(reg, m.purchases, m.purchaseLatency, m.refunds, m.labels, m.unusable)
}

// PurchaseFinished counts one purchase attempt; a purchased one also
// observes the time since its create.
func (m *ShipmentMetrics) PurchaseFinished(carrier, outcome string, sinceCreate time.Duration) {
	m.purchases.WithLabelValues(carrier, outcome).Inc()
	if outcome == shipping.PurchaseOutcomePurchased {
		m.purchaseLatency.WithLabelValues(carrier).Observe(sinceCreate.Seconds())
	}
}

// RefundFinished counts one void attempt.
func (m *ShipmentMetrics) RefundFinished(carrier, outcome string) {
	m.refunds.WithLabelValues(carrier, outcome).Inc()
}

// LabelStored counts one label document written.
func (m *ShipmentMetrics) LabelStored() { m.labels.Inc() }

// UnusableLabel counts one attempt to void an unusable label.
func (m *ShipmentMetrics) UnusableLabel(carrier, outcome string) {
	m.unusable.WithLabelValues(carrier, outcome).Inc()
}

// WebhookMetrics counts delivery attempts and traces them; it is the
// delivery jobs' Observer.
type WebhookMetrics struct {
	tracer     trace.Tracer // nil: no spans
	deliveries *prometheus.CounterVec
	latency    prometheus.Histogram
}

// maxAttemptLabel bounds the attempt label: automatic attempts past it
// (a schedule longer than the default five) share one value.
const maxAttemptLabel = 10

func newWebhookMetrics(reg prometheus.Registerer, tracer trace.Tracer) (*WebhookMetrics, error) {
	m := &WebhookMetrics{
		tracer: tracer,
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "shipd_webhook_deliveries_total",
			Help: "Webhook delivery attempts by outcome (delivered, retrying, failed, dropped) and attempt (the automatic attempt's number, or manual).",
		}, []string{"outcome", "attempt"}),
		latency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "shipd_webhook_delivery_latency_seconds",
			Help:    "Time from an event to its receiver's 2xx answer, retries included.",
			Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200, 21600},
		}),
	}
	return m, registerAll(reg, m.deliveries, m.latency)
}

func attemptLabel(auto int) string {
	switch {
	case auto <= 0:
		return "manual"
	case auto > maxAttemptLabel:
		return strconv.Itoa(maxAttemptLabel) + "+"
	default:
		return strconv.Itoa(auto)
	}
}

// AttemptStarted opens the attempt's span (when tracing).
func (m *WebhookMetrics) AttemptStarted(ctx context.Context, eventType string, auto int) (context.Context, func(int, bool)) {
	if m.tracer == nil {
		return ctx, func(int, bool) {}
	}
	ctx, span := m.tracer.Start(ctx, "webhook.attempt", trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("shipd.event.type", eventType), attribute.String("shipd.webhook.attempt", attemptLabel(auto))))
	return ctx, func(status int, delivered bool) {
		if status > 0 {
			span.SetAttributes(attribute.Int("http.response.status_code", status))
		}
		if !delivered {
			span.SetStatus(codes.Error, "not delivered")
		}
		span.End()
	}
}

// AttemptRecorded counts one recorded attempt.
func (m *WebhookMetrics) AttemptRecorded(outcome string, auto int, sinceEvent time.Duration) {
	m.deliveries.WithLabelValues(outcome, attemptLabel(auto)).Inc()
	if outcome == webhooks.AttemptOutcomeDelivered {
		m.latency.Observe(max(sinceEvent, 0).Seconds())
	}
}

// carrierMetrics counts and times carrier calls.
type carrierMetrics struct {
	tracer    trace.Tracer // nil: no spans
	calls     *prometheus.CounterVec
	latency   *prometheus.HistogramVec
	errors    *prometheus.CounterVec
	refreshes *prometheus.CounterVec
	quota     *prometheus.CounterVec
}

func newCarrierMetrics(reg prometheus.Registerer, tracer trace.Tracer) (*carrierMetrics, error) {
	m := &carrierMetrics{
		tracer: tracer,
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "shipd_carrier_calls_total",
			Help: "Calls to carriers by carrier and operation (rates, buy, void, track, tracking_plan).",
		}, []string{"carrier", "operation"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "shipd_carrier_call_duration_seconds",
			Help:    "Time carriers took to answer, by carrier and operation.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"carrier", "operation"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "shipd_carrier_errors_total",
			Help: "Failed carrier calls by carrier, operation and kind: unavailable, rejected, failed, invalid, timeout, canceled or other.",
		}, []string{"carrier", "operation", "kind"}),
		refreshes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "shipd_carrier_token_refreshes_total",
			Help: "OAuth access tokens fetched from live carriers, by carrier.",
		}, []string{"carrier"}),
		quota: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "shipd_carrier_quota_decisions_total",
			Help: "Decisions of the carrier call budgets by carrier, API (rates, labels, tracking, manifests, pickups) and decision: taken (the call went), deferred (a tracking poll waits), refused (a purchase, void, quote, manifest or pickup found no budget), paused (the carrier answered 429), error (the limiter failed; the call went).",
		}, []string{"carrier", "api", "decision"}),
	}
	return m, registerAll(reg, m.calls, m.latency, m.errors, m.refreshes, m.quota)
}

// ObserveCarrier is the carriers.Observe of this telemetry: every call is
// counted, timed, classified when it fails and, when tracing, a span.
func (t *Telemetry) ObserveCarrier(ctx context.Context, carrier, operation string) (context.Context, func(error)) {
	m := t.carriers
	var span trace.Span
	if m.tracer != nil {
		ctx, span = m.tracer.Start(ctx, "carrier."+operation, trace.WithSpanKind(trace.SpanKindClient),
			trace.WithAttributes(attribute.String("shipd.carrier", carrier)))
	}
	start := time.Now()
	return ctx, func(err error) {
		m.calls.WithLabelValues(carrier, operation).Inc()
		m.latency.WithLabelValues(carrier, operation).Observe(time.Since(start).Seconds())
		if err != nil {
			kind := carrierErrorKind(err)
			m.errors.WithLabelValues(carrier, operation, kind).Inc()
			if span != nil {
				span.SetAttributes(attribute.String("error.type", kind))
				span.SetStatus(codes.Error, err.Error())
			}
		}
		if span != nil {
			span.End()
		}
	}
}

// CarrierQuotaDecision counts a decision of the carrier budgets (carriers.QuotaConfig.OnDecision).
func (t *Telemetry) CarrierQuotaDecision(carrier, api, decision string) {
	t.carriers.quota.WithLabelValues(carrier, api, decision).Inc()
}

// CarrierTokenRefreshed returns the function a live carrier calls after
// each new OAuth token (its OnTokenRefresh).
func (t *Telemetry) CarrierTokenRefreshed(carrier string) func() {
	c := t.carriers.refreshes.WithLabelValues(carrier)
	return c.Inc
}

// isTooManyRequests reports whether the carrier answered 429.
func isTooManyRequests(err error) bool {
	var ce *carriers.Error
	return errors.As(err, &ce) && ce.HTTPStatus == http.StatusTooManyRequests
}

// carrierErrorKind names a carrier error by its sentinel; the context's
// errors first, since a carrier may report a deadline as unavailability.
func carrierErrorKind(err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "canceled"
	case isTooManyRequests(err):
		return "rate_limited"
	case errors.Is(err, carriers.ErrUnavailable):
		return "unavailable"
	case errors.Is(err, carriers.ErrRejected):
		return "rejected"
	case errors.Is(err, carriers.ErrFailed):
		return "failed"
	case errors.Is(err, carriers.ErrInvalidShipment), errors.Is(err, carriers.ErrCustomsRequired):
		return "invalid"
	default:
		return "other"
	}
}

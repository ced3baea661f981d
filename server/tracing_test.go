package server_test

// Traces, as an OpenTelemetry collector receives them: the SDK's in-memory
// exporter stands in for the collector, and traffic goes through the public
// API with a W3C traceparent, as a caller's own tracing would send it.

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/connectors"

	"github.com/google/go-cmp/cmp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/shipd-dev/shipd/app"
	"github.com/shipd-dev/shipd/telemetry"
)

// withTracing traces with tp.
func withTracing(t *testing.T, tp trace.TracerProvider) setupOption {
	return func(c *app.Config) {
		tel, err := telemetry.New(telemetry.Config{TracerProvider: tp})
		if err != nil {
			t.Fatal(err)
		}
		c.Telemetry = tel
	}
}

const (
	callerTraceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	callerSpanID  = "00f067aa0ba902b7"
	traceparent   = "00-" + callerTraceID + "-" + callerSpanID + "-01"
)

// edge is a span and what it hangs from: its parent's name, or "caller" for
// the span of the traceparent received.
type edge struct{ Span, Parent string }

// TestTracesFollowAPurchase: one purchase is one trace, continuing the
// caller's, from the create request through its purchase job and carrier
// call to the webhook delivery job and its attempt; a tracking scan queued
// for later starts a trace of its own linked to the purchase job's span; the
// access log line of the create carries the trace id and the request id.
func TestTracesFollowAPurchase(t *testing.T) {
	t.Parallel()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	var logs syncBuffer
	b := setup(t, withTracing(t, tp), withSandbox(1500*time.Millisecond), withLogs(&logs))
	rc := newReceiver(t)
	subscribe(t, b, rc, "/hooks", "shipment.purchased")

	r, err := b.send("POST", "/api/v1/labels/create", b.token, deliveryShipmentBody(), "traceparent", traceparent)
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, r, http.StatusAccepted)
	id := r.JSON(t)["id"].(string)
	waitForStatus(t, b, b.token, id, "purchased")
	waitUntil(t, "the webhook delivered and the first tracking scan run", func() bool {
		return len(rc.requests("/hooks")) == 1 && slices.ContainsFunc(exp.GetSpans(), func(s tracetest.SpanStub) bool {
			return s.Name == "job tracking_scan" && s.EndTime.After(s.StartTime)
		})
	})
	// a job's span ends once its work is done, a moment after the receiver has the webhook
	waitUntil(t, "the delivery job's span to end", func() bool {
		return slices.ContainsFunc(exp.GetSpans(), func(s tracetest.SpanStub) bool { return s.Name == "job webhook_fan_out" })
	})

	spans := exp.GetSpans()
	byID := map[trace.SpanID]tracetest.SpanStub{}
	for _, s := range spans {
		byID[s.SpanContext.SpanID()] = s
	}
	var purchase []edge
	var purchaseJob tracetest.SpanStub
	for _, s := range spans {
		if s.SpanContext.TraceID().String() != callerTraceID {
			continue
		}
		parent := "missing"
		if p, ok := byID[s.Parent.SpanID()]; ok {
			parent = p.Name
		} else if s.Parent.SpanID().String() == callerSpanID && s.Parent.IsRemote() {
			parent = "caller"
		}
		if s.Name == "job purchase_label" {
			purchaseJob = s
		}
		if s.Name == "db.tx" {
			if parent == "missing" {
				t.Errorf("a transaction span of the trace has no parent in it")
			}
			continue
		}
		purchase = append(purchase, edge{s.Name, parent})
	}
	slices.SortFunc(purchase, func(a, b edge) int { return strings.Compare(a.Span+a.Parent, b.Span+b.Parent) })
	want := []edge{
		{"carrier.buy", "job purchase_label"},
		{"carrier.tracking_plan", "job purchase_label"},
		{"createLabel", "caller"},
		{"job purchase_label", "createLabel"},
		{"job webhook_fan_out", "job purchase_label"},
		{"webhook.attempt", "job webhook_fan_out"},
	}
	// The create quotes every sandbox carrier that ships from the US.
	for _, d := range connectors.All() {
		if d.Sandbox != nil && d.Serves(carriers.Shipment{From: carriers.Address{Country: "US"}}) {
			want = append(want, edge{"carrier.rates", "createLabel"})
		}
	}
	slices.SortFunc(want, func(a, b edge) int { return strings.Compare(a.Span+a.Parent, b.Span+b.Parent) })
	if diff := cmp.Diff(want, purchase); diff != "" {
		t.Errorf("the purchase's trace (-want +got):\n%s", diff)
	}

	// the scan, due later, is a trace of its own linked to the purchase job
	i := slices.IndexFunc(spans, func(s tracetest.SpanStub) bool { return s.Name == "job tracking_scan" })
	scan := spans[i]
	if scan.SpanContext.TraceID().String() == callerTraceID || scan.Parent.IsValid() {
		t.Errorf("the tracking scan continues the purchase's trace: parent %v", scan.Parent)
	}
	if len(scan.Links) != 1 || scan.Links[0].SpanContext.SpanID() != purchaseJob.SpanContext.SpanID() {
		t.Errorf("the tracking scan's links %+v, want the purchase job's span %s", scan.Links, purchaseJob.SpanContext.SpanID())
	}

	// the create's access log line carries the trace id and the request id
	line := logLine(t, logs.String(), "route=/api/v1/labels/create")
	for _, want := range []string{"trace_id=" + callerTraceID, "request_id=" + r.Header.Get("X-Request-Id")} {
		if !strings.Contains(line, want) {
			t.Errorf("access log line %q lacks %s", line, want)
		}
	}
}

// TestTraceparentReachesLogsWithoutTracing: with tracing off, a traceparent
// received still joins the logs: the request's access log line and the log
// lines of the jobs it queued carry the caller's trace id.
func TestTraceparentReachesLogsWithoutTracing(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	b := setup(t, withLogs(&logs))
	r, err := b.send("POST", "/api/v1/labels/create", b.token, labelBody(withToName("Fail Purchase")), "traceparent", traceparent)
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, r, http.StatusAccepted)
	waitForStatus(t, b, b.token, r.JSON(t)["id"].(string), "failed")
	for _, marker := range []string{"route=/api/v1/labels/create", `msg="purchase failed"`} {
		if line := logLine(t, logs.String(), marker); !strings.Contains(line, "trace_id="+callerTraceID) {
			t.Errorf("log line %q lacks the caller's trace id", line)
		}
	}
}

// logLine is the one log line containing marker.
func logLine(t *testing.T, logs, marker string) string {
	t.Helper()
	var found []string
	for line := range strings.Lines(logs) {
		if strings.Contains(line, marker) {
			found = append(found, strings.TrimSpace(line))
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d log lines with %q, want 1:\n%s", len(found), marker, logs)
	}
	return found[0]
}

package telemetry

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/riverqueue/river/rivertype"
	"go.opentelemetry.io/otel/trace"
)

func TestTracerProviderFromEnv(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		env     map[string]string
		tracing bool
		fails   bool
	}{
		{name: "nothing set: off", env: nil},
		{name: "endpoint: OTLP over HTTP", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, tracing: true},
		{name: "traces endpoint over gRPC", env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, tracing: true},
		{name: "traces protocol wins", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf"}, tracing: true},
		{name: "SDK disabled", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_SDK_DISABLED": "true"}},
		{name: "traces exporter none", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_TRACES_EXPORTER": "none"}},
		{name: "an exporter shipd lacks", env: map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, fails: true},
		{name: "an unknown protocol", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "thrift"}, fails: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tp, err := TracerProviderFromEnv(context.Background(), func(k string) string { return c.env[k] })
			if (err != nil) != c.fails {
				t.Fatalf("err = %v, want failure %v", err, c.fails)
			}
			if (tp != nil) != c.tracing {
				t.Fatalf("tracing = %v, want %v", tp != nil, c.tracing)
			}
			if tp != nil {
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
				defer cancel()
				if err := tp.Shutdown(ctx); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// TestJobTraceRoundTrip: a job due now carries its enqueuer's span as parent,
// one scheduled for later as a link; metadata already there is kept; no
// trace, no metadata written.
func TestJobTraceRoundTrip(t *testing.T) {
	t.Parallel()
	sc := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{1, 2, 3}, SpanID: trace.SpanID{4, 5, 6}, TraceFlags: trace.FlagsSampled,
	})
	later := time.Now().Add(time.Hour)
	soon := time.Now().Add(100 * time.Millisecond)
	params := []*rivertype.JobInsertParams{
		{Metadata: []byte("{}")},
		{Metadata: []byte("{}"), ScheduledAt: &soon},
		{Metadata: []byte("{}"), ScheduledAt: &later},
		{Metadata: []byte(`{"note":"kept"}`)},
	}
	insert := func(ctx context.Context) {
		t.Helper()
		mw := JobInsertMiddleware().(rivertype.JobInsertMiddleware)
		if _, err := mw.InsertMany(ctx, params, func(context.Context) ([]*rivertype.JobInsertResult, error) { return nil, nil }); err != nil {
			t.Fatal(err)
		}
	}
	insert(context.Background())
	if string(params[0].Metadata) != "{}" {
		t.Fatalf("metadata without a trace: %s", params[0].Metadata)
	}
	insert(trace.ContextWithSpanContext(context.Background(), sc))

	type read struct{ Parent, Link string }
	var got []read
	for _, p := range params {
		parent, link := jobTrace(p.Metadata)
		r := read{}
		if parent.IsValid() {
			r.Parent = parent.TraceID().String() + "/" + parent.SpanID().String()
		}
		if link.IsValid() {
			r.Link = link.TraceID().String() + "/" + link.SpanID().String()
		}
		got = append(got, r)
	}
	id := sc.TraceID().String() + "/" + sc.SpanID().String()
	want := []read{{Parent: id}, {Parent: id}, {Link: id}, {Parent: id}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("traces read back (-want +got):\n%s", diff)
	}
	var kept map[string]string
	if err := json.Unmarshal(params[3].Metadata, &kept); err != nil || kept["note"] != "kept" {
		t.Errorf("metadata already there was lost: %s", params[3].Metadata)
	}
}

package telemetry

import (
	"context"
	"log/slog"

	"go.opentelemetry.io/otel/trace"
)

// LogHandler writes on every record logged with a context (the *Context and
// LogAttrs methods) the trace and span ids of that context's span, and the
// request id requestID finds in it (nil: none) unless the record has one:
// every line of a traced request or job, the access log's included, can be
// joined to the others. A context with neither costs two lookups.
func LogHandler(h slog.Handler, requestID func(context.Context) string) slog.Handler {
	return traceHandler{h, requestID}
}

type traceHandler struct {
	slog.Handler
	requestID func(context.Context) string
}

func (h traceHandler) Handle(ctx context.Context, r slog.Record) error {
	var add [3]slog.Attr
	n := 0
	if h.requestID != nil {
		if id := h.requestID(ctx); id != "" && !hasAttr(r, "request_id") {
			add[n] = slog.String("request_id", id)
			n++
		}
	}
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		add[n] = slog.String("trace_id", sc.TraceID().String())
		add[n+1] = slog.String("span_id", sc.SpanID().String())
		n += 2
	}
	if n > 0 {
		r = r.Clone()
		r.AddAttrs(add[:n]...)
	}
	return h.Handler.Handle(ctx, r)
}

func hasAttr(r slog.Record, key string) bool {
	found := false
	r.Attrs(func(a slog.Attr) bool {
		found = a.Key == key
		return !found
	})
	return found
}

func (h traceHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return traceHandler{h.Handler.WithAttrs(attrs), h.requestID}
}

func (h traceHandler) WithGroup(name string) slog.Handler {
	return traceHandler{h.Handler.WithGroup(name), h.requestID}
}

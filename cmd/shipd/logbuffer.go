package main

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"time"
)

// logBuffer gathers the access log's lines and writes them in one system
// call per flush: one write per request was 4% of a GET's CPU
// (bench/README.md). They wait at most flushAfter or until the buffer holds
// flushAt bytes, as nginx's buffered access_log does; every other line, and
// an access line at Warn or above, goes out at once with the lines before
// it (bufferedHandler), so the log keeps its order. A crash that kills the
// process loses at most flushAfter of access lines; the server's stop
// flushes the rest.
type logBuffer struct {
	out        io.Writer
	flushAt    int
	flushAfter time.Duration

	mu      sync.Mutex
	buf     []byte
	timer   *time.Timer // armed while buf holds lines
	stopped bool        // after close, lines go straight out
}

func newLogBuffer(out io.Writer, flushAt int, flushAfter time.Duration) *logBuffer {
	return &logBuffer{out: out, flushAt: flushAt, flushAfter: flushAfter}
}

// Write keeps p, one whole line from slog's handler, for the next flush.
func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stopped {
		return b.out.Write(p)
	}
	b.buf = append(b.buf, p...)
	if len(b.buf) >= b.flushAt {
		return len(p), b.flushLocked()
	}
	if b.timer == nil {
		b.timer = time.AfterFunc(b.flushAfter, b.flushFromTimer)
	}
	return len(p), nil
}

// Flush writes what is kept now.
func (b *logBuffer) Flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.flushLocked()
}

func (b *logBuffer) flushFromTimer() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.timer = nil
	_ = b.flushLocked() // nowhere to report a log's own write error
}

func (b *logBuffer) flushLocked() error {
	if b.timer != nil {
		b.timer.Stop()
		b.timer = nil
	}
	if len(b.buf) == 0 {
		return nil
	}
	_, err := b.out.Write(b.buf)
	if cap(b.buf) > 4*b.flushAt {
		b.buf = nil // a burst of long lines does not keep its memory
	} else {
		b.buf = b.buf[:0]
	}
	return err
}

// Close flushes, and every later line is written at once.
func (b *logBuffer) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.stopped = true
	return b.flushLocked()
}

// bufferedHandler writes its records through a logBuffer and flushes it
// after each one, unless the record may wait (an access log's, below Warn).
type bufferedHandler struct {
	slog.Handler
	buf   *logBuffer
	waits bool // this handler's records below Warn may wait for the next flush
}

// newBufferedLogs returns the server's log and its access log, both JSON
// lines through buf; only the access log's lines wait.
func newBufferedLogs(buf *logBuffer, opts *slog.HandlerOptions) (log, access *slog.Logger) {
	return slog.New(bufferedHandler{Handler: slog.NewJSONHandler(buf, opts), buf: buf}),
		slog.New(bufferedHandler{Handler: slog.NewJSONHandler(buf, opts), buf: buf, waits: true})
}

func (h bufferedHandler) Handle(ctx context.Context, r slog.Record) error {
	err := h.Handler.Handle(ctx, r)
	if !h.waits || r.Level >= slog.LevelWarn {
		if ferr := h.buf.Flush(); err == nil {
			err = ferr
		}
	}
	return err
}

func (h bufferedHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return bufferedHandler{Handler: h.Handler.WithAttrs(attrs), buf: h.buf, waits: h.waits}
}

func (h bufferedHandler) WithGroup(name string) slog.Handler {
	return bufferedHandler{Handler: h.Handler.WithGroup(name), buf: h.buf, waits: h.waits}
}

package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// lockedBuffer is the log's destination, read while lines are written.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
	n   int // writes
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.n++
	return b.buf.Write(p)
}

func (b *lockedBuffer) lines() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Fields(b.buf.String())
}

func (b *lockedBuffer) writes() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.n
}

// messages are the msg of each JSON line, in order.
func messages(t *testing.T, out *lockedBuffer) []string {
	t.Helper()
	out.mu.Lock()
	defer out.mu.Unlock()
	var msgs []string
	for line := range strings.Lines(out.buf.String()) {
		_, rest, ok := strings.Cut(line, `"msg":"`)
		if !ok {
			t.Fatalf("not a log line: %q", line)
		}
		msg, _, _ := strings.Cut(rest, `"`)
		msgs = append(msgs, msg)
	}
	return msgs
}

func bufferedLogger(out *lockedBuffer, flushAt int, flushAfter time.Duration) (*slog.Logger, *logBuffer) {
	b := newLogBuffer(out, flushAt, flushAfter)
	noTime := func(_ []string, a slog.Attr) slog.Attr { // lines of a known length
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}
	return slog.New(bufferedHandler{Handler: slog.NewJSONHandler(b, &slog.HandlerOptions{ReplaceAttr: noTime}), buf: b}), b
}

func TestLogLinesWaitButWarningsDoNot(t *testing.T) {
	out := &lockedBuffer{}
	log, b := bufferedLogger(out, 1<<20, time.Hour)
	defer b.Close()
	log.Info("first")
	log.Info("second")
	if got := out.lines(); len(got) != 0 {
		t.Fatalf("info lines went out before a flush: %q", got)
	}
	log.With("k", "v").Warn("third")
	if diff := cmp.Diff([]string{"first", "second", "third"}, messages(t, out)); diff != "" {
		t.Errorf("after a warning (-want +got):\n%s", diff)
	}
	if n := out.writes(); n != 1 {
		t.Errorf("three lines in %d writes, want one", n)
	}
	log.Info("fourth")
	log.Error("fifth")
	if diff := cmp.Diff([]string{"first", "second", "third", "fourth", "fifth"}, messages(t, out)); diff != "" {
		t.Errorf("after an error (-want +got):\n%s", diff)
	}
}

func TestLogBufferFlushesWhenFull(t *testing.T) {
	out := &lockedBuffer{}
	log, b := bufferedLogger(out, 100, time.Hour)
	defer b.Close()
	for i := range 3 {
		log.Info(fmt.Sprint("line", i)) // {"level":"INFO","msg":"lineN"}: 31 bytes
	}
	if got := out.lines(); len(got) != 0 {
		t.Fatalf("flushed below the size: %q", got)
	}
	log.Info("line3")
	if diff := cmp.Diff([]string{"line0", "line1", "line2", "line3"}, messages(t, out)); diff != "" {
		t.Errorf("at the size (-want +got):\n%s", diff)
	}
}

func TestLogBufferFlushesAfterItsDelay(t *testing.T) {
	out := &lockedBuffer{}
	log, b := bufferedLogger(out, 1<<20, 10*time.Millisecond)
	defer b.Close()
	log.Info("waiting")
	deadline := time.Now().Add(10 * time.Second)
	for len(out.lines()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("a waiting line never went out")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if diff := cmp.Diff([]string{"waiting"}, messages(t, out)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	log.Info("again") // the timer is armed again for the next line
	for len(messages(t, out)) < 2 {
		if time.Now().After(deadline) {
			t.Fatal("the second waiting line never went out")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestLogBufferCloseFlushesAndStopsWaiting(t *testing.T) {
	out := &lockedBuffer{}
	log, b := bufferedLogger(out, 1<<20, time.Hour)
	log.Info("before")
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	log.Info("after")
	if diff := cmp.Diff([]string{"before", "after"}, messages(t, out)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// Lines written at once by many goroutines come out whole, each once.
func TestLogBufferConcurrentLines(t *testing.T) {
	out := &lockedBuffer{}
	log, b := bufferedLogger(out, 512, time.Millisecond)
	var wg sync.WaitGroup
	const writers, each = 8, 200
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				log.InfoContext(context.Background(), fmt.Sprintf("w%d-%d", w, i))
			}
		})
	}
	wg.Wait()
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, m := range messages(t, out) {
		seen[m]++
	}
	for w := range writers {
		for i := range each {
			if n := seen[fmt.Sprintf("w%d-%d", w, i)]; n != 1 {
				t.Errorf("w%d-%d written %d times", w, i, n)
			}
		}
	}
}

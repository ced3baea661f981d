package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
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

// bufferedLoggers are serve's two logs through one buffer, without times
// so that lines have a known length.
func bufferedLoggers(out *lockedBuffer, flushAt int, flushAfter time.Duration) (log, access *slog.Logger, b *logBuffer) {
	b = newLogBuffer(out, flushAt, flushAfter)
	noTime := func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}
	log, access = newBufferedLogs(b, &slog.HandlerOptions{ReplaceAttr: noTime})
	return log, access, b
}

func TestAccessLinesWaitButOtherLinesDoNot(t *testing.T) {
	out := &lockedBuffer{}
	log, access, b := bufferedLoggers(out, 1<<20, time.Hour)
	defer b.Close()
	access.Info("first")
	access.Info("second")
	if got := out.lines(); len(got) != 0 {
		t.Fatalf("access lines went out before a flush: %q", got)
	}
	log.With("k", "v").Info("third")
	if diff := cmp.Diff([]string{"first", "second", "third"}, messages(t, out)); diff != "" {
		t.Errorf("after a line of the server's log (-want +got):\n%s", diff)
	}
	if n := out.writes(); n != 1 {
		t.Errorf("three lines in %d writes, want one", n)
	}
	access.Info("fourth")
	access.Warn("fifth") // an access line at Warn does not wait either
	if diff := cmp.Diff([]string{"first", "second", "third", "fourth", "fifth"}, messages(t, out)); diff != "" {
		t.Errorf("after an access line at Warn (-want +got):\n%s", diff)
	}
}

func TestLogBufferFlushesWhenFull(t *testing.T) {
	out := &lockedBuffer{}
	_, log, b := bufferedLoggers(out, 100, time.Hour)
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
	_, log, b := bufferedLoggers(out, 1<<20, 10*time.Millisecond)
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
	_, log, b := bufferedLoggers(out, 1<<20, time.Hour)
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
	_, log, b := bufferedLoggers(out, 512, time.Millisecond)
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

// A running server's access lines reach its stderr without its stopping,
// each with the request id its client got, after the lines logged before it.
func TestServeWritesItsAccessLog(t *testing.T) {
	t.Parallel()
	s := startServe(t, filepath.Join(t.TempDir(), "shipd.db"))
	req, err := http.NewRequest(http.MethodGet, s.base+"/api/v1/labels/shp_missing", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+s.demoToken(t))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	id := res.Header.Get("X-Request-Id")
	if res.StatusCode != http.StatusNotFound || id == "" {
		t.Fatalf("GET a missing label: %d, request id %q", res.StatusCode, id)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(s.stderr.String(), `"request_id":"`+id+`"`) {
		if time.Now().After(deadline) {
			t.Fatalf("no access line for request %s while serving:\n%s", id, s.stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	listening, access := -1, -1
	for i, line := range strings.Split(s.stderr.String(), "\n") {
		switch {
		case strings.Contains(line, `"msg":"listening"`):
			listening = i
		case strings.Contains(line, `"request_id":"`+id+`"`):
			access = i
			if !strings.Contains(line, `"msg":"request"`) || !strings.Contains(line, `"status":404`) || !strings.Contains(line, `"route":"/api/v1/labels/:id"`) {
				t.Errorf("access line %s", line)
			}
		}
	}
	if listening < 0 || access < listening {
		t.Errorf("the listening line at %d, the access line at %d:\n%s", listening, access, s.stderr.String())
	}
}

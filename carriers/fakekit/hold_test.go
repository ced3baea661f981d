package fakekit_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/carriers/fakekit"
)

// waitUntil polls cond for up to 5 s.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestHeldAnswerWaitsForRelease(t *testing.T) {
	t.Parallel()
	f := startFake(t, t, fakekit.FormBody, nil)
	tok := tokenOf(t, f, clientID, secret)
	f.Hold("echo")
	answered := make(chan reply, 1)
	go func() {
		r, err := send(authed(f, tok, http.MethodPost, "/echo", `{"n":1}`))
		if err != nil {
			r.body = err.Error()
		}
		answered <- r
	}()
	waitUntil(t, "the held call", func() bool { return f.Held("echo") == 1 })
	if f.servedCalls() != 1 {
		t.Fatalf("the handler ran %d times before the release, want once: a hold keeps the answer, not the call", f.servedCalls())
	}
	// Other operations are not held.
	if r := call(t, f, tok, http.MethodGet, "/find", ""); r.status != http.StatusOK {
		t.Errorf("find while echo is held: %d", r.status)
	}
	select {
	case r := <-answered:
		t.Fatalf("answered while held: %d %s", r.status, r.body)
	case <-time.After(50 * time.Millisecond):
	}
	f.Release("echo")
	if r := <-answered; r.status != http.StatusOK || !strings.Contains(r.body, `{\"n\":1}`) {
		t.Errorf("released answer: %d %s", r.status, r.body)
	}
	if n := f.Held("echo"); n != 0 {
		t.Errorf("Held after the release = %d, want 0", n)
	}
	// Released: the next call is answered at once.
	if r := call(t, f, tok, http.MethodPost, "/echo", `{}`); r.status != http.StatusOK {
		t.Errorf("after the release: %d", r.status)
	}
}

func TestHeldAnswerIsDroppedWhenTheClientGoesAway(t *testing.T) {
	t.Parallel()
	f := startFake(t, t, fakekit.FormBody, nil)
	tok := tokenOf(t, f, clientID, secret)
	f.Hold("echo")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := send(authed(f, tok, http.MethodPost, "/echo", `{}`).WithContext(ctx))
		done <- err
	}()
	waitUntil(t, "the held call", func() bool { return f.Held("echo") == 1 })
	cancel() // the client is killed mid-call
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("the killed client got %v, want context.Canceled", err)
	}
	waitUntil(t, "the held answer to be dropped", func() bool { return f.Held("echo") == 0 })
}

func TestCloseEndsHeldAnswers(t *testing.T) {
	t.Parallel()
	f := startFake(t, nil, fakekit.FormBody, nil)
	tok := tokenOf(t, f, clientID, secret)
	f.Hold("echo")
	go func() { _, _ = send(authed(f, tok, http.MethodPost, "/echo", `{}`)) }()
	waitUntil(t, "the held call", func() bool { return f.Held("echo") == 1 })
	closed := make(chan struct{})
	go func() { f.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close waited for a held answer")
	}
}

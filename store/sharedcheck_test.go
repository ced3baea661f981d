package store

import (
	"context"
	"sync"
	"testing"
	"time"
)

// A caller of sharedCheck is never answered by a check that began before it
// asked: one that arrives during a check waits for the next, and callers that
// arrive together share that next one.
func TestSharedCheckNeverAnswersFromAnEarlierCheck(t *testing.T) {
	t.Parallel()
	var c sharedCheck
	var mu sync.Mutex
	started := 0
	releaseFirst, releaseRest := make(chan struct{}), make(chan struct{})
	began := make(chan int, 10)
	check := func(context.Context) (int64, error) {
		mu.Lock()
		started++
		n := started
		mu.Unlock()
		began <- n
		if n == 1 {
			<-releaseFirst
		} else {
			<-releaseRest
		}
		return int64(n), nil
	}
	ctx := t.Context()
	first := make(chan int64, 1)
	go func() { v, _ := c.read(ctx, check); first <- v }()
	if n := <-began; n != 1 {
		t.Fatalf("first check is #%d", n)
	}
	// Three callers arrive while check 1 runs.
	later := make(chan int64, 3)
	for range 3 {
		go func() { v, _ := c.read(ctx, check); later <- v }()
	}
	deadline := time.Now().Add(5 * time.Second)
	for queued := false; !queued; time.Sleep(time.Millisecond) {
		c.mu.Lock()
		queued = c.next != nil
		c.mu.Unlock()
		if time.Now().After(deadline) {
			close(releaseFirst)
			close(releaseRest)
			t.Fatalf("no caller waits for a next check while check 1 runs; they got %d", <-later)
		}
	}
	time.Sleep(20 * time.Millisecond) // let the others join it
	select {
	case v := <-later:
		t.Fatalf("a caller that came during check 1 was answered before it ended: %d", v)
	default:
	}
	close(releaseFirst)
	if v := <-first; v != 1 {
		t.Fatalf("first caller got check %d, want 1", v)
	}
	close(releaseRest)
	for range 3 {
		if v := <-later; v < 2 {
			t.Fatalf("a caller that came during check 1 got its answer (%d)", v)
		}
	}
	// They came together: normally they shared check 2 (a slow machine may
	// have let one arrive after it began).
	if started > 3 {
		t.Errorf("%d checks for 4 callers: the three that came together did not share", started)
	}
}

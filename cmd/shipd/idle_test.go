package main

import (
	"testing"
	"time"

	"github.com/shipd-dev/shipd/carriers/fedex/fedexfake"
)

// On SQLite the server wakes its job workers itself when a transaction that
// inserted jobs commits, and when a job inserted for the next 30 s comes due
// (the tracking polls here, a second apart): with a poll of an hour a label
// is still bought and tracked to delivered. Without the wake-up the first
// tracking poll would wait for the hour's poll.
func TestServeWakesJobWorkersWithoutPolling(t *testing.T) {
	t.Parallel()
	fake := fedexfake.New(t)
	s, token := startLiveFedEx(t, fake, "--live-tracking-interval", "1s", "--job-poll-interval", "1h")
	status, created := s.call(t, "POST", "/api/v1/labels/create", token, liveFedExBody())
	if status != 202 {
		t.Fatalf("create: %d %v", status, created)
	}
	id, _ := created["id"].(string)
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, got := s.call(t, "GET", "/api/v1/labels/"+id, token, nil)
		if got["trackingStatus"] == "delivered" {
			break
		}
		if got["status"] == "failed" {
			t.Fatalf("label failed: %v", got["errorMessage"])
		}
		if time.Now().After(deadline) {
			t.Fatalf("label %s not delivered after 30 s with a job poll of an hour: %v (FedEx tracked %d times)", id, got, fake.Requests(fedexfake.OpTrack))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

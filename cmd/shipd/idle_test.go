package main

import (
	"testing"

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
	waitDelivered(t, s, token, id, fake, "with a job poll of an hour")
}

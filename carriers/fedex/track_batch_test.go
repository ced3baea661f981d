package fedex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/fedex/fedexfake"
)

// trackedNumbers are the numbers of the fake's last Track request.
func trackedNumbers(t *testing.T, fake *fedexfake.Server) []string {
	t.Helper()
	var req trackRequest
	if err := json.Unmarshal(fake.LastRequestBody(fedexfake.OpTrack), &req); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ti := range req.TrackingInfo {
		got = append(got, ti.TrackingNumberInfo.TrackingNumber)
	}
	return got
}

// TrackMany asks for several numbers in one request and gives each its own
// answer, in order: a known label its scans, an unknown number "unknown".
func TestTrackMany(t *testing.T) {
	t.Parallel()
	c, fake := newTestCarrier(t)
	a, b := buyDomestic(t, c, "shp_many_a"), buyDomestic(t, c, "shp_many_b")
	numbers := []string{b.TrackingNumber, "999999999999", a.TrackingNumber}
	rs, err := c.TrackMany(context.Background(), numbers)
	if err != nil {
		t.Fatal(err)
	}
	if n := fake.Requests(fedexfake.OpTrack); n != 1 {
		t.Fatalf("%d track requests for 3 numbers, want 1", n)
	}
	if diff := cmp.Diff(numbers, trackedNumbers(t, fake)); diff != "" {
		t.Errorf("numbers sent (-want +got):\n%s", diff)
	}
	var got []string
	for _, r := range rs {
		if r.Err != nil {
			t.Fatalf("result %v", r.Err)
		}
		got = append(got, r.Update.Status)
	}
	if diff := cmp.Diff([]string{carriers.StatusPreTransit, carriers.StatusUnknown, carriers.StatusPreTransit}, got); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	if _, err := c.TrackMany(context.Background(), make([]string, MaxTrackBatch+1)); !errors.Is(err, carriers.ErrRejected) {
		t.Errorf("31 numbers: %v, want a rejection before any request", err)
	}
}

// Concurrent Track calls through carriers.Batch reach FedEx as one request
// of up to 30 numbers, and each caller gets its own label's answer.
func TestBatchedTrackIsOneRequest(t *testing.T) {
	t.Parallel()
	c, fake := newTestCarrier(t)
	known := buyDomestic(t, c, "shp_batch")
	// The window is long: the batch goes because it is full, not because
	// time passed, so the test does not depend on the scheduler.
	batched := carriers.Batch(c, time.Hour)
	numbers := []string{known.TrackingNumber}
	for i := 1; i < MaxTrackBatch; i++ {
		numbers = append(numbers, fmt.Sprintf("7946999%05d", i))
	}
	statuses := make([]string, len(numbers))
	var wg sync.WaitGroup
	for i, tn := range numbers {
		wg.Go(func() {
			up, err := batched.Track(context.Background(), tn)
			if err != nil {
				t.Errorf("Track %s: %v", tn, err)
			}
			statuses[i] = up.Status
		})
	}
	wg.Wait()
	if n := fake.Requests(fedexfake.OpTrack); n != 1 {
		t.Fatalf("%d track requests for %d concurrent polls, want 1", n, len(numbers))
	}
	if got := trackedNumbers(t, fake); len(got) != MaxTrackBatch {
		t.Fatalf("the request carried %d numbers, want %d", len(got), MaxTrackBatch)
	}
	want := []string{carriers.StatusPreTransit}
	for range MaxTrackBatch - 1 {
		want = append(want, carriers.StatusUnknown)
	}
	if diff := cmp.Diff(want, statuses); diff != "" {
		t.Errorf("each caller's status (-want +got):\n%s", diff)
	}

	// A lone call goes when its window ends, as a plain Track.
	lone := carriers.Batch(c, time.Millisecond)
	if up, err := lone.Track(context.Background(), known.TrackingNumber); err != nil || up.Status != carriers.StatusInTransit {
		t.Fatalf("a lone batched Track: %+v, %v", up.Status, err)
	}
}

package carriers_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/carriers"
)

// many tracks in batches of 3 (CapTrackMany) that counts its requests.
type many struct {
	counting
	mu       sync.Mutex
	requests [][]string
}

func (m *many) Capabilities() carriers.Capabilities {
	return m.counting.Capabilities() | carriers.CapTrackMany
}

func (m *many) MaxTrackBatch() int { return 3 }

func (m *many) TrackMany(_ context.Context, tns []string) ([]carriers.TrackResult, error) {
	m.mu.Lock()
	m.requests = append(m.requests, tns)
	m.mu.Unlock()
	out := make([]carriers.TrackResult, len(tns))
	for i, tn := range tns {
		out[i].Update.Status = "status of " + tn
	}
	return out, nil
}

// A batch is one call of the tracking budget, each caller gets its own
// number's answer, and decorators keep the batching (Instrument, Limit).
func TestBatchTakesOneCallOfTheBudget(t *testing.T) {
	t.Parallel()
	inner := &many{}
	observed := carriers.Instrument(inner, func(ctx context.Context, _, _ string) (context.Context, func(error)) {
		return ctx, func(error) {}
	})
	limited := carriers.Limit(observed, carriers.QuotaConfig{Now: newClock().Now,
		Quotas: carriers.Quotas{{Carrier: "fedex", API: carriers.APITracking}: {Calls: 1, Per: time.Hour}}})
	c := carriers.Batch(limited, time.Hour)
	var wg sync.WaitGroup
	got := make([]string, 3)
	for i, tn := range []string{"A", "B", "C"} {
		wg.Go(func() {
			up, err := c.Track(context.Background(), tn)
			if err != nil {
				t.Errorf("Track %s: %v", tn, err)
			}
			got[i] = up.Status
		})
	}
	wg.Wait()
	if len(inner.requests) != 1 || got[0] != "status of A" || got[1] != "status of B" || got[2] != "status of C" {
		t.Fatalf("requests %v, answers %v; want one request and each its own answer", inner.requests, got)
	}
	// The budget of one call is spent by the batch: the next poll is deferred.
	lone := carriers.Batch(limited, time.Millisecond)
	if _, err := lone.Track(context.Background(), "D"); !errors.Is(err, carriers.ErrOverQuota) {
		t.Fatalf("a poll after the batch: %v, want ErrOverQuota", err)
	}
}

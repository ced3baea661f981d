package quotaredis_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/quotaredis"
)

// testRedis connects to the Redis of SHIPD_TEST_REDIS_URL, or skips the
// test; each call is a new client, as each instance has its own.
func testRedis(t *testing.T) *redis.Client {
	t.Helper()
	url := os.Getenv("SHIPD_TEST_REDIS_URL")
	if url == "" {
		t.Skip("SHIPD_TEST_REDIS_URL is not set; run through scripts/redis-test.sh")
	}
	opts, err := redis.ParseURL(url)
	if err != nil {
		t.Fatalf("SHIPD_TEST_REDIS_URL: %v", err)
	}
	client := redis.NewClient(opts)
	t.Cleanup(func() { client.Close() })
	return client
}

// Two instances (two clients) share one budget, tracking's reserve and a pause.
func TestRedisQuotaShared(t *testing.T) {
	t.Parallel()
	a, b := quotaredis.New(testRedis(t)), quotaredis.New(testRedis(t))
	ctx := context.Background()
	key := fmt.Sprintf("test:%s:%d", t.Name(), time.Now().UnixNano())
	q := carriers.Quota{Calls: 4, Per: time.Hour}
	take := func(l *quotaredis.Limiter, reserve int) bool {
		t.Helper()
		ok, _, err := l.Take(ctx, key, q, reserve)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	var got []bool
	for _, c := range []struct {
		l       *quotaredis.Limiter
		reserve int
	}{{a, 1}, {b, 1}, {a, 1}, {b, 1}, {a, 0}, {b, 0}} {
		got = append(got, take(c.l, c.reserve))
	}
	want := []bool{true, true, true, false, true, false}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("takes %v, want %v: three calls with a reserve of one, the fourth for a call without, then none", got, want)
	}
	other := key + ":paused"
	if err := a.Pause(ctx, other, time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	ok, in, err := b.Take(ctx, other, carriers.Quota{}, 0)
	if err != nil || ok || in <= 0 || in > time.Minute {
		t.Fatalf("paused by the other instance: ok %v, retry in %s, %v", ok, in, err)
	}
	if left, err := b.PausedFor(ctx, other); err != nil || left <= 0 || left > time.Minute {
		t.Fatalf("PausedFor the other instance's pause: %s, %v", left, err)
	}
	if left, err := b.PausedFor(ctx, key); err != nil || left != 0 {
		t.Fatalf("PausedFor a budget that is only spent: %s, %v", left, err)
	}
}

// tracking is a carrier that answers every tracking call, under a name of
// its own so that its budgets' keys are the test's.
type tracking struct {
	carriers.Unsupported
	name string
}

func (c tracking) Name() string                      { return c.name }
func (tracking) Capabilities() carriers.Capabilities { return carriers.CapTrack }
func (tracking) Rates(context.Context, carriers.Shipment) ([]carriers.Rate, error) {
	return nil, nil
}
func (tracking) Buy(context.Context, carriers.BuyRequest) (carriers.Label, error) {
	return carriers.Label{}, nil
}
func (tracking) Void(context.Context, carriers.VoidRequest) (carriers.VoidStatus, error) {
	return carriers.VoidConfirmed, nil
}
func (tracking) Track(context.Context, string) (carriers.TrackingUpdate, error) {
	return carriers.TrackingUpdate{}, nil
}

// Two instances share a tracking budget fairly through Redis: one
// account's trackers, asking on both, borrow it down to half, and another
// account's label still goes on either instance (carriers.Limit's shares).
func TestRedisTrackingShares(t *testing.T) {
	t.Parallel()
	name := fmt.Sprintf("Fair%d", time.Now().UnixNano())
	cfg := func() carriers.QuotaConfig {
		return carriers.QuotaConfig{Limiter: quotaredis.New(testRedis(t)),
			Quotas: carriers.Quotas{{Carrier: strings.ToLower(name), API: carriers.APITracking}: {Calls: 60, Per: time.Hour}}}
	}
	a, b := carriers.Limit(tracking{name: name}, cfg()), carriers.Limit(tracking{name: name}, cfg())
	went := func(c carriers.Carrier, claim carriers.TrackingClaim, n int) int {
		k := 0
		for range n {
			_, err := c.Track(carriers.WithTrackingClaim(context.Background(), claim), "1234")
			if err == nil {
				k++
			} else if !errors.Is(err, carriers.ErrOverQuota) {
				t.Fatal(err)
			}
		}
		return k
	}
	busy := carriers.TrackingClaim{Account: "acct_busy"}
	n := went(a, busy, 100) + went(b, busy, 100)
	// 3 of its share and 27 borrowed; a minute's refill may add one.
	if n < 30 || n > 31 {
		t.Fatalf("the busy account's trackers took %d calls on two instances, want 30 (31 if a minute passed)", n)
	}
	label := carriers.TrackingClaim{Account: "acct_other", Label: true}
	if went(b, label, 1) != 1 || went(a, label, 1) != 1 {
		t.Fatal("another account's label poll was refused beside the busy account's trackers")
	}
}

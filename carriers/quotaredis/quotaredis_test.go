package quotaredis_test

import (
	"context"
	"fmt"
	"os"
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
}

package app_test

// How fast queued purchases drain after a restart: the queue is filled with
// the workers stopped (a crash left them), then shipd starts and works it
// off. Run with make bench-drain; figures go to the closing notes, never
// into assertions.

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/app"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/sandbox"
	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/seal"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/store"
	"github.com/shipd-dev/shipd/store/storetest"
)

// slowBuy gives a sandbox carrier the latency of a real one's purchase.
type slowBuy struct {
	carriers.Carrier
	latency time.Duration
	buys    *atomic.Int64
}

func (c slowBuy) Buy(ctx context.Context, req carriers.BuyRequest) (carriers.Label, error) {
	select {
	case <-time.After(c.latency):
	case <-ctx.Done():
		return carriers.Label{}, ctx.Err()
	}
	c.buys.Add(1)
	return c.Carrier.Buy(ctx, req)
}

func BenchmarkPurchaseDrainAfterRestart(b *testing.B) {
	cases := []struct {
		labels  int
		latency time.Duration
		workers int // purchase workers; 0: the default
	}{
		{10_000, 0, 0},
		{10_000, 300 * time.Millisecond, 0},
		{1_000, 300 * time.Millisecond, 8}, // the old default: 8 workers for every job
	}
	for _, c := range cases {
		workers := c.workers
		if workers == 0 {
			workers = shipping.DefaultPurchaseWorkers
		}
		b.Run(fmt.Sprintf("labels=%d/carrier=%v/workers=%d", c.labels, c.latency, workers), func(b *testing.B) {
			for range b.N {
				rate := drain(b, c.labels, c.latency, workers)
				b.ReportMetric(rate, "labels/s")
			}
		})
	}
}

func drain(b *testing.B, labels int, latency time.Duration, workers int) float64 {
	ctx := context.Background()
	dsn := storetest.NewDatabase(b)
	if !store.IsPostgres(dsn) {
		dsn = filepath.Join(b.TempDir(), "drain.db")
	}
	st, err := store.Open(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	docs, err := store.OpenBlobs(ctx, "mem://")
	if err != nil {
		b.Fatal(err)
	}
	defer docs.Close()
	cipher, err := seal.NewCipher(bytes.Repeat([]byte{1}, 32))
	if err != nil {
		b.Fatal(err)
	}
	buys := &atomic.Int64{}
	var cs []carriers.Carrier
	for _, c := range sandbox.New(sandbox.Config{ScanInterval: time.Hour}) {
		cs = append(cs, slowBuy{Carrier: c, latency: latency, buys: buys})
	}
	config := func(backlog int) app.Config {
		return app.Config{Store: st, Cipher: cipher, Documents: docs, Carriers: carriers.NewRegistry(cs, nil),
			PurchaseWorkers: workers, MaxPurchaseBacklog: backlog, JobWorkers: 8, UsageFlushInterval: time.Hour}
	}

	// The crash's leftovers: labels accepted, workers never started.
	before, err := app.New(config(-1))
	if err != nil {
		b.Fatal(err)
	}
	acc, err := before.Accounts.CreateAccount(ctx, "Drain", true)
	if err != nil {
		b.Fatal(err)
	}
	_, secret, err := before.Accounts.CreateToken(ctx, accounts.NewToken{AccountID: acc.ID, Mode: accounts.Test, Scopes: []string{"write:shipments"}})
	if err != nil {
		b.Fatal(err)
	}
	caller, err := before.Accounts.Authenticate(ctx, secret, "127.0.0.1")
	if err != nil {
		b.Fatal(err)
	}
	state, shop, ada := "TX", "Shop", "Ada Lovelace"
	in := shipping.NewLabel{Input: shipping.Input{
		From:   shipping.Address{Name: &shop, Street1: "1 Congress Ave", City: "Austin", State: &state, Zip: "78701", Country: "US"},
		To:     shipping.Address{Name: &ada, Street1: "2 Main St", City: "Austin", State: &state, Zip: "78702", Country: "US"},
		Parcel: shipping.Parcel{WeightOz: new(16.0)},
	}}
	var (
		wg   sync.WaitGroup
		next atomic.Int64
		fail atomic.Value
	)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(labels) {
				if _, _, err := before.Shipping.Create(ctx, caller, in); err != nil {
					fail.Store(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err, _ := fail.Load().(error); err != nil {
		b.Fatal(err)
	}

	// The restart, with the default bound back in force.
	b.ResetTimer()
	after, err := app.New(config(0))
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if err := after.Start(ctx); err != nil {
		b.Fatal(err)
	}
	defer after.Stop(ctx)
	for {
		paying, _, err := after.Shipping.List(ctx, caller, shipping.Paying, paging.Request{Limit: 1})
		if err != nil {
			b.Fatal(err)
		}
		if len(paying) == 0 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	if got := buys.Load(); got != int64(labels) {
		b.Fatalf("%d carrier purchases for %d labels", got, labels)
	}
	b.Logf("%d queued labels purchased in %v after the restart", labels, elapsed.Round(time.Millisecond))
	return float64(labels) / elapsed.Seconds()
}

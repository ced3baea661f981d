// Command load is `make bench`: it seeds databases, starts shipd (and the
// bare Echo baseline) on 127.0.0.1, drives every workload with keep-alive
// connections, prints a table and writes the figures as JSON. Given a
// PostgreSQL server (-postgres, or SHIPD_TEST_DATABASE_URL as
// scripts/pg-test.sh sets it), it runs the same workloads again on
// PostgreSQL with one shipd instance, then with two sharing the database.
//
//	load -shipd bin/shipd -baseline bin/bench-baseline -out bench/results/latest.json
//	scripts/pg-test.sh load -shipd bin/shipd -baseline bin/bench-baseline
//
// Every latency is recorded and sorted: percentiles are exact (nearest rank).
// All load targets 127.0.0.1 and is bounded in count and time.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"
)

type config struct {
	shipd, baseline, out, profileDir, workDir string
	// check is a committed results file: the run fails when its read ratio
	// or purchase rate falls more than 20% below that file's (make bench-check).
	check string
	keep  bool

	smallRows, largeRows int
	warm                 time.Duration

	readConns    int
	readDuration time.Duration

	quickConns    int
	quickDuration time.Duration

	writeConns    int
	writeDuration time.Duration

	purchaseLabels int
	batchItems     int

	e2eRate     int
	e2eDuration time.Duration

	fanoutSubs, fanoutShipments int

	scaleConns    int
	scaleDuration time.Duration

	shipdFlags   string
	drainTimeout time.Duration
	phases       map[string]bool

	// postgres is an admin URL of a PostgreSQL server whose user may create
	// databases; empty: SQLite only.
	postgres                                       string
	pgReadDuration, pgWriteDuration, pgE2EDuration time.Duration
	pgPurchaseLabels                               int
	pgLabelStore                                   string
}

// allPhases are the phases in the order they run.
var allPhases = []string{"scale", "read", "quickquote", "write", "purchase", "batch", "e2e", "fanout"}

func (c config) runs(phase string) bool { return c.phases[phase] }

func main() {
	var c config
	flag.StringVar(&c.shipd, "shipd", "bin/shipd", "shipd binary")
	flag.StringVar(&c.baseline, "baseline", "bin/bench-baseline", "baseline binary")
	flag.StringVar(&c.out, "out", "bench/results/latest.json", "where the JSON figures go")
	flag.StringVar(&c.profileDir, "profile-dir", "", "if set, take a CPU profile of shipd during each load phase (served by --pprof-addr) into this directory")
	flag.StringVar(&c.workDir, "work-dir", "", "directory for the databases, kept (default: a new temporary directory, removed at the end unless -keep)")
	flag.BoolVar(&c.keep, "keep", false, "keep the temporary work directory")
	flag.StringVar(&c.check, "check", "", "a committed results file (bench/results/latest.json): exit 1 when the read ratio or the purchase rate of this run is more than 20% below it")
	flag.IntVar(&c.smallRows, "small-rows", 10_000, "shipments seeded in the first database")
	flag.IntVar(&c.largeRows, "large-rows", 1_000_000, "shipments seeded in the second database")
	flag.DurationVar(&c.warm, "warm", time.Second, "warm-up before each measured closed-loop phase")
	flag.IntVar(&c.readConns, "read-conns", 64, "connections of the read path")
	flag.DurationVar(&c.readDuration, "read-duration", 8*time.Second, "measured time of the read path (each of shipd and baseline)")
	flag.IntVar(&c.quickConns, "quick-quote-conns", 64, "connections of the quick-quote phase (as many as the read path's)")
	flag.DurationVar(&c.quickDuration, "quick-quote-duration", 4*time.Second, "measured time of the quick-quote phase")
	flag.IntVar(&c.writeConns, "write-conns", 32, "connections of the write path")
	flag.DurationVar(&c.writeDuration, "write-duration", 8*time.Second, "measured time of the write path")
	flag.IntVar(&c.purchaseLabels, "purchase-labels", 5000, "labels queued before the purchase phase times their purchases")
	flag.IntVar(&c.batchItems, "batch-items", 5000, "shipments of the batch phase's one POST /batches")
	flag.IntVar(&c.e2eRate, "e2e-rate", 100, "creates per second of the end-to-end phase (open loop)")
	flag.DurationVar(&c.e2eDuration, "e2e-duration", 30*time.Second, "duration of the end-to-end phase")
	flag.IntVar(&c.fanoutSubs, "fanout-subs", 10, "webhook subscriptions of the fan-out phase")
	flag.IntVar(&c.fanoutShipments, "fanout-shipments", 400, "shipments whose shipment.purchased fans out")
	flag.IntVar(&c.scaleConns, "scale-conns", 4, "connections of the scale phases")
	flag.DurationVar(&c.scaleDuration, "scale-duration", 3*time.Second, "measured time of each scale request kind")
	flag.DurationVar(&c.drainTimeout, "drain-timeout", 2*time.Minute, "how long the write path waits for its purchases to finish")
	flag.StringVar(&c.shipdFlags, "shipd-flags", "", "extra flags for shipd serve (space separated)")
	flag.StringVar(&c.postgres, "postgres", os.Getenv("SHIPD_TEST_DATABASE_URL"), "admin URL of a PostgreSQL server whose user may create databases (default $SHIPD_TEST_DATABASE_URL): the read, write, end-to-end and fan-out phases run again on it with 1 and with 2 shipd instances; empty: SQLite only")
	flag.DurationVar(&c.pgReadDuration, "pg-read-duration", 8*time.Second, "measured time of the read path on PostgreSQL")
	flag.DurationVar(&c.pgWriteDuration, "pg-write-duration", 8*time.Second, "measured time of the write path on PostgreSQL")
	flag.IntVar(&c.pgPurchaseLabels, "pg-purchase-labels", 2000, "labels queued before the purchase phase on PostgreSQL")
	flag.StringVar(&c.pgLabelStore, "pg-label-store", "", "--label-store of the PostgreSQL instances: empty for shipd's default (rows of the database), dir for one file:// directory they share, or a URL")
	flag.DurationVar(&c.pgE2EDuration, "pg-e2e-duration", 15*time.Second, "duration of the end-to-end phase on PostgreSQL")
	phases := flag.String("phases", strings.Join(allPhases, ","), "phases to run (a partial run is for iterating; its targets are not all measured)")
	flag.Parse()
	c.phases = map[string]bool{}
	for p := range strings.SplitSeq(*phases, ",") {
		if !slices.Contains(allPhases, p) {
			fmt.Fprintf(os.Stderr, "bench: unknown phase %q (phases: %s)\n", p, strings.Join(allPhases, ","))
			os.Exit(2)
		}
		c.phases[p] = true
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, c); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, c config) error {
	began := time.Now()
	dir := c.workDir
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "shipd-bench-"); err != nil {
			return err
		}
		if !c.keep {
			defer os.RemoveAll(dir)
		}
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if c.profileDir != "" {
		if err := os.MkdirAll(c.profileDir, 0o755); err != nil {
			return err
		}
	}
	res := &results{GeneratedAt: time.Now().UTC().Format(time.RFC3339), GoVersion: runtime.Version(), CPUs: runtime.NumCPU(), GOOS: runtime.GOOS + "/" + runtime.GOARCH}
	res.Config = c.public()
	logf("work directory %s", dir)

	rcv, err := startReceiver()
	if err != nil {
		return err
	}
	defer rcv.srv.Close()

	// Database A: the small scale, and every other phase.
	logf("seeding %d shipments", c.smallRows)
	small, err := prepare(ctx, filepath.Join(dir, "small", "shipd.db"), c.smallRows)
	if err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	res.Scale.Small.Rows, res.Scale.Small.SeedSeconds = small.Rows, small.Duration.Seconds()
	srvA, err := startSQLite(ctx, c, small.Path, rcv)
	if err != nil {
		return err
	}
	defer srvA.kill()
	if err := runPhases(ctx, c, srvA, []step{
		{"scale", fmt.Sprintf("scale: %d shipments", c.smallRows), func() error { return scalePhase(ctx, c, srvA, small, &res.Scale.Small) }},
		{"read", fmt.Sprintf("read path: baseline and shipd at %d connections", c.readConns), func() error { return readPhase(ctx, c, srvA, small, &res.Read, nil) }},
		{"quickquote", fmt.Sprintf("quick quotes: POST /labels/quote of postal codes at %d connections", c.quickConns), func() error {
			return quickQuotePhase(ctx, c, srvA, small, &res.QuickQuote)
		}},
		{"write", fmt.Sprintf("write path: %d connections", c.writeConns), func() error {
			return writePhase(ctx, c, srvA, small, &res.Write, &res.Server.DBBytesPerAPIShipment)
		}},
		{"purchase", fmt.Sprintf("purchases: %d labels queued, then the workers started", c.purchaseLabels), func() error { return purchasePhase(ctx, c, srvA, small, &res.Purchase) }},
		{"batch", fmt.Sprintf("batch: one POST /batches of %d shipments, their purchases, the merged PDF", c.batchItems), func() error { return batchPhase(ctx, c, srvA, small, &res.Batch) }},
		{"e2e", fmt.Sprintf("end to end: %d creates/s for %s", c.e2eRate, c.e2eDuration), func() error { return e2ePhase(ctx, c, srvA, small, rcv, &res.EndToEnd) }},
		{"fanout", fmt.Sprintf("fan-out: %d shipments to %d subscriptions", c.fanoutShipments, c.fanoutSubs), func() error { return fanoutPhase(ctx, c, srvA, small, rcv, &res.Fanout) }},
	}); err != nil {
		return err
	}
	res.Server.PeakRSSMiBMain = srvA.peakRSSMiB()
	srvA.nodes[0].heapProfile(c.profileDir, "heap")
	if err := srvA.stop(); err != nil {
		return err
	}

	if c.runs("scale") {
		// Database B: the large scale.
		logf("seeding %d shipments", c.largeRows)
		large, err := prepare(ctx, filepath.Join(dir, "large", "shipd.db"), c.largeRows)
		if err != nil {
			return fmt.Errorf("seed: %w", err)
		}
		res.Scale.Large.Rows, res.Scale.Large.SeedSeconds = large.Rows, large.Duration.Seconds()
		res.Server.DBBytesPerSeededShipment = large.BytesPerRow
		srvB, err := startSQLite(ctx, c, large.Path, rcv)
		if err != nil {
			return err
		}
		defer srvB.kill()
		logf("scale: %d shipments", c.largeRows)
		if err := scalePhase(ctx, c, srvB, large, &res.Scale.Large); err != nil {
			return err
		}
		res.Server.PeakRSSMiBLarge = srvB.peakRSSMiB()
		if err := srvB.stop(); err != nil {
			return err
		}
	}

	switch {
	case c.postgres == "":
		logf("no -postgres URL (nor SHIPD_TEST_DATABASE_URL): SQLite only")
	case !slices.ContainsFunc(pgPhases, c.runs):
		logf("no PostgreSQL phase among -phases")
	default:
		if err := postgresRuns(ctx, c, res, dir, rcv); err != nil {
			return err
		}
	}
	return finish(c, res, began)
}

func finish(c config, res *results, began time.Time) error {
	res.finish()
	res.WallSeconds = time.Since(began).Seconds()
	res.print(os.Stdout)
	if err := res.write(c.out); err != nil {
		return err
	}
	if c.check != "" {
		return checkRegression(os.Stdout, c.check, res)
	}
	return nil
}

// step is one phase on one deployment.
type step struct {
	name, title string
	run         func() error
}

// runPhases runs the steps of the phases asked for, in order.
func runPhases(ctx context.Context, c config, srv *deployment, steps []step) error {
	for _, st := range steps {
		if !c.runs(st.name) {
			continue
		}
		if srv.postgres {
			logf("%s: %s", srv.title, st.title)
		} else {
			logf("%s", st.title)
		}
		if err := st.run(); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench %s  %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

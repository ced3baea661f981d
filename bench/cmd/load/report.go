package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// stat is a throughput with its latency distribution.
type stat struct {
	Requests int            `json:"requests"`
	PerSec   float64        `json:"perSec"`
	P50Ms    float64        `json:"p50Ms"`
	P99Ms    float64        `json:"p99Ms"`
	MaxMs    float64        `json:"maxMs"`
	Errors   map[string]int `json:"errors,omitempty"`
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// latStat summarises sorted latencies; elapsed > 0 also gives a rate.
func latStat(l latencies, elapsed time.Duration) stat {
	s := stat{Requests: len(l), P50Ms: ms(l.pct(50)), P99Ms: ms(l.pct(99)), MaxMs: ms(l.pct(100))}
	if elapsed > 0 {
		s.PerSec = float64(len(l)) / elapsed.Seconds()
	}
	return s
}

func statOf(r loadResult) stat {
	s := latStat(r.lat, 0)
	s.PerSec = r.rps()
	for code, n := range r.bad {
		if s.Errors == nil {
			s.Errors = map[string]int{}
		}
		name := strconv.Itoa(code)
		if code == 0 {
			name = "transport"
		}
		s.Errors[name] = n
	}
	if r.firstErr != "" {
		logf("  first unexpected answer: %s", r.firstErr)
	}
	return s
}

type readResult struct {
	ResponseBytes int     `json:"responseBytes"`
	Baseline      stat    `json:"baseline"`
	Shipd         stat    `json:"shipd"`
	Ratio         float64 `json:"ratio"` // shipd / baseline throughput
}

// quickQuoteResult is POST /labels/quote of a quick quote (postal codes
// and a parcel, as a checkout page sends it), beside the read path.
type quickQuoteResult struct {
	Shipd stat `json:"shipd"`
	// ReadP99Ratio is its p99 over the read path's (shipd's), when both ran.
	ReadP99Ratio float64 `json:"readP99Ratio,omitempty"`
}

type writeResult struct {
	Accepted        stat    `json:"accepted"` // 202s per second
	Backlog         int     `json:"backlogAtEnd"`
	Created         int     `json:"created"`
	Purchased       int     `json:"purchased"`
	PurchaseSeconds float64 `json:"purchaseSeconds"` // from the first create to the last purchase
	PurchasesPerSec float64 `json:"purchasesPerSec"`
	Undrained       bool    `json:"undrained,omitempty"` // purchases were still pending when the bench gave up waiting
}

// purchaseResult is the purchase pipeline alone: Labels queued with no
// purchase worker running, then the time from restarting shipd with its
// workers to the last purchase.
type purchaseResult struct {
	Labels    int `json:"labels"`
	Purchased int `json:"purchased"`
	// Seconds runs from the start of the instances with workers (their
	// start included) to the last purchase; StopSeconds is the stop of the
	// instances without workers before it, not counted.
	Seconds     float64 `json:"seconds"`
	StopSeconds float64 `json:"stopSeconds"`
	PerSec      float64 `json:"perSec"`
	Undrained   bool    `json:"undrained,omitempty"`
}

type e2eResult struct {
	Rate               int     `json:"ratePerSec"`
	Seconds            float64 `json:"seconds"`
	Sent               int     `json:"sent"`
	Accepted           int     `json:"accepted"`
	Create             stat    `json:"create"`
	Purchased          stat    `json:"purchased"` // due time of the create → purchasedAt
	Webhook            stat    `json:"webhook"`   // due time of the create → verified delivery received
	MissingWebhooks    int     `json:"missingWebhooks"`
	NotPurchased       int     `json:"notPurchased"`
	RejectedSignatures int     `json:"rejectedSignatures"`
}

type fanoutResult struct {
	Subscriptions      int     `json:"subscriptions"`
	Shipments          int     `json:"shipments"`
	Expected           int     `json:"expected"`
	Deliveries         int     `json:"deliveries"`
	PerSec             float64 `json:"perSec"`  // first to last delivery
	Seconds            float64 `json:"seconds"` // first create to last delivery
	Latency            stat    `json:"latency"` // event createdAt → delivery received
	RejectedSignatures int     `json:"rejectedSignatures"`
}

type scaleResult struct {
	Rows        int     `json:"rows"`
	SeedSeconds float64 `json:"seedSeconds"`
	List        stat    `json:"list"`     // GET /labels, first page of 25
	DeepPage    stat    `json:"deepPage"` // GET /labels?cursor= a random seeded shipment
	Detail      stat    `json:"detail"`   // GET /labels/{random seeded id}
}

// postgresResult is the phases of one PostgreSQL run: a fresh database with
// Instances shipd instances sharing it (the load split evenly between them).
type postgresResult struct {
	Instances   int            `json:"instances"`
	Rows        int            `json:"rows"`
	SeedSeconds float64        `json:"seedSeconds"`
	Read        readResult     `json:"readPath"` // baseline: the one measured beside SQLite
	Write       writeResult    `json:"writePath"`
	Purchase    purchaseResult `json:"purchase"`
	EndToEnd    e2eResult      `json:"endToEnd"`
	Fanout      fanoutResult   `json:"fanout"`
	PeakRSSMiB  float64        `json:"peakRssMiB"` // the largest VmHWM of the instances
	// Growth of pg_database_size (tables, indexes, TOAST; not the WAL) per
	// shipment of the write path, once purchased.
	DBBytesPerAPIShipment float64 `json:"dbBytesPerApiShipment"`
}

type target struct {
	Name   string  `json:"name"`
	Target string  `json:"target"`
	Actual string  `json:"actual"`
	Value  float64 `json:"value"`
	Met    bool    `json:"met"`
}

type results struct {
	GeneratedAt string           `json:"generatedAt"`
	GoVersion   string           `json:"goVersion"`
	GOOS        string           `json:"platform"`
	CPUs        int              `json:"cpus"`
	WallSeconds float64          `json:"wallSeconds"`
	Config      map[string]any   `json:"config"`
	Read        readResult       `json:"readPath"`
	QuickQuote  quickQuoteResult `json:"quickQuote"`
	Write       writeResult      `json:"writePath"`
	Purchase    purchaseResult   `json:"purchase"`
	Batch       batchResult      `json:"batch"`
	EndToEnd    e2eResult        `json:"endToEnd"`
	Fanout      fanoutResult     `json:"fanout"`
	Scale       struct {
		Small        scaleResult `json:"small"`
		Large        scaleResult `json:"large"`
		ListRatio    float64     `json:"listP50Ratio"`   // large / small
		DetailRatio  float64     `json:"detailP50Ratio"` // large / small
		DeepRatio    float64     `json:"deepPageP50Ratio"`
		ListP99Ratio float64     `json:"listP99Ratio"`
		DetailP99    float64     `json:"detailP99Ratio"`
	} `json:"scale"`
	Server struct {
		PeakRSSMiBMain           float64 `json:"peakRssMiB"`      // VmHWM of the server that ran every phase but the 1M scale
		PeakRSSMiBLarge          float64 `json:"peakRssMiBLarge"` // VmHWM of the server on the 1M database
		DBBytesPerAPIShipment    float64 `json:"dbBytesPerApiShipment"`
		DBBytesPerSeededShipment float64 `json:"dbBytesPerSeededShipment"`
	} `json:"server"`
	Targets []target `json:"targets"`
	// The read, write, end-to-end and fan-out phases on PostgreSQL, with 1
	// then 2 shipd instances (the -pg-*-duration flags' durations).
	PostgresVersion string           `json:"postgresVersion,omitempty"`
	Postgres        []postgresResult `json:"postgres,omitempty"`
}

func (c config) public() map[string]any {
	return map[string]any{
		"smallRows": c.smallRows, "largeRows": c.largeRows, "warm": c.warm.String(),
		"readConns": c.readConns, "readDuration": c.readDuration.String(),
		"quickQuoteConns": c.quickConns, "quickQuoteDuration": c.quickDuration.String(),
		"writeConns": c.writeConns, "writeDuration": c.writeDuration.String(),
		"purchaseLabels": c.purchaseLabels, "pgPurchaseLabels": c.pgPurchaseLabels, "batchItems": c.batchItems,
		"e2eRate": c.e2eRate, "e2eDuration": c.e2eDuration.String(),
		"fanoutSubscriptions": c.fanoutSubs, "fanoutShipments": c.fanoutShipments,
		"scaleConns": c.scaleConns, "scaleDuration": c.scaleDuration.String(),
		"postgres": c.postgres != "", "pgReadDuration": c.pgReadDuration.String(), "pgWriteDuration": c.pgWriteDuration.String(), "pgE2EDuration": c.pgE2EDuration.String(),
		"shipdFlags": c.shipdFlags, "phases": strings.Join(slices.DeleteFunc(slices.Clone(allPhases), func(p string) bool { return !c.phases[p] }), ","),
	}
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// finish computes the ratios and checks the targets of issue 8.
func (r *results) finish() {
	sc := &r.Scale
	sc.ListRatio = ratio(sc.Large.List.P50Ms, sc.Small.List.P50Ms)
	sc.DetailRatio = ratio(sc.Large.Detail.P50Ms, sc.Small.Detail.P50Ms)
	sc.DeepRatio = ratio(sc.Large.DeepPage.P50Ms, sc.Small.DeepPage.P50Ms)
	sc.ListP99Ratio = ratio(sc.Large.List.P99Ms, sc.Small.List.P99Ms)
	sc.DetailP99 = ratio(sc.Large.Detail.P99Ms, sc.Small.Detail.P99Ms)
	if r.ran("read") && r.ran("quickquote") {
		r.QuickQuote.ReadP99Ratio = ratio(r.QuickQuote.Shipd.P99Ms, r.Read.Shipd.P99Ms)
	}
	rss := max(r.Server.PeakRSSMiBMain, r.Server.PeakRSSMiBLarge)
	type check struct {
		phase string
		t     target
	}
	checks := []check{
		{"read", target{"read path vs baseline", "≥ 0.35×", fmt.Sprintf("%.2f×", r.Read.Ratio), r.Read.Ratio, r.Read.Ratio >= 0.35}},
		{"write", target{"write path: accepted creates", "≥ 2,000/s", fmt.Sprintf("%.0f/s", r.Write.Accepted.PerSec), r.Write.Accepted.PerSec, r.Write.Accepted.PerSec >= 2000}},
		{"write", target{"write path: purchases completed while creates run", "≥ 1,000/s", fmt.Sprintf("%.0f/s", r.Write.PurchasesPerSec), r.Write.PurchasesPerSec, r.Write.PurchasesPerSec >= 1000}},
		{"purchase", target{"purchases completed, labels queued first", "≥ 1,000/s", fmt.Sprintf("%.0f/s", r.Purchase.PerSec), r.Purchase.PerSec,
			r.Purchase.PerSec >= 1000 && !r.Purchase.Undrained}},
		{"batch", target{"batch of 5,000 accepted (202)", "≤ 2 s", fmt.Sprintf("%.2f s", r.Batch.AcceptSeconds), r.Batch.AcceptSeconds, r.Batch.AcceptSeconds <= 2}},
		{"batch", target{"batch purchases vs the purchase phase", "≥ 1.0×", fmt.Sprintf("%.2f× (%.0f/s)", ratio(r.Batch.PurchasesPerSec, r.Purchase.PerSec), r.Batch.PurchasesPerSec), r.Batch.PurchasesPerSec,
			!r.Batch.Undrained && (!r.ran("purchase") || r.Batch.PurchasesPerSec >= r.Purchase.PerSec)}},
		{"batch", target{"merged PDF of the batch streamed", "≤ 5 s", fmt.Sprintf("%.2f s", r.Batch.PDFSeconds), r.Batch.PDFSeconds, r.Batch.PDFSeconds <= 5}},
		{"batch", target{"server RSS growth while it streams", "≤ 50 MiB", fmt.Sprintf("%.0f MiB", r.Batch.RSSGrowthMiB), r.Batch.RSSGrowthMiB, r.Batch.RSSGrowthMiB <= 50}},
		{"e2e", target{"end to end at 100/s: purchased p99", "≤ 300 ms", fmt.Sprintf("%.0f ms", r.EndToEnd.Purchased.P99Ms), r.EndToEnd.Purchased.P99Ms,
			r.EndToEnd.Purchased.P99Ms <= 300 && r.EndToEnd.NotPurchased == 0}},
		{"e2e", target{"end to end at 100/s: webhook p99", "≤ 500 ms", fmt.Sprintf("%.0f ms", r.EndToEnd.Webhook.P99Ms), r.EndToEnd.Webhook.P99Ms,
			r.EndToEnd.Webhook.P99Ms <= 500 && r.EndToEnd.MissingWebhooks == 0}},
		// The issue asks for 1,000/s with a 30% margin.
		{"fanout", target{"webhook fan-out, 10 subscriptions", "≥ 1,300/s", fmt.Sprintf("%.0f/s", r.Fanout.PerSec), r.Fanout.PerSec, r.Fanout.PerSec >= 1300 && r.Fanout.Deliveries == r.Fanout.Expected}},
		{"scale", target{"page p50, 1M vs 10k", "≤ 1.5×", fmt.Sprintf("%.2f×", sc.ListRatio), sc.ListRatio, sc.ListRatio <= 1.5}},
		{"scale", target{"detail p50, 1M vs 10k", "≤ 1.5×", fmt.Sprintf("%.2f×", sc.DetailRatio), sc.DetailRatio, sc.DetailRatio <= 1.5}},
		{"", target{"server peak RSS", "≤ 150 MiB", fmt.Sprintf("%.0f MiB", rss), rss, rss <= 150}},
	}
	r.Targets = nil
	for _, c := range checks {
		if c.phase == "" || r.ran(c.phase) {
			r.Targets = append(r.Targets, c.t)
		}
	}
	r.Targets = append(r.Targets, r.scalingTargets()...)
}

// keepsUp: the purchases completed while the creates ran kept their pace
// (5% short at most; the rest is the queue when the creates stopped).
func keepsUp(w writeResult) bool { return w.PurchasesPerSec >= 0.95*w.Accepted.PerSec }

// scalingTargets are issue 45's, each a ratio to the bare Echo baseline of
// this run (or an absolute latency), for SQLite and each PostgreSQL run.
// Without the read phase there is no baseline, and no ratio.
func (r *results) scalingTargets() []target {
	base := r.Read.Baseline.PerSec
	var ts []target
	times := func(name, goal string, v, min float64, ok bool) {
		ts = append(ts, target{name, goal, fmt.Sprintf("%.3g×", v), v, v >= min && ok})
	}
	if base > 0 {
		if r.ran("read") {
			times("SQLite: reads vs baseline", "≥ 0.44×", r.Read.Ratio, 0.44, true)
		}
		if r.ran("write") {
			times("SQLite: creates vs baseline, purchases keeping up", "≥ 0.045×", ratio(r.Write.Accepted.PerSec, base), 0.045, keepsUp(r.Write))
		}
	}
	for _, pg := range r.Postgres {
		who := fmt.Sprintf("PostgreSQL ×%d", pg.Instances)
		if base > 0 && r.ran("read") {
			goal, min := "≥ 0.25×", 0.25
			if pg.Instances > 1 {
				goal, min = "≥ 0.30×", 0.30
			}
			times(who+": reads vs baseline", goal, ratio(pg.Read.Shipd.PerSec, base), min, true)
		}
		if base > 0 && r.ran("write") && pg.Instances == 1 {
			times(who+": creates vs baseline, purchases keeping up", "≥ 0.02×", ratio(pg.Write.Accepted.PerSec, base), 0.02, keepsUp(pg.Write))
		}
		if r.ran("e2e") {
			p99 := pg.EndToEnd.Purchased.P99Ms
			ts = append(ts, target{who + ": create → purchasedAt p99 at 100/s", "≤ 60 ms", fmt.Sprintf("%.0f ms", p99), p99,
				p99 <= 60 && pg.EndToEnd.NotPurchased == 0})
		}
		if base > 0 && r.ran("fanout") && r.ran("read") {
			times(who+": fan-out vs baseline", "≥ 0.03×", ratio(pg.Fanout.PerSec, base), 0.03, pg.Fanout.Deliveries == pg.Fanout.Expected)
		}
	}
	return ts
}

func (r *results) ran(phase string) bool {
	p, _ := r.Config["phases"].(string)
	return slices.Contains(strings.Split(p, ","), phase)
}

func (r *results) print(w io.Writer) {
	row := func(cols ...string) { fmt.Fprintln(w, "| "+strings.Join(cols, " | ")+" |") }
	f2 := func(v float64) string { return fmt.Sprintf("%.2f", v) }
	line := func(name, load string, s stat) {
		rate := "—"
		if s.PerSec > 0 {
			rate = fmt.Sprintf("%.0f", s.PerSec)
		}
		if len(s.Errors) > 0 {
			b, _ := json.Marshal(s.Errors)
			load += "; errors " + string(b)
		}
		row(name, load, rate, f2(s.P50Ms), f2(s.P99Ms), fmt.Sprintf("%.1f", s.MaxMs))
	}
	fmt.Fprintf(w, "\nshipd bench: %s, %d CPUs, %s, %.0f s wall\n\n", r.GOOS, r.CPUs, r.GoVersion, r.WallSeconds)
	row("Measure", "Load", "Throughput /s", "p50 ms", "p99 ms", "max ms")
	row("---", "---", "---:", "---:", "---:", "---:")
	if r.ran("read") {
		rd := r.Read
		line("1. GET /labels/{id}, bare Echo baseline", fmt.Sprintf("%v conns, same %d bytes", r.Config["readConns"], rd.ResponseBytes), rd.Baseline)
		line(fmt.Sprintf("1. GET /labels/{id}, shipd (**%.2f×** baseline)", rd.Ratio), fmt.Sprintf("%v conns", r.Config["readConns"]), rd.Shipd)
	}
	if r.ran("quickquote") {
		q := r.QuickQuote
		load := fmt.Sprintf("%v conns, postal codes and a parcel", r.Config["quickQuoteConns"])
		if q.ReadP99Ratio > 0 {
			load += fmt.Sprintf("; p99 %.2f× the read path's", q.ReadP99Ratio)
		}
		line("1b. POST /labels/quote, quick quote (200s)", load, q.Shipd)
	}
	if r.ran("write") {
		wr := r.Write
		line("2. POST /labels/create, 202s", fmt.Sprintf("%v conns; purchases meanwhile %.0f/s (%d queued at the end)", r.Config["writeConns"], wr.PurchasesPerSec, wr.Backlog), wr.Accepted)
	}
	if r.ran("purchase") {
		p := r.Purchase
		row("2a. purchases completed/s, labels queued first", fmt.Sprintf("%d labels created with no purchase worker; that instance stopped (%.1f s, not counted), then start with workers → last purchased in %.1f s%s", p.Labels, p.StopSeconds, p.Seconds, undrained(p.Undrained)),
			fmt.Sprintf("%.0f", p.PerSec), "—", "—", "—")
	}
	if r.ran("batch") {
		bt := r.Batch
		row("2b. POST /batches, then its purchases/s", fmt.Sprintf("%d shipments: 202 in %.2f s; completed %.1f s later; merged PDF %.1f MiB in %.2f s, RSS +%.0f MiB%s",
			bt.Items, bt.AcceptSeconds, bt.PurchaseSeconds, float64(bt.PDFBytes)/(1<<20), bt.PDFSeconds, bt.RSSGrowthMiB, undrained(bt.Undrained)),
			fmt.Sprintf("%.0f", bt.PurchasesPerSec), "—", "—", "—")
	}
	if r.ran("e2e") {
		e := r.EndToEnd
		load := fmt.Sprintf("%d creates/s for %.0f s, open loop", e.Rate, e.Seconds)
		line("3. create answered (202)", load, e.Create)
		line("3a. create → purchasedAt", fmt.Sprintf("%d of %d purchased", e.Accepted-e.NotPurchased, e.Sent), e.Purchased)
		line("3b. create → signed shipment.purchased received", fmt.Sprintf("%d of %d delivered and verified", e.Accepted-e.MissingWebhooks, e.Sent), e.Webhook)
	}
	if r.ran("fanout") {
		fo := r.Fanout
		line("4. webhook fan-out: deliveries/s (latency: event → received)", fmt.Sprintf("%d subscriptions × %d shipments: %d of %d verified", fo.Subscriptions, fo.Shipments, fo.Deliveries, fo.Expected), withRate(fo.Latency, fo.PerSec))
	}
	if r.ran("scale") {
		for _, k := range []struct {
			name string
			get  func(scaleResult) stat
		}{{"GET /labels (page of 25)", func(s scaleResult) stat { return s.List }},
			{"GET /labels?cursor= (a random page)", func(s scaleResult) stat { return s.DeepPage }},
			{"GET /labels/{id} (random shipment)", func(s scaleResult) stat { return s.Detail }}} {
			for _, sc := range []scaleResult{r.Scale.Small, r.Scale.Large} {
				line("5. "+k.name+", "+humanRows(sc.Rows)+" shipments", fmt.Sprintf("%v conns", r.Config["scaleConns"]), k.get(sc))
			}
		}
	}
	fmt.Fprintln(w)
	if r.ran("scale") {
		fmt.Fprintf(w, "Peak RSS (VmHWM): %.0f MiB (server of phases 1-4 and the 10k scale), %.0f MiB (1M server). "+
			"Database: %.0f bytes per API-created shipment once purchased (shipment, tracker, event, jobs, ledger), "+
			"%.0f bytes per seeded row (shipment and 2 tracking events). 1M rows seeded in %.1f s.\n\n",
			r.Server.PeakRSSMiBMain, r.Server.PeakRSSMiBLarge, r.Server.DBBytesPerAPIShipment, r.Server.DBBytesPerSeededShipment, r.Scale.Large.SeedSeconds)
	}
	r.printPostgres(w)
	row("Target", "Goal", "Measured", "Met")
	row("---", "---", "---:", "---")
	for _, t := range r.Targets {
		met := "yes"
		if !t.Met {
			met = "**no**"
		}
		row(t.Name, t.Target, t.Actual, met)
	}
	fmt.Fprintln(w)
}

// printPostgres prints SQLite and the PostgreSQL runs side by side.
func (r *results) printPostgres(w io.Writer) {
	if len(r.Postgres) == 0 {
		return
	}
	row := func(cols ...string) { fmt.Fprintln(w, "| "+strings.Join(cols, " | ")+" |") }
	type run struct {
		read  readResult
		write writeResult
		buy   purchaseResult
		e2e   e2eResult
		fan   fanoutResult
	}
	runs := []run{{r.Read, r.Write, r.Purchase, r.EndToEnd, r.Fanout}}
	head := []string{"Measure", "Load", "SQLite"}
	for _, p := range r.Postgres {
		runs = append(runs, run{p.Read, p.Write, p.Purchase, p.EndToEnd, p.Fanout})
		head = append(head, fmt.Sprintf("PostgreSQL ×%d", p.Instances))
	}
	line := func(name, load string, cell func(run) string) {
		cols := []string{name, load}
		for _, x := range runs {
			cols = append(cols, cell(x))
		}
		row(cols...)
	}
	pair := func(s stat) string { return fmt.Sprintf("%.1f / %.1f", s.P50Ms, s.P99Ms) }
	errs := func(s stat) string {
		if len(s.Errors) == 0 {
			return ""
		}
		b, _ := json.Marshal(s.Errors)
		return "; errors " + string(b)
	}
	fmt.Fprintf(w, "SQLite and PostgreSQL %s side by side (PostgreSQL: a fresh database per column, the load split evenly between the instances):\n\n", r.PostgresVersion)
	row(head...)
	row(append([]string{"---", "---"}, slices.Repeat([]string{"---:"}, len(runs))...)...)
	if r.ran("read") {
		load := fmt.Sprintf("%v conns; SQLite %v, PostgreSQL %v; baseline %.0f/s", r.Config["readConns"], r.Config["readDuration"], r.Config["pgReadDuration"], r.Read.Baseline.PerSec)
		line("1. GET /labels/{id}: requests/s (× baseline)", load, func(x run) string {
			return fmt.Sprintf("%.0f (**%.2f×**)%s", x.read.Shipd.PerSec, x.read.Ratio, errs(x.read.Shipd))
		})
		line("1. GET /labels/{id}: p50 / p99 ms", "", func(x run) string { return pair(x.read.Shipd) })
	}
	if r.ran("write") {
		load := fmt.Sprintf("%v conns; SQLite %v, PostgreSQL %v", r.Config["writeConns"], r.Config["writeDuration"], r.Config["pgWriteDuration"])
		line("2. POST /labels/create: 202s/s", load, func(x run) string { return fmt.Sprintf("%.0f%s", x.write.Accepted.PerSec, errs(x.write.Accepted)) })
		line("2. purchases completed/s (first create → last purchase)", "", func(x run) string {
			s := fmt.Sprintf("%.0f", x.write.PurchasesPerSec)
			if x.write.Undrained {
				s += " (not drained)"
			}
			return s
		})
		line("2. purchases still queued when the creates stop", "", func(x run) string { return fmt.Sprint(x.write.Backlog) })
	}
	if r.ran("purchase") {
		line("2a. purchases completed/s, labels queued first", fmt.Sprintf("SQLite %v labels, PostgreSQL %v; start with workers → last purchased", r.Config["purchaseLabels"], r.Config["pgPurchaseLabels"]), func(x run) string {
			return fmt.Sprintf("%.0f%s", x.buy.PerSec, undrained(x.buy.Undrained))
		})
	}
	if r.ran("e2e") {
		load := fmt.Sprintf("%v creates/s, open loop; SQLite %v, PostgreSQL %v", r.Config["e2eRate"], r.Config["e2eDuration"], r.Config["pgE2EDuration"])
		line("3a. create → purchasedAt: p50 / p99 ms", load, func(x run) string {
			s := pair(x.e2e.Purchased)
			if x.e2e.NotPurchased > 0 {
				s += fmt.Sprintf(" (%d of %d not purchased)", x.e2e.NotPurchased, x.e2e.Sent)
			}
			return s
		})
		line("3b. create → signed shipment.purchased received: p50 / p99 ms", "", func(x run) string {
			s := pair(x.e2e.Webhook)
			if n := x.e2e.Sent - x.e2e.Accepted + x.e2e.MissingWebhooks; n > 0 {
				s += fmt.Sprintf(" (%d of %d not delivered)", n, x.e2e.Sent)
			}
			return s
		})
	}
	if r.ran("fanout") {
		load := fmt.Sprintf("%v subscriptions × %v shipments", r.Config["fanoutSubscriptions"], r.Config["fanoutShipments"])
		line("4. webhook fan-out: deliveries/s", load, func(x run) string {
			s := fmt.Sprintf("%.0f", x.fan.PerSec)
			if x.fan.Deliveries != x.fan.Expected {
				s += fmt.Sprintf(" (%d of %d)", x.fan.Deliveries, x.fan.Expected)
			}
			return s
		})
	}
	fmt.Fprintln(w)
	for _, p := range r.Postgres {
		fmt.Fprintf(w, "PostgreSQL ×%d: %s shipments seeded in %.1f s; peak RSS (VmHWM) %.0f MiB per instance at most", p.Instances, humanRows(p.Rows), p.SeedSeconds, p.PeakRSSMiB)
		if r.ran("write") {
			fmt.Fprintf(w, "; pg_database_size grew %.0f bytes per API-created shipment", p.DBBytesPerAPIShipment)
		}
		fmt.Fprintln(w, ".")
	}
	fmt.Fprintln(w)
}

func undrained(b bool) string {
	if b {
		return " (not drained)"
	}
	return ""
}

func humanRows(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1000 && n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}

func withRate(s stat, perSec float64) stat {
	s.PerSec = perSec
	return s
}

func (r *results) write(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

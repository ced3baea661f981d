package telemetry

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/shipd-dev/shipd/store"
)

// StoreStats is what the scrape-time collectors read of the database.
type StoreStats interface {
	JobQueueStats(ctx context.Context) ([]store.JobQueueStat, error)
	WebhookEndpointStats(ctx context.Context) ([]store.WebhookEndpointStat, error)
	DBStatsCollectors() []prometheus.Collector
}

// ScrapeTimeout bounds each database read of a scrape: a slow database
// leaves those metrics out of the scrape rather than holding it.
const ScrapeTimeout = 2 * time.Second

// RegisterStore registers the collectors that read st when scraped: the job
// queues, the webhook endpoints that need attention, and the connection pools.
func (t *Telemetry) RegisterStore(st StoreStats) error {
	cs := append([]prometheus.Collector{newJobQueueCollector(st), newEndpointCollector(st)}, st.DBStatsCollectors()...)
	return registerAll(t.reg, cs...)
}

// jobStates are the states of unfinished jobs, each reported (0 when none).
var jobStates = []string{"available", "scheduled", "running", "retryable", "pending"}

type jobQueueCollector struct {
	st            StoreStats
	depth, oldest *prometheus.Desc

	mu   sync.Mutex
	seen map[jobKey]bool // every (kind, queue) met, reported at 0 once empty
}

func newJobQueueCollector(st StoreStats) *jobQueueCollector {
	return &jobQueueCollector{
		st: st,
		depth: prometheus.NewDesc("shipd_job_queue_depth",
			"Unfinished jobs by queue, kind and state: available (due, waiting for a worker), scheduled (due later), running, retryable (failed, retried later), pending.",
			[]string{"queue", "kind", "state"}, nil),
		oldest: prometheus.NewDesc("shipd_job_oldest_available_age_seconds",
			"How long the job that has waited longest for a worker has been due, by queue and kind; 0 when none waits.",
			[]string{"queue", "kind"}, nil),
		seen: map[jobKey]bool{},
	}
}

func (c *jobQueueCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.depth; ch <- c.oldest }

func (c *jobQueueCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), ScrapeTimeout)
	defer cancel()
	stats, err := c.st.JobQueueStats(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(c.depth, fmt.Errorf("job queues: %w", err))
		return
	}
	type counts struct {
		byState map[string]int64
		oldest  float64
	}
	now := map[jobKey]*counts{}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range stats {
		k := jobKey{kind: s.Kind, queue: s.Queue}
		c.seen[k] = true
		n := now[k]
		if n == nil {
			n = &counts{byState: map[string]int64{}}
			now[k] = n
		}
		n.byState[s.State] += s.Count
		n.oldest = max(n.oldest, s.OldestAgeSeconds)
	}
	for k := range c.seen {
		n := now[k]
		if n == nil {
			n = &counts{}
		}
		for _, state := range jobStates {
			ch <- prometheus.MustNewConstMetric(c.depth, prometheus.GaugeValue, float64(n.byState[state]), k.queue, k.kind, state)
		}
		ch <- prometheus.MustNewConstMetric(c.oldest, prometheus.GaugeValue, n.oldest, k.queue, k.kind)
	}
}

type endpointCollector struct {
	st        StoreStats
	endpoints *prometheus.Desc
}

func newEndpointCollector(st StoreStats) *endpointCollector {
	return &endpointCollector{st: st, endpoints: prometheus.NewDesc("shipd_webhook_endpoints",
		"Webhook endpoints that need attention, by mode and state: paused (disabled), or failing (enabled, with a delivery waiting for a retry after a failed attempt).",
		[]string{"mode", "state"}, nil)}
}

func (c *endpointCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.endpoints }

func (c *endpointCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), ScrapeTimeout)
	defer cancel()
	stats, err := c.st.WebhookEndpointStats(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(c.endpoints, fmt.Errorf("webhook endpoints: %w", err))
		return
	}
	byMode := map[string]store.WebhookEndpointStat{"test": {Mode: "test"}, "live": {Mode: "live"}}
	for _, s := range stats {
		byMode[s.Mode] = s
	}
	for mode, s := range byMode {
		ch <- prometheus.MustNewConstMetric(c.endpoints, prometheus.GaugeValue, float64(s.Paused), mode, "paused")
		ch <- prometheus.MustNewConstMetric(c.endpoints, prometheus.GaugeValue, float64(s.Failing), mode, "failing")
	}
}

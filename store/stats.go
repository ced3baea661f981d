package store

import (
	"context"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// WebhookEndpointStat counts one mode's webhook endpoints that need an
// operator's eye.
type WebhookEndpointStat struct {
	Mode string
	// Paused endpoints are disabled (and not deleted).
	Paused int64
	// Failing endpoints are enabled and have a delivery waiting for an
	// automatic retry after a failed attempt.
	Failing int64
}

// WebhookEndpointStats counts paused and failing endpoints per mode. The
// failing count reads the partial index of deliveries waiting for a retry,
// which holds only those: it costs nothing while every delivery succeeds.
func (r reader) WebhookEndpointStats(ctx context.Context) ([]WebhookEndpointStat, error) {
	var paused, failing []struct {
		Mode string `db:"mode"`
		N    int64  `db:"n"`
	}
	if err := r.sel(ctx, &paused, `SELECT mode, count(*) AS n FROM webhook_subscriptions
		WHERE revoked_at IS NULL AND enabled = FALSE GROUP BY mode`); err != nil {
		return nil, fmt.Errorf("paused endpoints: %w", err)
	}
	if err := r.sel(ctx, &failing, `SELECT s.mode AS mode, count(DISTINCT d.subscription_id) AS n
		FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
		WHERE d.status = 'pending' AND d.auto_attempts > 0 AND s.revoked_at IS NULL AND s.enabled = TRUE
		GROUP BY s.mode`); err != nil {
		return nil, fmt.Errorf("failing endpoints: %w", err)
	}
	byMode := map[string]*WebhookEndpointStat{}
	var out []WebhookEndpointStat
	stat := func(mode string) *WebhookEndpointStat {
		if s, ok := byMode[mode]; ok {
			return s
		}
		byMode[mode] = &WebhookEndpointStat{Mode: mode}
		return byMode[mode]
	}
	for _, p := range paused {
		stat(p.Mode).Paused = p.N
	}
	for _, f := range failing {
		stat(f.Mode).Failing = f.N
	}
	for _, s := range byMode {
		out = append(out, *s)
	}
	return out, nil
}

// DBStatsCollectors report the connection pools' statistics (open, in use,
// idle, waits and their time) as go_sql_* metrics, labelled db_name: "writer"
// and "reader" on SQLite, "pool" on PostgreSQL. The pools stay unexported.
func (s *Store) DBStatsCollectors() []prometheus.Collector {
	if s.r == nil || s.r == s.w {
		return []prometheus.Collector{collectors.NewDBStatsCollector(s.w.DB, "pool")}
	}
	return []prometheus.Collector{
		collectors.NewDBStatsCollector(s.w.DB, "writer"),
		collectors.NewDBStatsCollector(s.r.DB, "reader"),
	}
}

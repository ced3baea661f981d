package telemetry

import (
	"github.com/prometheus/client_golang/prometheus"
)

// failoverMetrics are the instances' heartbeats as one instance sees them,
// and the jobs it took back from dead instances or handed back on shutdown.
type failoverMetrics struct {
	alive     prometheus.Gauge
	reclaimed *prometheus.CounterVec
}

// Reasons a job is taken back (shipd_jobs_reclaimed_total's reason).
const (
	// ReclaimDeadInstance: the instance running it stopped heartbeating.
	ReclaimDeadInstance = "dead_instance"
	// ReclaimShutdown: this instance stopped before the job finished and handed it back.
	ReclaimShutdown = "shutdown"
)

func newFailoverMetrics(reg prometheus.Registerer) (*failoverMetrics, error) {
	m := &failoverMetrics{
		alive: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "shipd_instances_alive",
			Help: "Instances of this database whose heartbeat is fresh, as this instance last saw them (itself included).",
		}),
		reclaimed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "shipd_jobs_reclaimed_total",
			Help: "Jobs this instance made available again: taken back from a dead instance (reason dead_instance) or handed back by its own shutdown (reason shutdown).",
		}, []string{"reason"}),
	}
	for _, r := range []string{ReclaimDeadInstance, ReclaimShutdown} {
		m.reclaimed.WithLabelValues(r)
	}
	return m, registerAll(reg, m.alive, m.reclaimed)
}

// InstancesAlive records how many instances were last seen alive.
func (t *Telemetry) InstancesAlive(n int) { t.failover.alive.Set(float64(n)) }

// JobsReclaimed counts n jobs taken back for reason (ReclaimDeadInstance, ReclaimShutdown).
func (t *Telemetry) JobsReclaimed(reason string, n int) {
	t.failover.reclaimed.WithLabelValues(reason).Add(float64(n))
}

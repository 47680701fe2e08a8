package metrics

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"moviesdiary/internal/usecase/federation"
)

var (
	federationDeliveriesDesc = prometheus.NewDesc("moviesdiary_federation_deliveries",
		"Federation deliveries in the delivery lane by status (pending, sending, parked; done kept a week; dead).",
		[]string{"status"}, nil)
	federationHostsDesc = prometheus.NewDesc("moviesdiary_federation_hosts",
		"Remote servers the delivery lane keeps health for, by state (available, open, unavailable).",
		[]string{"state"}, nil)
)

// FederationLane is what the federation collector reads when scraped.
type FederationLane interface {
	DeliveryCounts(ctx context.Context) (map[string]int, error)
	FederationHosts(ctx context.Context) ([]federation.HostHealth, error)
}

// NewFederationCollector exports the delivery lane's deliveries by status and its hosts by
// state, read when scraped (docs/adr/0005-federation-delivery.md).
func NewFederationCollector(l FederationLane, log *slog.Logger) prometheus.Collector {
	return &federationCollector{l: l, log: log}
}

type federationCollector struct {
	l   FederationLane
	log *slog.Logger
}

func (c *federationCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- federationDeliveriesDesc
	ch <- federationHostsDesc
}

func (c *federationCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	counts, err := c.l.DeliveryCounts(ctx)
	if err != nil {
		c.log.Warn("metrics: cannot count the federation deliveries", "error", err)
		return
	}
	for _, status := range []string{"pending", "sending", "parked", "done", "dead"} {
		ch <- prometheus.MustNewConstMetric(federationDeliveriesDesc, prometheus.GaugeValue, float64(counts[status]), status)
	}
	hosts, err := c.l.FederationHosts(ctx)
	if err != nil {
		c.log.Warn("metrics: cannot read the federation hosts", "error", err)
		return
	}
	states := map[federation.HostState]int{}
	for _, h := range hosts {
		states[h.State]++
	}
	for _, s := range []federation.HostState{federation.HostAvailable, federation.HostOpen, federation.HostUnavailable} {
		ch <- prometheus.MustNewConstMetric(federationHostsDesc, prometheus.GaugeValue, float64(states[s]), string(s))
	}
}

// NewFederationAttempts counts the delivery lane's attempts by outcome: delivered, retry,
// permanent, gone, refused (its domain was blocked after publication: dropped unsent).
func NewFederationAttempts() *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "moviesdiary_federation_delivery_attempts_total",
		Help: "Federation delivery attempts by outcome (delivered, retry, permanent, gone, refused).",
	}, []string{"outcome"})
}

package activitypub

import "github.com/prometheus/client_golang/prometheus"

var ignoredDesc = prometheus.NewDesc("moviesdiary_federation_ignored_total",
	"Inbound activities acknowledged and dropped, by reason: unhandled type (at the inbox, in the server); not a review, invalid review, not about us, blocked instance (in the worker).",
	[]string{"reason"}, nil)

// ignoredCollector reads the use case's counts at each scrape.
type ignoredCollector struct{ f *Federation }

func (c ignoredCollector) Describe(ch chan<- *prometheus.Desc) { ch <- ignoredDesc }

func (c ignoredCollector) Collect(ch chan<- prometheus.Metric) {
	for reason, n := range c.f.Ignored() {
		ch <- prometheus.MustNewConstMetric(ignoredDesc, prometheus.CounterValue, float64(n), reason)
	}
}

// Collector exports Ignored as moviesdiary_federation_ignored_total{reason}, for the worker's
// metrics registry.
func (f *Federation) Collector() prometheus.Collector { return ignoredCollector{f} }

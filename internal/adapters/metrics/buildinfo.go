package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"moviesdiary/internal/buildinfo"
)

// buildInfo is moviesdiary_build_info: always 1, its labels say which build of which binary
// answers, so a dashboard or an alert can tell a rollout apart (count by version).
func buildInfo(service string) prometheus.Collector {
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "moviesdiary_build_info",
		Help: "The running build: always 1, labelled with the binary, its version, VCS revision and Go version.",
		ConstLabels: prometheus.Labels{
			"service": service, "version": buildinfo.Version(), "revision": buildinfo.Revision(),
			"goversion": buildinfo.GoVersion(),
		},
	})
	g.Set(1)
	return g
}

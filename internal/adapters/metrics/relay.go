package metrics

import "github.com/prometheus/client_golang/prometheus"

// newRelayPaused is moviesdiary_relay_paused: 1 while the NATS relay waits out a transport
// failure (nothing is published; the outbox keeps the events), 0 otherwise and with the db
// backend.
func newRelayPaused() prometheus.Gauge {
	return prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "moviesdiary_relay_paused",
		Help: "1 while the NATS relay is paused after a publishing failure (events wait in the outbox), else 0.",
	})
}

// RelayPaused records the relay pausing (true) or resuming (false).
func (w *Worker) RelayPaused(paused bool) {
	v := 0.0
	if paused {
		v = 1
	}
	w.relayPaused.Set(v)
}

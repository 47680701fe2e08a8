// Package metrics exposes moviesdiary's Prometheus metrics: the worker's delivery, queue and bus
// figures. Names start with moviesdiary_.
package metrics

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"moviesdiary/internal/delivery"
)

// Queue reports the outbox's state when metrics are scraped.
type Queue interface {
	QueueCounts(ctx context.Context) (map[string]int, error)
	OldestPending(ctx context.Context) (age time.Duration, ok bool, err error)
}

// Worker holds the worker's metrics. It is a delivery.Observer, and the NATS adapter reports
// redeliveries and reconnects through it.
type Worker struct {
	reg          *prometheus.Registry
	deliveries   *prometheus.CounterVec
	duration     *prometheus.HistogramVec
	takeovers    *prometheus.CounterVec
	redeliveries prometheus.Counter
	reconnects   prometheus.Counter
	relayPaused  prometheus.Gauge
}

var _ delivery.Observer = (*Worker)(nil)

// NewWorker registers the worker's metrics; queue gauges are read from q at scrape time.
func NewWorker(q Queue, log *slog.Logger) *Worker {
	w := &Worker{
		reg: prometheus.NewRegistry(),
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "moviesdiary_deliveries_total",
			Help: "Handler deliveries by outcome: done, skipped (already done), deferred (claim held elsewhere), nacked (transient failure), dead_lettered (permanent failure or the last attempt; handler=\"none\" for dead letters no handler caused), interrupted (shutdown).",
		}, []string{"handler", "outcome"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "moviesdiary_handler_duration_seconds",
			Help:    "How long handlers ran, successful or not.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
		}, []string{"handler"}),
		takeovers: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "moviesdiary_ledger_takeovers_total",
			Help: "Ledger claims taken over after their 1800 s lease expired (the holder died or hung).",
		}, []string{"handler"}),
		redeliveries: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "moviesdiary_jetstream_redeliveries_total",
			Help: "JetStream messages received with a delivery count above 1.",
		}),
		reconnects: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "moviesdiary_nats_reconnects_total",
			Help: "Reconnections to the NATS server.",
		}),
		relayPaused: newRelayPaused(),
	}
	w.reg.MustRegister(buildInfo("worker"), w.deliveries, w.duration, w.takeovers, w.redeliveries, w.reconnects, w.relayPaused,
		&queueCollector{q: q, log: log},
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return w
}

// Register adds a handler area's own metrics (federation's dropped activities) to the worker's
// registry.
func (w *Worker) Register(c prometheus.Collector) error { return w.reg.Register(c) }

// Handlers creates every handler's series at zero, so dashboards and alerts see them before the
// first delivery.
func (w *Worker) Handlers(names ...string) {
	outcomes := []string{delivery.OutcomeDone, delivery.OutcomeSkipped, delivery.OutcomeDeferred,
		delivery.OutcomeNacked, delivery.OutcomeDeadLettered, delivery.OutcomeInterrupted}
	w.deliveries.WithLabelValues(delivery.NoHandler, delivery.OutcomeDeadLettered)
	for _, n := range names {
		for _, o := range outcomes {
			w.deliveries.WithLabelValues(n, o)
		}
		w.duration.WithLabelValues(n)
		w.takeovers.WithLabelValues(n)
	}
}

// HandlerOutcome implements delivery.Observer.
func (w *Worker) HandlerOutcome(handler, outcome string, took time.Duration) {
	w.deliveries.WithLabelValues(handler, outcome).Inc()
	if took > 0 {
		w.duration.WithLabelValues(handler).Observe(took.Seconds())
	}
}

// DeadLettered counts a dead letter no handler's outcome reported: one the queue, the relay or a
// NATS consumer decided on its own (abandoned or lost deliveries, an unpublishable event, a
// broker's delivery limit).
func (w *Worker) DeadLettered() {
	w.deliveries.WithLabelValues(delivery.NoHandler, delivery.OutcomeDeadLettered).Inc()
}

// LedgerTakeOver implements delivery.Observer.
func (w *Worker) LedgerTakeOver(handler string) { w.takeovers.WithLabelValues(handler).Inc() }

// Redelivered counts a JetStream redelivery.
func (w *Worker) Redelivered() { w.redeliveries.Inc() }

// Reconnected counts a reconnection to NATS.
func (w *Worker) Reconnected() { w.reconnects.Inc() }

// Handler serves the metrics in the Prometheus text format.
func (w *Worker) Handler() http.Handler {
	return promhttp.HandlerFor(w.reg, promhttp.HandlerOpts{})
}

var (
	queueDepthDesc = prometheus.NewDesc("moviesdiary_queue_events",
		"Outbox rows by status.", []string{"status"}, nil)
	oldestPendingDesc = prometheus.NewDesc("moviesdiary_queue_oldest_pending_age_seconds",
		"Age of the oldest pending outbox row (0 when none): how far delivery — or, with NATS, the relay — lags behind the writes.", nil, nil)
)

// queueCollector reads the outbox when scraped, so the figures are never stale.
type queueCollector struct {
	q   Queue
	log *slog.Logger
}

func (c *queueCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- queueDepthDesc
	ch <- oldestPendingDesc
}

func (c *queueCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	counts, err := c.q.QueueCounts(ctx)
	if err != nil {
		c.log.Warn("metrics: cannot count the queue", "error", err)
		return
	}
	for _, status := range []string{"pending", "processing", "relayed", "done", "dead_lettered"} {
		ch <- prometheus.MustNewConstMetric(queueDepthDesc, prometheus.GaugeValue, float64(counts[status]), status)
	}
	age, _, err := c.q.OldestPending(ctx)
	if err != nil {
		c.log.Warn("metrics: cannot read the oldest pending event", "error", err)
		return
	}
	ch <- prometheus.MustNewConstMetric(oldestPendingDesc, prometheus.GaugeValue, age.Seconds())
}

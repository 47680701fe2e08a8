package metrics

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Outbox reports committed outbox rows by type, incrementally.
type Outbox interface {
	// EventsSince counts by type the committed rows past cursor, an opaque position the store
	// chose (0 first, then the next it returned last), and returns the next cursor: over a
	// sequence of calls each committed row is counted exactly once and a rolled-back one never.
	EventsSince(ctx context.Context, cursor int64) (counts map[string]int, next int64, err error)
}

var enqueuedDesc = prometheus.NewDesc("moviesdiary_events_enqueued_total",
	"Events committed to the outbox by event type (by any process), counted from the table so a rolled-back write never counts.",
	[]string{"type"}, nil)

// enqueuedCollector keeps running totals, reading only rows committed since the last scrape.
type enqueuedCollector struct {
	src    Outbox
	log    *slog.Logger
	mu     sync.Mutex
	cursor int64
	totals map[string]float64
}

func (c *enqueuedCollector) Describe(ch chan<- *prometheus.Desc) { ch <- enqueuedDesc }

func (c *enqueuedCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	counts, next, err := c.src.EventsSince(ctx, c.cursor)
	if err != nil {
		c.log.Warn("metrics: cannot count enqueued events", "error", err)
	} else {
		for typ, n := range counts {
			c.totals[typ] += float64(n)
		}
		c.cursor = next
	}
	for typ, n := range c.totals {
		ch <- prometheus.MustNewConstMetric(enqueuedDesc, prometheus.CounterValue, n, typ)
	}
}

// CountEnqueued adds moviesdiary_events_enqueued_total, read from src at each scrape.
func (s *Server) CountEnqueued(src Outbox, log *slog.Logger) {
	s.reg.MustRegister(&enqueuedCollector{src: src, log: log, totals: map[string]float64{}})
}

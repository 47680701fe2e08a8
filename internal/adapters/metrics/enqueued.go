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
	EventsSince(ctx context.Context, afterID int64) (map[string]int, int64, error)
}

var enqueuedDesc = prometheus.NewDesc("moviesdiary_events_enqueued_total",
	"Events committed to the outbox by event type (by any process), counted from the table so a rolled-back write never counts.",
	[]string{"type"}, nil)

// enqueuedCollector keeps running totals, reading only rows added since the last scrape.
type enqueuedCollector struct {
	src    Outbox
	log    *slog.Logger
	mu     sync.Mutex
	last   int64
	totals map[string]float64
}

func (c *enqueuedCollector) Describe(ch chan<- *prometheus.Desc) { ch <- enqueuedDesc }

func (c *enqueuedCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	counts, last, err := c.src.EventsSince(ctx, c.last)
	if err != nil {
		c.log.Warn("metrics: cannot count enqueued events", "error", err)
	} else {
		for typ, n := range counts {
			c.totals[typ] += float64(n)
		}
		c.last = last
	}
	for typ, n := range c.totals {
		ch <- prometheus.MustNewConstMetric(enqueuedDesc, prometheus.CounterValue, n, typ)
	}
}

// CountEnqueued adds moviesdiary_events_enqueued_total, read from src at each scrape.
func (s *Server) CountEnqueued(src Outbox, log *slog.Logger) {
	s.reg.MustRegister(&enqueuedCollector{src: src, log: log, totals: map[string]float64{}})
}

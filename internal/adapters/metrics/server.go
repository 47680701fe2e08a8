package metrics

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Server holds the HTTP server's metrics: requests by route and status, and their latency.
type Server struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

// NewServer registers the server's metrics and the Go runtime's.
func NewServer() *Server {
	s := &Server{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "moviesdiary_http_requests_total",
			Help: "HTTP requests by route pattern, method and status.",
		}, []string{"route", "method", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "moviesdiary_http_request_duration_seconds",
			Help:    "HTTP request latency by route pattern and method.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
		}, []string{"route", "method"}),
	}
	s.reg.MustRegister(buildInfo("server"), s.requests, s.duration, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return s
}

// ObserveRequest records one request; route is the pattern (/api/v1/reviews/{id}), never the
// raw path, so the series stay few.
func (s *Server) ObserveRequest(route, method string, status int, took time.Duration) {
	s.requests.WithLabelValues(route, method, strconv.Itoa(status)).Inc()
	s.duration.WithLabelValues(route, method).Observe(took.Seconds())
}

// Register adds an area's own metrics (federation's dropped activities) to the server's
// registry.
func (s *Server) Register(c prometheus.Collector) error { return s.reg.Register(c) }

// Handler serves the metrics in the Prometheus text format.
func (s *Server) Handler() http.Handler { return promhttp.HandlerFor(s.reg, promhttp.HandlerOpts{}) }

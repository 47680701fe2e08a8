package httpserve

import (
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
)

// TestMetricsOffWhenNoAddress: an empty address turns the metrics server off without an error.
func TestMetricsOffWhenNoAddress(t *testing.T) {
	m := Metrics{Env: "X_METRICS_ADDR", Handler: http.NotFoundHandler(), Log: slog.New(slog.DiscardHandler)}
	if err := m.Run(t.Context()); err != nil {
		t.Fatalf("Run without an address = %v, want nil", err)
	}
}

// TestMetricsNamesTheVariableOfAPortInUse: a port that cannot be bound stops the binary with an
// error naming the variable the operator has to change.
func TestMetricsNamesTheVariableOfAPortInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	m := Metrics{Addr: ln.Addr().String(), Env: "X_METRICS_ADDR", Handler: http.NotFoundHandler(), Log: slog.New(slog.DiscardHandler)}
	err = m.Run(t.Context())
	if err == nil || !strings.HasPrefix(err.Error(), "X_METRICS_ADDR: listen on ") {
		t.Fatalf("Run on a bound port = %v, want an error naming X_METRICS_ADDR", err)
	}
}

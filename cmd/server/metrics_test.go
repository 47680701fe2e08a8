package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"moviesdiary/internal/config"
	"moviesdiary/internal/delivery/deliverytest"
)

// TestMetricsServedOnTheirOwnAddress: /metrics answers on SERVER_METRICS_ADDR with the request
// counts and the build info, and is a 404 on the public API port.
func TestMetricsServedOnTheirOwnAddress(t *testing.T) {
	t.Setenv("DATA_DIR", t.TempDir())
	cfg, err := config.Load()
	if err != nil {
		t.Fatal(err)
	}
	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	metricsAddr := free.Addr().String()
	free.Close()
	cfg.Host, cfg.Port, cfg.ServerMetricsAddr = "127.0.0.1", 0, metricsAddr
	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan string, 1)
	errc := make(chan error, 1)
	go func() { errc <- run(ctx, cfg, testLog(t), time.Now, addr) }()
	base := "http://" + <-addr
	client := &http.Client{Transport: &http.Transport{}}
	get := func(url string) (int, string) {
		resp, err := client.Get(url)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, _ := get(base + "/metrics"); code != 404 {
		t.Errorf("GET /metrics on the API port = %d, want 404", code)
	}
	var body string
	deliverytest.Eventually(t, 10*time.Second, "metrics listening", func() bool {
		var code int
		code, body = get("http://" + metricsAddr + "/metrics")
		return code == 200
	})
	for _, want := range []string{`moviesdiary_build_info{`, `service="server"`,
		`moviesdiary_http_requests_total{method="GET",route="unmatched",status="404"} 1`, "moviesdiary_data_dir_free_bytes"} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	client.CloseIdleConnections()
	cancel()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

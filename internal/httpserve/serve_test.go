package httpserve

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestServeAnswersUntilCancelledThenReturns: requests are served while the context lives, and
// Serve returns nil once it is cancelled, with the listener closed.
func TestServeAnswersUntilCancelledThenReturns(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "ok")
	}), ReadHeaderTimeout: time.Second}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, srv, ln, time.Second, slog.New(slog.DiscardHandler)) }()

	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Get("http://" + ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if string(body) != "ok" {
		t.Fatalf("body = %q", body)
	}

	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Serve after cancel = %v, want nil", err)
	}
	if _, err := client.Get("http://" + ln.Addr().String()); err == nil {
		t.Fatal("listener still answers after Serve returned")
	}
}

// TestServeReportsAListenerThatFails: a server whose listener is closed under it is an error, not
// a silent stop.
func TestServeReportsAListenerThatFails(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_ = ln.Close()
	srv := &http.Server{ReadHeaderTimeout: time.Second}
	if err := Serve(t.Context(), srv, ln, time.Second, slog.New(slog.DiscardHandler)); err == nil {
		t.Fatal("Serve on a closed listener = nil, want an error")
	}
}

package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"

	"moviesdiary/internal/config"
)

// healthcheck asks this host's server for GET /ready and succeeds only on 200: the container
// healthcheck, so the image needs no curl. The address is HOST:PORT, with a wildcard HOST
// (0.0.0.0, ::, empty) asked on loopback; --url overrides it.
func healthcheck(ctx context.Context, cfg config.Config, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("healthcheck", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	url := fs.String("url", "", "readiness URL to ask (default http://HOST:PORT/ready)")
	timeout := fs.Duration("timeout", 5*time.Second, "give up after this long")
	quiet := fs.Bool("q", false, "print nothing on success")
	positional, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(positional) > 0 {
		return fmt.Errorf("%w: healthcheck takes no arguments", errUsage)
	}
	if *url == "" {
		*url = readyURL(cfg)
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, *url, nil)
	if err != nil {
		return fmt.Errorf("%w: --url: %v", errUsage, err)
	}
	resp, err := (&http.Client{Transport: &http.Transport{Proxy: nil}}).Do(req)
	if err != nil {
		return fmt.Errorf("not ready: %w", err)
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("not ready: %s answered %d %s", *url, resp.StatusCode, body)
	}
	if !*quiet {
		fmt.Fprintf(stdout, "ready: %s\n", *url)
	}
	return nil
}

// readyURL is /ready on the address the server listens on.
func readyURL(cfg config.Config) string {
	host := cfg.Host
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, strconv.Itoa(cfg.Port)) + "/ready"
}

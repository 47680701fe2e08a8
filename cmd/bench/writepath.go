package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/app"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/auth"

	"github.com/jmoiron/sqlx"
)

// writePathRounds is how many back-to-back pairs (outbox, no enqueue) are measured. Each pair's
// ratio is taken on its own, in alternating order, and the median reported, so load from other
// work on the machine mostly cancels out instead of favouring one mode.
const writePathRounds = 5

// writeMode is one store setting the write path is measured with: its rows' prefix and label,
// and how to open a fresh migrated store with it, with or without the outbox (name is unique
// per run).
type writeMode struct {
	store, prefix, label string // "SQLite", "write path", "synchronous=normal"
	// short names the mode in the "vs" row of another mode of its store ("normal").
	short string
	open  func(ctx context.Context, name string, outbox bool) (app.Store, func() error, error)
}

// sqliteWriteModes are the write path's SQLite settings, on files in dir.
func sqliteWriteModes(dir string, modes []sqlite.Synchronous, log *slog.Logger) []writeMode {
	var out []writeMode
	for _, m := range modes {
		out = append(out, writeMode{store: "SQLite", prefix: "write path", label: "synchronous=" + string(m), short: string(m),
			open: func(ctx context.Context, name string, outbox bool) (app.Store, func() error, error) {
				opts := []sqlite.Option{sqlite.WithSynchronous(m)}
				if !outbox {
					opts = append(opts, sqlite.WithEnqueue(func(context.Context, *sqlx.Tx, time.Time, ...domain.Event) error { return nil }))
				}
				s, err := sqlite.OpenMigrated(ctx, filepath.Join(dir, name+".db"), log, opts...)
				if err != nil {
					return nil, nil, err
				}
				return s, s.Close, nil
			}})
	}
	return out
}

// writePath measures the server's write path: POST /api/v1/reviews over loopback HTTP with
// clients concurrent clients as spread users, each reviewing a movie of its own (a spread of one:
// every review updates the same user's and movie's counters) for d per run, with the outbox (every review commits its
// ReviewLogged in its transaction) and with the enqueue removed, for each mode, and returns a
// row for each, one for the outbox's cost per mode and, with several modes, one for each mode's
// throughput against the first's, and each mode's median rate with the outbox. Every round runs
// all of them back to back in rotating order, and ratios are taken within a round, so load from
// other work on the machine mostly cancels out instead of favouring one run.
func writePath(ctx context.Context, clients, spread int, d time.Duration, modes []writeMode, log *slog.Logger) ([]row, []float64, error) {
	if clients < 1 || spread < 1 || d <= 0 || len(modes) == 0 {
		return nil, nil, fmt.Errorf("write path: clients, spread, duration and settings must be positive")
	}
	load := fmt.Sprintf("%d clients", clients)
	if spread > 1 {
		load += fmt.Sprintf(" as %d users on %d movies", spread, spread)
	}
	type key struct {
		mode   int
		outbox bool
	}
	var runs []key
	for m := range modes {
		runs = append(runs, key{m, true}, key{m, false})
	}
	samples := map[key][]float64{}
	costs := map[int][]float64{}
	vsFirst := map[int][]float64{}
	for round := range writePathRounds {
		rates := map[key]float64{}
		for i := range runs {
			k := runs[(i+round)%len(runs)]
			if round%2 == 1 {
				k = runs[len(runs)-1-(i+round)%len(runs)]
			}
			m := modes[k.mode]
			name := fmt.Sprintf("writepath-%s-%d-%v", strings.NewReplacer("=", "-", " ", "-", ":", "").Replace(m.prefix+"-"+m.label), round, k.outbox)
			rate, err := writePathRun(ctx, m, name, k.outbox, clients, spread, d, log)
			if err != nil {
				return nil, nil, fmt.Errorf("%s, %s: %w", m.prefix, m.label, err)
			}
			rates[k] = rate
			samples[k] = append(samples[k], rate)
		}
		for m := range modes {
			costs[m] = append(costs[m], rates[key{m, true}]/rates[key{m, false}])
			vsFirst[m] = append(vsFirst[m], rates[key{m, true}]/rates[key{0, true}])
		}
	}
	var rows []row
	var medians []float64
	for m, mode := range modes {
		tag := ", " + mode.label
		ratio := median(costs[m])
		medians = append(medians, median(samples[key{m, true}]))
		rows = append(rows,
			row{scenario: mode.prefix + ": POST /reviews, outbox" + tag, result: fmt.Sprintf("%.0f req/s median (%s, loopback, %d runs of %s)",
				median(samples[key{m, true}]), load, writePathRounds, d)},
			row{scenario: mode.prefix + ": POST /reviews, no enqueue" + tag, result: fmt.Sprintf("%.0f req/s median", median(samples[key{m, false}]))},
			row{scenario: mode.prefix + ": outbox cost" + tag, result: fmt.Sprintf("%.1f%% slower (median ratio of paired runs %.3f; target < 10%%)", 100*(1-ratio), ratio)})
	}
	for m, mode := range modes[1:] {
		first := modes[0].short
		if mode.store != modes[0].store {
			first = modes[0].store + " " + modes[0].label
		}
		rows = append(rows, row{scenario: fmt.Sprintf("%s: %s vs %s", mode.prefix, mode.label, first),
			result: fmt.Sprintf("%.0f%% of its throughput (outbox; median ratio within rounds)", 100*median(vsFirst[m+1]))})
	}
	return rows, medians, nil
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// writePathRun serves the real API over a fresh store of mode and posts reviews for d, client i
// as user i mod spread, of that user's movie, after as long again untimed, returning requests per second.
func writePathRun(ctx context.Context, mode writeMode, name string, outbox bool, clients, spread int, d time.Duration, log *slog.Logger) (float64, error) {
	store, closeStore, err := mode.open(ctx, name, outbox)
	if err != nil {
		return 0, err
	}
	defer closeStore()
	api, err := app.NewAPI(store, app.Options{
		Log: log, BaseURL: "http://127.0.0.1", Secret: []byte("bench secret, thirty-two bytes!!"),
		AllowRegistration: true, AuthRateLimit: 1000, Hasher: auth.Hasher{Memory: 64, Time: 1, Threads: 1},
	})
	if err != nil {
		return 0, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	srv := &http.Server{Handler: api.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()
	base := "http://" + ln.Addr().String()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}, Timeout: 30 * time.Second}
	defer client.CloseIdleConnections()

	// Writer i is user i with a review of movie i already logged, so every timed request finds
	// its movie and writes exactly one event; writer 0 is the one of a spread of one.
	type writer struct{ token, review string }
	writers := make([]writer, spread)
	for i := range writers {
		name, title := "bench", "Heat"
		if i > 0 {
			name, title = fmt.Sprintf("bench%d", i+1), fmt.Sprintf("Heat %d", i+1)
		}
		creds := fmt.Sprintf(`{"email":"%s@example.test","username":%q,"password":"password-bench"}`, name, name)
		if _, err := writePathPost(ctx, client, base+"/api/v1/auth/register", "", creds, http.StatusCreated); err != nil {
			return 0, err
		}
		body, err := writePathPost(ctx, client, base+"/api/v1/auth/login", "", creds, http.StatusOK)
		if err != nil {
			return 0, err
		}
		var login struct {
			Token string `json:"token"`
		}
		if err := json.Unmarshal(body, &login); err != nil {
			return 0, fmt.Errorf("login: %w", err)
		}
		review := fmt.Sprintf(`{"manual_title":%q,"manual_release_year":1995,"rating":4,"watched_at":"2024-03-01"}`, title)
		if _, err := writePathPost(ctx, client, base+"/api/v1/reviews", login.Token, review, http.StatusCreated); err != nil {
			return 0, err
		}
		writers[i] = writer{login.Token, review}
	}

	var (
		done     atomic.Int64
		firstErr error
		errOnce  sync.Once
		wg       sync.WaitGroup
	)
	// The clients post for d before the timed d: the pools open their connections (PostgreSQL's
	// each with a SCRAM exchange) and the caches fill, which made a 1-second run of a fresh
	// PostgreSQL database half as fast as its steady state.
	runCtx, cancel := context.WithTimeout(ctx, 2*d)
	defer cancel()
	for c := range clients {
		w := writers[c%spread]
		wg.Go(func() {
			for runCtx.Err() == nil {
				if _, err := writePathPost(ctx, client, base+"/api/v1/reviews", w.token, w.review, http.StatusCreated); err != nil {
					errOnce.Do(func() { firstErr = err })
					cancel()
					return
				}
				done.Add(1)
			}
		})
	}
	before, start := warmedUp(runCtx, d, &done)
	wg.Wait()
	if firstErr != nil {
		return 0, firstErr
	}
	return float64(done.Load()-before) / time.Since(start).Seconds(), nil
}

// warmedUp waits out a run's untimed warm-up (warm, or until ctx ends) and returns the count
// so far and the time the timed part began: its rate is (n then − before) / time since start.
func warmedUp(ctx context.Context, warm time.Duration, n *atomic.Int64) (before int64, start time.Time) {
	t := time.NewTimer(warm)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
	return n.Load(), time.Now()
}

// writePathPost sends a JSON body and returns the response body, failing on any other status than want.
func writePathPost(ctx context.Context, c *http.Client, url, token, body string, want int) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewBufferString(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != want {
		return nil, fmt.Errorf("POST %s: %d %s", url, resp.StatusCode, out)
	}
	return out, nil
}

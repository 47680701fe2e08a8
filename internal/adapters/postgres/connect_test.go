package postgres_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"moviesdiary/internal/adapters/postgres"
	"moviesdiary/internal/adapters/postgres/pgtest"
	"moviesdiary/internal/delivery/deliverytest"
)

// syncBuffer is a log sink safe for the store's retries and the test's reads.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestOpenWaitsForTheDatabase: a process that starts before PostgreSQL accepts connections
// retries (saying so) and connects once it does; without the wait it fails at once, and it gives
// up after the wait.
func TestOpenWaitsForTheDatabase(t *testing.T) {
	t.Parallel()
	_, real := open(t)
	u, err := url.Parse(real)
	if err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(u.Query().Get("host"), ".s.PGSQL.5432")
	// The store is pointed at a socket directory where nothing listens yet.
	late := t.TempDir()
	q := u.Query()
	q.Set("host", late)
	u.RawQuery = q.Encode()
	ctx := context.Background()

	if _, err := postgres.Open(ctx, u.String()); err == nil {
		t.Fatal("Open without a wait connected to nothing")
	}
	start := time.Now()
	if _, err := postgres.Open(ctx, u.String(), postgres.WithConnectWait(time.Second, slog.New(slog.DiscardHandler))); err == nil ||
		time.Since(start) < 500*time.Millisecond {
		t.Fatalf("Open with a 1 s wait: %v after %s; want a failure after retrying", err, time.Since(start))
	}

	logs := &syncBuffer{}
	opened := make(chan error, 1)
	go func() {
		s, err := postgres.Open(ctx, u.String(), postgres.WithConnectWait(time.Minute, slog.New(slog.NewTextHandler(logs, nil))))
		if err == nil {
			err = s.Close()
		}
		opened <- err
	}()
	deliverytest.Eventually(t, 30*time.Second, "a retry logged", func() bool {
		return strings.Contains(logs.String(), "PostgreSQL does not answer yet")
	})
	// PostgreSQL "comes up": a socket in that directory forwards to the real server.
	newProxy(t, late, target)
	select {
	case err := <-opened:
		if err != nil {
			t.Fatalf("Open after the database came up: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Open still waiting after the database came up")
	}
}

// proxy is a unix socket in dir (as PostgreSQL's, .s.PGSQL.5432) forwarding to target; while
// down, it drops the connections it carries and closes new ones at once, as a restarting
// server does.
type proxy struct {
	down  atomic.Bool
	mu    sync.Mutex
	conns []net.Conn
}

func newProxy(t *testing.T, dir, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("unix", filepath.Join(dir, ".s.PGSQL.5432"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	p := &proxy{}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			if p.down.Load() {
				c.Close()
				continue
			}
			d, err := net.Dial("unix", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, d)
			p.mu.Unlock()
			go func() { io.Copy(d, c); d.Close() }()
			go func() { io.Copy(c, d); c.Close() }()
		}
	}()
	return p
}

// setDown takes the "server" down (dropping every connection) or brings it back.
func (p *proxy) setDown(down bool) {
	p.down.Store(down)
	if down {
		p.mu.Lock()
		for _, c := range p.conns {
			c.Close()
		}
		p.conns = nil
		p.mu.Unlock()
	}
}

// TestOpenMigratedOutlivesARestartBeforeTheMigration: the database answers the first ping, then
// goes away before the migration runs (a restart); OpenMigrated tries again within its wait and
// returns a migrated store once the database is back, instead of failing the start.
func TestOpenMigratedOutlivesARestartBeforeTheMigration(t *testing.T) {
	t.Parallel()
	real := pgtest.Empty(t)
	u, err := url.Parse(real)
	if err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(u.Query().Get("host"), ".s.PGSQL.5432")
	dir := t.TempDir()
	q := u.Query()
	q.Set("host", dir)
	u.RawQuery = q.Encode()
	p := newProxy(t, dir, target)

	logs := &syncBuffer{}
	log := slog.New(slog.NewTextHandler(logs, nil))
	// The first ping passes; the store's first statement after it finds the server gone.
	pinged := make(chan struct{})
	go func() {
		<-pinged
		p.setDown(true)
		deliverytest.Eventually(t, 30*time.Second, "a failed migration retried", func() bool {
			return strings.Contains(logs.String(), "went away during the migration") ||
				strings.Contains(logs.String(), "does not answer yet")
		})
		p.setDown(false)
	}()
	s, err := postgres.OpenMigrated(context.Background(), u.String(), log,
		postgres.WithConnectWait(time.Minute, log), postgres.WithBeforeMigrate(func() { close(pinged) }))
	if err != nil {
		t.Fatalf("OpenMigrated across a restart: %v\n%s", err, logs.String())
	}
	defer s.Close()
	if v, dirty, err := s.Version(context.Background()); err != nil || dirty || v == 0 {
		t.Fatalf("version %d dirty %v: %v", v, dirty, err)
	}
}

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
	"testing"
	"time"

	"moviesdiary/internal/adapters/postgres"
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
	ln, err := net.Listen("unix", filepath.Join(late, ".s.PGSQL.5432"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				d, err := net.Dial("unix", target)
				if err != nil {
					return
				}
				defer d.Close()
				go io.Copy(d, c)
				io.Copy(c, d)
			}()
		}
	}()
	select {
	case err := <-opened:
		if err != nil {
			t.Fatalf("Open after the database came up: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Open still waiting after the database came up")
	}
}

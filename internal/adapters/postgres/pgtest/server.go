package pgtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// durableConf is appended to the postgresql.conf of a Server: PostgreSQL's own defaults
// (fsync, synchronous_commit and full_page_writes on, shared_buffers 128MB), listening on its
// unix socket only, so what a benchmark measures is what an installation would run.
const durableConf = `
listen_addresses = ''
log_min_messages = warning
log_min_error_statement = panic
`

// Server is a throwaway cluster for a program rather than a test (cmd/bench): unlike the tests'
// cluster it keeps PostgreSQL's durable defaults, and it needs no testing.TB. A watchdog stops it
// if the program dies before Stop.
type Server struct{ c *cluster }

// StartDurable runs initdb into a new temporary directory and starts a server with PostgreSQL's
// durable defaults on a unix socket there; settings are further postgresql.conf lines
// ("shared_preload_libraries = 'pg_stat_statements'").
func StartDurable(ctx context.Context, settings ...string) (*Server, error) {
	conf := durableConf
	for _, s := range settings {
		conf += s + "\n"
	}
	c, err := start(ctx, conf)
	if err != nil {
		return nil, err
	}
	return &Server{c: c}, nil
}

// CreateDatabase creates the empty database name and returns its URL (postgres://…?host=<socket
// dir>); it lives until Stop.
func (s *Server) CreateDatabase(ctx context.Context, name string) (string, error) {
	if err := s.c.exec(ctx, "CREATE DATABASE "+quoteIdent(name)+" TEMPLATE template0"); err != nil {
		return "", fmt.Errorf("create database %s: %w", name, err)
	}
	return s.c.url(name), nil
}

// PID is the postmaster's process id, read from its postmaster.pid: every backend is its child.
func (s *Server) PID() (int, error) {
	b, err := os.ReadFile(filepath.Join(s.c.data, "postmaster.pid"))
	if err != nil {
		return 0, err
	}
	first, _, _ := strings.Cut(string(b), "\n")
	return strconv.Atoi(strings.TrimSpace(first))
}

// Stop stops the server at once and removes its directory.
func (s *Server) Stop() error { return s.c.stop() }

// Package pgtest runs the tests of a package against a real, throwaway PostgreSQL server: the
// Debian postgresql binaries' initdb into a temporary directory, pg_ctl start on a unix socket
// there (no TCP), one cluster per test binary, a fresh database per test. A package opts in with
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
//
// and its tests call Empty or FromTemplate. The cluster starts on the first call and Main stops
// it and removes its directory after the tests; a watchdog does the same if the test binary is
// killed first.
//
// Without PostgreSQL installed a test fails naming the Debian package (.ci/run installs it), or
// with testtool's fast switch (make test-fast) is skipped saying so. initdb and postgres refuse
// to run as root: as root, they run as the postgres system user (or nobody).
//
// The tests' cluster trades durability for speed (fsync and synchronous_commit off). A program
// that measures PostgreSQL (cmd/bench) starts a Server instead: StartDurable keeps PostgreSQL's
// durable defaults and needs no testing.TB.
package pgtest

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"moviesdiary/internal/testtool"
)

// shared is the test binary's cluster, started by the first test that needs one.
var shared struct {
	once sync.Once
	c    *cluster
	err  error

	mu        sync.Mutex // serialises CREATE DATABASE and template preparation
	n         int        // databases made so far, for their names
	templates map[string]error
}

// Main runs the package's tests, then stops the cluster if a test started one. Call it from
// TestMain and exit with its code.
func Main(m *testing.M) int {
	code := m.Run()
	if shared.c != nil {
		if err := shared.c.stop(); err != nil {
			fmt.Fprintf(os.Stderr, "pgtest: stopping the throwaway PostgreSQL: %v\n", err)
			if code == 0 {
				code = 1
			}
		}
	}
	return code
}

// Require ends the test as testtool.Missing says (a failure, or a skip under the fast switch)
// when PostgreSQL's server binaries are missing or MOVIESDIARY_TEST_WITHOUT names postgresql:
// for a test that starts a Server itself. The tests' cluster checks it on every call.
func Require(t testing.TB) {
	t.Helper()
	if testtool.Hidden(testtool.PostgreSQL) {
		testtool.Missing(t, testtool.PostgreSQL, fmt.Errorf("left out by %s", testtool.WithoutEnv))
	}
	if _, _, err := findBinaries(); err != nil {
		testtool.Missing(t, testtool.PostgreSQL, err)
	}
}

// get returns the running cluster, starting it on the first call; on a machine without
// PostgreSQL the test ends as Require says.
func get(t testing.TB) *cluster {
	t.Helper()
	Require(t)
	shared.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		shared.c, shared.err = start(ctx, tuning)
	})
	if shared.err != nil {
		t.Fatalf("pgtest: start a throwaway PostgreSQL: %v", shared.err)
	}
	return shared.c
}

// Empty creates a new empty database for the test, dropped when it ends, and returns its URL
// (postgres://…?host=<socket dir>).
func Empty(t testing.TB) string {
	t.Helper()
	return create(t, "template0")
}

// FromTemplate creates a new database for the test as a copy of the template name, which prepare
// builds once per test binary (migrates it, typically) on the first call; the copy is dropped
// when the test ends. prepare must close every connection it opened to the template.
func FromTemplate(t testing.TB, name string, prepare func(ctx context.Context, url string) error) string {
	t.Helper()
	c := get(t)
	shared.mu.Lock()
	if shared.templates == nil {
		shared.templates = map[string]error{}
	}
	err, done := shared.templates[name]
	if !done {
		err = makeTemplate(c, name, prepare)
		shared.templates[name] = err
	}
	shared.mu.Unlock()
	if err != nil {
		t.Fatalf("pgtest: template %s: %v", name, err)
	}
	return create(t, name)
}

func makeTemplate(c *cluster, name string, prepare func(ctx context.Context, url string) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := c.exec(ctx, "CREATE DATABASE "+quoteIdent(name)+" TEMPLATE template0"); err != nil {
		return err
	}
	if err := prepare(ctx, c.url(name)); err != nil {
		return err
	}
	// Copies need the template to have no sessions; prepare closed its own, whose backends may
	// still be on their way out.
	err := c.exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1`, name)
	return err
}

// create makes a database copied from template and drops it when the test ends.
func create(t testing.TB, template string) string {
	t.Helper()
	c := get(t)
	shared.mu.Lock()
	shared.n++
	name := fmt.Sprintf("test_%d", shared.n)
	shared.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	strategy := c.strat
	if template == "template0" {
		strategy = "" // template0 is tiny either way
	}
	if err := c.exec(ctx, "CREATE DATABASE "+quoteIdent(name)+" TEMPLATE "+quoteIdent(template)+strategy); err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := c.exec(ctx, "DROP DATABASE "+quoteIdent(name)+" WITH (FORCE)"); err != nil {
			t.Errorf("pgtest: drop database %s: %v", name, err)
		}
	})
	return c.url(name)
}

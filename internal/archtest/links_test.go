package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
)

// linked lists the packages of pkgs' builds (their transitive non-test dependencies) for which
// is reports true.
func linked(t *testing.T, is func(pkg string) bool, pkgs ...string) []string {
	t.Helper()
	var found []string
	for _, p := range strings.Fields(string(goList(t, append([]string{"-deps"}, pkgs...)...))) {
		if is(p) {
			found = append(found, p)
		}
	}
	return found
}

// natsPackage reports whether p is NATS: the nats-io client or server, or our adapter over it.
func natsPackage(p string) bool {
	return strings.Contains(p, "nats-io") || p == "moviesdiary/internal/adapters/nats"
}

// TestServerDoesNotLinkNATS enforces that the HTTP server only writes the outbox (DESIGN.md,
// invariant 3): no package of its build may come from nats-io (neither our adapter's client nor
// the server library). The worker's build, which does link NATS, shows the check can fail.
func TestServerDoesNotLinkNATS(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		pkg      string
		wantNATS bool
	}{
		{"moviesdiary/cmd/server", false},
		{"moviesdiary/cmd/worker", true}, // the check itself works
	} {
		nats := linked(t, natsPackage, tc.pkg)
		if got := len(nats) > 0; got != tc.wantNATS {
			t.Errorf("%s links NATS packages: %v (want %v)", tc.pkg, nats, tc.wantNATS)
		}
	}
}

// sqlPackage reports whether p opens or drives a database: database/sql, sqlx, or a driver.
// database/sql/driver is not among them: it only declares the Valuer and Scanner interfaces,
// which value types such as uuid.UUID implement.
func sqlPackage(p string) bool {
	if p == "database/sql" {
		return true
	}
	for _, prefix := range []string{
		"github.com/jmoiron/sqlx", "github.com/mattn/go-sqlite3", "github.com/jackc/pgx",
		"github.com/lib/pq", "modernc.org/sqlite", "github.com/golang-migrate/migrate",
	} {
		if p == prefix || strings.HasPrefix(p, prefix+"/") {
			return true
		}
	}
	return false
}

// TestUseCasesLinkNoSQL enforces that use cases never open transactions (DESIGN.md, invariant
// 1; the adapters own them): no package of internal/domain or internal/usecase/** may build on
// database/sql, sqlx or a database driver, whether it imports one itself or through anything it
// imports. The SQLite store, which does, shows the check can fail.
func TestUseCasesLinkNoSQL(t *testing.T) {
	t.Parallel()
	dec := json.NewDecoder(bytes.NewReader(goList(t, "-json=ImportPath,Deps",
		"moviesdiary/internal/domain/...", "moviesdiary/internal/usecase/...", "moviesdiary/internal/adapters/sqlite")))
	seen := 0
	for {
		var p struct {
			ImportPath string
			Deps       []string
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		sql := slices.DeleteFunc(p.Deps, func(d string) bool { return !sqlPackage(d) })
		if p.ImportPath == "moviesdiary/internal/adapters/sqlite" {
			if len(sql) == 0 {
				t.Error("the SQLite store builds on no SQL package: the check would be vacuous")
			}
			continue
		}
		seen++
		if len(sql) > 0 {
			t.Errorf("%s builds on %v: a use case must not see a database handle", p.ImportPath, sql)
		}
	}
	if seen < 10 {
		t.Fatalf("go list returned %d domain and use case packages; the check would be vacuous", seen)
	}
}

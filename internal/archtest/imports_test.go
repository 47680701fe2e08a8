package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
)

// importRule says why pkg may not import imp, or "" when it may. Dependencies point inward
// (DESIGN.md): internal/domain imports nothing of ours; internal/usecase/** imports only
// internal/domain and internal/usecase/**; only cmd/* and internal/app/** import
// internal/adapters/** (an adapter may import its own subpackages, such as sqlite/sqlitetest,
// but no other adapter), so internal/delivery, internal/maintenance and internal/config import
// no adapters. The store written once for both engines (sqlstore) and the rows it reads
// (sqlrow) are the exception: the SQL stores (sqlite, postgres, sqlstore) share them.
func importRule(pkg, imp string) string {
	const mod = "moviesdiary/"
	if !strings.HasPrefix(imp, mod) {
		return ""
	}
	p, i := strings.TrimPrefix(pkg, mod), strings.TrimPrefix(imp, mod)
	under := func(path, dir string) bool { return path == dir || strings.HasPrefix(path, dir+"/") }
	adapter := func(path string) string { // "sqlite" for internal/adapters/sqlite/…
		name, _, _ := strings.Cut(strings.TrimPrefix(path, "internal/adapters/"), "/")
		return name
	}
	sqlStore := func(path string) bool {
		switch adapter(path) {
		case "sqlite", "postgres", "sqlstore":
			return under(path, "internal/adapters")
		}
		return false
	}
	switch {
	case under(p, "internal/domain") && !under(i, "internal/domain"):
		return "internal/domain imports nothing of ours"
	case under(p, "internal/usecase") && !under(i, "internal/domain") && !under(i, "internal/usecase"):
		return "internal/usecase imports only internal/domain and internal/usecase"
	case (under(i, "internal/adapters/sqlrow") || under(i, "internal/adapters/sqlstore")) && sqlStore(p):
		return "" // the store written once and the rows it reads, shared by the SQL stores only
	case under(i, "internal/adapters") && !under(p, "cmd") && !under(p, "internal/app") &&
		!(under(p, "internal/adapters") && adapter(p) == adapter(i)):
		return "only cmd/* and internal/app/** import adapters (an adapter only its own subpackages; sqlstore and sqlrow the SQL stores)"
	}
	return ""
}

// TestImportRuleCatchesEachBreak: importRule rejects each kind of break and allows each kind
// of import the layout needs, so TestImportRules cannot pass by allowing everything.
func TestImportRuleCatchesEachBreak(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		pkg, imp string
		bad      bool
	}{
		{"moviesdiary/internal/domain", "moviesdiary/internal/delivery", true},
		{"moviesdiary/internal/domain", "github.com/google/uuid", false},
		{"moviesdiary/internal/usecase/review", "moviesdiary/internal/usecase/movie", false},
		{"moviesdiary/internal/usecase/review", "moviesdiary/internal/delivery", true},
		{"moviesdiary/internal/usecase/federation", "moviesdiary/internal/adapters/activitypub", true},
		{"moviesdiary/internal/delivery", "moviesdiary/internal/adapters/sqlite", true},
		{"moviesdiary/internal/maintenance", "moviesdiary/internal/adapters/sqlite", true},
		{"moviesdiary/internal/adapters/httpapi", "moviesdiary/internal/adapters/sqlite", true},
		{"moviesdiary/internal/adapters/sqlite/sqlitetest", "moviesdiary/internal/adapters/sqlite", false},
		{"moviesdiary/internal/adapters/nats", "moviesdiary/internal/delivery", false},
		{"moviesdiary/internal/app", "moviesdiary/internal/adapters/sqlite", false},
		{"moviesdiary/internal/app/mediatest", "moviesdiary/internal/adapters/sqlite", false},
		{"moviesdiary/cmd/worker", "moviesdiary/internal/adapters/nats", false},
		{"moviesdiary/internal/adapters/postgres", "moviesdiary/internal/adapters/sqlrow", false},
		{"moviesdiary/internal/adapters/sqlite", "moviesdiary/internal/adapters/sqlstore", false},
		{"moviesdiary/internal/adapters/postgres", "moviesdiary/internal/adapters/sqlstore", false},
		{"moviesdiary/internal/adapters/sqlstore", "moviesdiary/internal/adapters/sqlrow", false},
		{"moviesdiary/internal/adapters/httpapi", "moviesdiary/internal/adapters/sqlrow", true},
		{"moviesdiary/internal/adapters/httpapi", "moviesdiary/internal/adapters/sqlstore", true},
		{"moviesdiary/internal/adapters/sqlstore", "moviesdiary/internal/adapters/sqlite", true},
		{"moviesdiary/internal/adapters/postgres", "moviesdiary/internal/adapters/sqlite", true},
		{"moviesdiary/internal/usecase/review", "moviesdiary/internal/adapters/sqlstore", true},
	} {
		if got := importRule(c.pkg, c.imp) != ""; got != c.bad {
			t.Errorf("%s importing %s: broken %v, want %v", c.pkg, c.imp, got, c.bad)
		}
	}
}

// TestImportRules enforces importRule on every package of the module, from `go list` (non-test
// imports only: test files are exempt).
func TestImportRules(t *testing.T) {
	t.Parallel()
	dec := json.NewDecoder(bytes.NewReader(goList(t, "-json=ImportPath,Imports", "moviesdiary/...")))
	seen := 0
	for {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		seen++
		var broken []string
		for _, imp := range p.Imports {
			if why := importRule(p.ImportPath, imp); why != "" {
				broken = append(broken, imp+" ("+why+")")
			}
		}
		if len(broken) > 0 {
			t.Errorf("%s imports %s", p.ImportPath, strings.Join(broken, ", "))
		}
	}
	if seen < 20 {
		t.Fatalf("go list returned %d packages; the check would be vacuous", seen)
	}
}

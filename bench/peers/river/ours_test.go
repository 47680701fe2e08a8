package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadOurs(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	full := `{"drain":8108,"latency_p50_ms":3.64,"latency_p99_ms":96.1,"idle_p50_ms":1.23,"idle_p99_ms":10.8,"commit":939}`

	f, err := readOurs(write("full.json", full), []string{"sqlite"})
	if err != nil {
		t.Fatalf("readOurs(full): %v", err)
	}
	if f["drain"] != 8108 || f["idle_p99_ms"] != 10.8 {
		t.Errorf("readOurs(full) = %v", f)
	}

	for _, c := range []struct{ name, path, want string }{
		{"missing file", filepath.Join(dir, "absent.json"), "run cmd/bench"},
		{"not JSON", write("bad.json", "drain=1"), "not a JSON object of numbers"},
		{"a string figure", write("string.json", `{"drain":"fast"}`), "not a JSON object of numbers"},
		{"no commit figure", write("nocommit.json", strings.Replace(full, `,"commit":939`, "", 1)), `no "commit"`},
		{"zero figure", write("zero.json", strings.Replace(full, `"commit":939`, `"commit":0`, 1)), "want a positive number"},
	} {
		if _, err := readOurs(c.path, []string{"sqlite"}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: readOurs = %v, want an error containing %q", c.name, err, c.want)
		}
	}
}

func TestReadOursPostgres(t *testing.T) {
	dir := t.TempDir()
	sqliteOnly := filepath.Join(dir, "sqlite.json")
	if err := os.WriteFile(sqliteOnly, []byte(`{"drain":8108,"latency_p50_ms":3.64,"latency_p99_ms":96.1,"idle_p50_ms":1.23,"idle_p99_ms":10.8,"commit":939}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// SQLite's figures alone do not do for PostgreSQL, and the error names the pg-* scenarios.
	if _, err := readOurs(sqliteOnly, []string{"postgres"}); err == nil || !strings.Contains(err.Error(), `no "pg_drain"`) ||
		!strings.Contains(err.Error(), "pg-db,pg-latency,pg-idle,pg-commit -pg-synchronous-commit on") {
		t.Errorf("readOurs(SQLite's figures, postgres) = %v, want no pg_drain and the pg-* scenarios", err)
	}
	pgOnly := filepath.Join(dir, "pg.json")
	if err := os.WriteFile(pgOnly, []byte(`{"pg_drain":5000,"pg_latency_p50_ms":4.1,"pg_latency_p99_ms":20,"pg_idle_p50_ms":3,"pg_idle_p99_ms":9,"pg_commit":700}`), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := readOurs(pgOnly, []string{"postgres"})
	if err != nil || f["pg_commit"] != 700 {
		t.Errorf("readOurs(PostgreSQL's figures, postgres) = %v, %v", f, err)
	}
	if _, err := readOurs(pgOnly, []string{"sqlite", "postgres"}); err == nil || !strings.Contains(err.Error(), "db,latency,idle,commit,pg-db") {
		t.Errorf("readOurs(PostgreSQL's figures, both) = %v, want an error naming both runs", err)
	}
}

func TestParseStores(t *testing.T) {
	for in, want := range map[string]string{"sqlite,postgres": "sqlite,postgres", "postgres, sqlite": "sqlite,postgres", "postgres": "postgres", "sqlite,sqlite": "sqlite"} {
		got, err := parseStores(in)
		if err != nil || strings.Join(got, ",") != want {
			t.Errorf("parseStores(%q) = %q, %v; want %s", in, got, err, want)
		}
	}
	for _, in := range []string{"", "mysql", "sqlite,"} {
		if got, err := parseStores(in); err == nil {
			t.Errorf("parseStores(%q) = %q, want an error", in, got)
		}
	}
}

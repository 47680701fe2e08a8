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
	full := `{"drain":8108,"latency_p50_ms":3.64,"latency_p99_ms":96.1,"idle_p50_ms":1.23,"idle_p99_ms":10.8,"write":939}`

	f, err := readOurs(write("full.json", full))
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
		{"no write figure", write("nowrite.json", strings.Replace(full, `,"write":939`, "", 1)), `no "write"`},
		{"zero figure", write("zero.json", strings.Replace(full, `"write":939`, `"write":0`, 1)), "want a positive number"},
	} {
		if _, err := readOurs(c.path); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: readOurs = %v, want an error containing %q", c.name, err, c.want)
		}
	}
}

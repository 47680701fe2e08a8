package pgtest

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestFindBinaries: PATH first, else the newest complete Debian version directory, else
// errNotInstalled (which fails the tests naming the Debian package, or skips them under
// testtool's fast switch).
func TestFindBinaries(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	touch := func(path string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	none := func(string) (string, error) { return "", errors.New("not on PATH") }
	if _, _, err := findIn(none, root); !errors.Is(err, errNotInstalled) {
		t.Fatalf("nothing installed: %v, want errNotInstalled", err)
	}
	touch(filepath.Join(root, "13", "bin", "initdb"))
	touch(filepath.Join(root, "13", "bin", "pg_ctl"))
	touch(filepath.Join(root, "9", "bin", "initdb"))
	touch(filepath.Join(root, "9", "bin", "pg_ctl"))
	touch(filepath.Join(root, "17", "bin", "initdb")) // no pg_ctl: incomplete
	initdb, pgCtl, err := findIn(none, root)
	if err != nil || initdb != filepath.Join(root, "13", "bin", "initdb") || pgCtl != filepath.Join(root, "13", "bin", "pg_ctl") {
		t.Fatalf("found %s and %s (%v), want version 13's", initdb, pgCtl, err)
	}
	onPath := filepath.Join(t.TempDir(), "initdb")
	touch(onPath)
	touch(filepath.Join(filepath.Dir(onPath), "pg_ctl"))
	path := func(name string) (string, error) { return filepath.Join(filepath.Dir(onPath), name), nil }
	if initdb, _, err := findIn(path, root); err != nil || initdb != onPath {
		t.Fatalf("found %s (%v), want the one on PATH", initdb, err)
	}
}

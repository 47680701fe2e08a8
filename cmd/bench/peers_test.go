package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// peersDir is the River peer benchmark `make bench-peers` builds, a module of its own.
const peersDir = "../../bench/peers/river"

// TestPeerBenchmarkIsTracked guards against losing bench/peers/river again: it was once
// written but never committed because .gitignore ignored the whole bench/ directory.
func TestPeerBenchmarkIsTracked(t *testing.T) {
	files := []string{filepath.Join(peersDir, "go.mod"), filepath.Join(peersDir, "go.sum")}
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("make bench-peers needs %s: %v", f, err)
		}
	}
	sources, err := filepath.Glob(filepath.Join(peersDir, "*.go"))
	if err != nil || len(sources) == 0 {
		t.Fatalf("make bench-peers needs Go sources in %s, found %v (%v)", peersDir, sources, err)
	}
	files = append(files, sources...)

	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not found: not checking that .gitignore keeps bench/peers/river tracked")
	}
	for _, f := range files {
		// check-ignore exits 0 when the path is ignored, 1 when it is not, 128 outside a work tree.
		out, err := exec.Command(git, "check-ignore", "--no-index", "-v", f).CombinedOutput()
		var exit *exec.ExitError
		switch {
		case err == nil:
			t.Errorf("%s is ignored by git (%s); narrow that .gitignore line so it is committed", f, strings.TrimSpace(string(out)))
		case errors.As(err, &exit) && exit.ExitCode() == 1:
		case errors.As(err, &exit) && exit.ExitCode() == 128:
			t.Skipf("not in a git work tree: not checking .gitignore (%s)", strings.TrimSpace(string(out)))
		default:
			t.Fatalf("git check-ignore %s: %v: %s", f, err, strings.TrimSpace(string(out)))
		}
	}
}

package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"moviesdiary/internal/testtool"
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

	// git decides what .gitignore ignores: in a repository of its own holding the project's
	// .gitignore, so the check needs no work tree (an unpacked release has none).
	ignore, err := os.ReadFile("../../.gitignore")
	if err != nil {
		t.Fatal(err)
	}
	git := testtool.Require(t, testtool.Git)
	repo := t.TempDir()
	if out, err := exec.Command(git, "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init (git is needed to check .gitignore): %v: %s", err, out)
	}
	if err := os.WriteFile(filepath.Join(repo, ".gitignore"), ignore, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		rel, err := filepath.Rel("../..", f)
		if err != nil {
			t.Fatal(err)
		}
		// check-ignore exits 0 when the path is ignored, 1 when it is not.
		cmd := exec.Command(git, "check-ignore", "--no-index", "-v", filepath.ToSlash(rel))
		cmd.Dir = repo
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		switch {
		case err == nil:
			t.Errorf("%s is ignored by git (%s); narrow that .gitignore line so it is committed", rel, strings.TrimSpace(string(out)))
		case errors.As(err, &exit) && exit.ExitCode() == 1:
		default:
			t.Fatalf("git check-ignore %s: %v: %s", rel, err, strings.TrimSpace(string(out)))
		}
	}
}

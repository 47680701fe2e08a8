package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBinariesVersionHelpAndMistakes runs the real binaries, built with a stamped version, in an
// empty working directory: --version and --help exit 0, a mistake exits 2 with the usage, and
// none of them writes ./data. `worker events` against no database says so and exits 1.
func TestBinariesVersionHelpAndMistakes(t *testing.T) {
	bin := t.TempDir()
	build := exec.Command("go", "build", "-tags", "sqlite_fts5", "-ldflags", "-X moviesdiary/internal/buildinfo.version=v9.8.7-test",
		"-o", bin+string(filepath.Separator), "moviesdiary/cmd/server", "moviesdiary/cmd/worker")
	build.Env = append(os.Environ(), "CGO_ENABLED=1")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	work := t.TempDir()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + work}
	for _, c := range []struct {
		bin  string
		args []string
		code int
		out  string
	}{
		{"server", []string{"--version"}, 0, "moviesdiary server v9.8.7-test"},
		{"worker", []string{"--version"}, 0, "moviesdiary worker v9.8.7-test"},
		{"server", []string{"-h"}, 0, "usage: server"},
		{"worker", []string{"--help"}, 0, "usage: worker"},
		{"server", []string{"--bogus"}, 2, "usage: server"},
		{"worker", []string{"--bogus"}, 2, "usage: worker"},
		{"worker", []string{"frobnicate"}, 2, `unknown command or flag "frobnicate"`},
		{"worker", []string{"events", "stats"}, 1, "no database at data/moviesdiary.db"},
		{"server", []string{"admin", "users", "list"}, 1, "no database at data/moviesdiary.db"},
	} {
		cmd := exec.Command(filepath.Join(bin, c.bin), c.args...)
		cmd.Dir, cmd.Env = work, env
		out, err := cmd.CombinedOutput()
		code := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != c.code || !strings.Contains(string(out), c.out) {
			t.Errorf("%s %v: exit %d, output %q; want exit %d with %q", c.bin, c.args, code, out, c.code, c.out)
		}
	}
	if entries, _ := os.ReadDir(work); len(entries) != 0 {
		t.Fatalf("the binaries wrote %v into the working directory", entries)
	}
}

// Package testtool is how a test asks for an external program it drives (Chromium, promtool,
// docker-compose, PostgreSQL's server binaries, git, systemd-analyze, the S3 gateway built from
// the module proxy) and what happens when the program is missing.
//
// By default a missing tool fails the test, naming the Debian package or command that provides
// it: CI (.ci/run → make test) installs every tool and must never pass on a skipped test, since
// a skipped test proves nothing. A contributor without the tools sets the fast switch,
//
//	MOVIESDIARY_TEST_FAST=1 (make test-fast sets it)
//
// and the test is skipped instead, with a one-line reason naming the tool and how to get it.
// When MOVIESDIARY_TEST_SKIPPED names a file, each such skip also appends a line to it
// (tool, package, test, how to get it, tab-separated) so make test-fast can print one summary
// line per tool once every package has run.
//
// MOVIESDIARY_TEST_WITHOUT (a comma-separated list of tool names, e.g. "postgresql,s3-gateway")
// makes the tests act as though those tools were missing: to leave out a slow tool that is
// installed, and to check what a machine without it sees (PostgreSQL's binaries are also found
// outside PATH, so hiding PATH entries cannot hide them).
package testtool

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The environment variables this package reads.
const (
	// FastEnv is the switch: "1" turns a missing tool into a skip.
	FastEnv = "MOVIESDIARY_TEST_FAST"
	// SkippedEnv names the file each skip for a missing tool is appended to.
	SkippedEnv = "MOVIESDIARY_TEST_SKIPPED"
	// WithoutEnv lists tools to treat as missing even when installed.
	WithoutEnv = "MOVIESDIARY_TEST_WITHOUT"
)

// Tool is an external program some tests need.
type Tool struct {
	// Name is how the skip reasons, the summary and MOVIESDIARY_TEST_WITHOUT spell it.
	Name string
	// Env, if set, is an environment variable holding the program's path, tried before PATH.
	Env string
	// Binaries are the names looked up on PATH, in order of preference.
	Binaries []string
	// Get says how to get the tool.
	Get string
}

// The tools the tests drive.
var (
	Chromium = Tool{Name: "chromium", Env: "CHROMIUM", Binaries: []string{"chromium", "chromium-browser", "google-chrome"},
		Get: "apt-get install chromium (or set CHROMIUM to a Chrome binary)"}
	Promtool = Tool{Name: "promtool", Binaries: []string{"promtool"},
		Get: "apt-get install prometheus"}
	Compose = Tool{Name: "docker-compose", Binaries: []string{"docker-compose"},
		Get: "apt-get install docker-compose (or Docker's compose plugin)"}
	Git = Tool{Name: "git", Binaries: []string{"git"},
		Get: "apt-get install git"}
	// SystemdAnalyze checks the systemd units of deploy/systemd (systemd-analyze verify).
	SystemdAnalyze = Tool{Name: "systemd-analyze", Binaries: []string{"systemd-analyze"},
		Get: "apt-get install systemd"}
	// PostgreSQL's server binaries are found by pgtest (PATH, then /usr/lib/postgresql/*/bin).
	PostgreSQL = Tool{Name: "postgresql",
		Get: "apt-get install postgresql (its initdb and pg_ctl)"}
	// The S3 gateway is built by s3test from the module proxy on first use, then kept.
	S3Gateway = Tool{Name: "s3-gateway",
		Get: "network access once (the first run builds versitygw from the module proxy and keeps it in ~/.cache/moviesdiary)"}
	// The OpenID provider is built by oidctest from the module proxy on first use, then kept.
	OIDCProvider = Tool{Name: "oidc-provider",
		Get: "network access once (the first run builds zitadel/oidc's example provider from the module proxy and keeps it in ~/.cache/moviesdiary)"}
)

// Fast reports whether the fast switch is on: a missing tool skips rather than fails.
func Fast() bool { return os.Getenv(FastEnv) == "1" }

// Hidden reports whether MOVIESDIARY_TEST_WITHOUT names tool, which the tests then treat as
// missing.
func Hidden(tool Tool) bool {
	return slices.Contains(strings.Split(os.Getenv(WithoutEnv), ","), tool.Name)
}

// errHidden is why a tool named in MOVIESDIARY_TEST_WITHOUT is missing.
var errHidden = errors.New("left out by " + WithoutEnv)

// Find returns the path of tool: its Env variable if set, else the first of its Binaries on PATH.
// A tool named in MOVIESDIARY_TEST_WITHOUT is not found.
func Find(tool Tool) (string, error) {
	if Hidden(tool) {
		return "", errHidden
	}
	if tool.Env != "" {
		if p := os.Getenv(tool.Env); p != "" {
			return p, nil
		}
	}
	for _, name := range tool.Binaries {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	if len(tool.Binaries) == 1 {
		return "", fmt.Errorf("%s not on PATH", tool.Binaries[0])
	}
	return "", fmt.Errorf("none of %s on PATH", strings.Join(tool.Binaries, ", "))
}

// Require returns the path of tool, as Find does; when it is missing the test ends as Missing
// says.
func Require(t testing.TB, tool Tool) string {
	t.Helper()
	p, err := Find(tool)
	if err != nil {
		Missing(t, tool, err)
	}
	return p
}

// Missing ends the test because tool is missing (err says what was looked for): with the fast
// switch on it records the skip and skips; otherwise it fails the test. For a tool found some
// other way than Find (PostgreSQL, the S3 gateway), the caller checks Hidden itself.
func Missing(t testing.TB, tool Tool, err error) {
	t.Helper()
	if !Fast() {
		t.Fatalf("needs %s (%v): %s; %s=1 (make test-fast) skips instead", tool.Name, err, tool.Get, FastEnv)
	}
	if path := os.Getenv(SkippedEnv); path != "" {
		if werr := record(path, tool, t.Name()); werr != nil {
			t.Errorf("testtool: record the skip in %s: %v", path, werr)
		}
	}
	t.Skipf("needs %s (%v): %s", tool.Name, err, tool.Get)
}

// record appends one line for the skip: tool, package, test, how to get it. One write of a
// short line to a file opened for appending, so the test binaries running in parallel do not
// interleave their lines.
func record(path string, tool Tool, test string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	line := strings.Join([]string{tool.Name, pkg(), test, tool.Get}, "\t") + "\n"
	if _, err := f.WriteString(line); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// pkg names the package under test by its directory below the module root: go test runs a test
// binary in its package's directory.
func pkg() string {
	wd, err := os.Getwd()
	if err != nil {
		return "?"
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			if rel, err := filepath.Rel(dir, wd); err == nil {
				return filepath.ToSlash(rel)
			}
			return wd
		}
		if filepath.Dir(dir) == dir {
			return wd
		}
	}
}

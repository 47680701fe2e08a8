package testtool

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// probe is a tool no machine has.
var probe = Tool{Name: "probe", Binaries: []string{"moviesdiary-testtool-no-such-binary"}, Get: "build a probe"}

// childEnv makes TestChildRequiresProbe ask for probe; unset, it does nothing.
const childEnv = "TESTTOOL_CHILD"

// TestChildRequiresProbe is the test the other tests run in a child process, to see what a
// missing tool does to a whole test binary.
func TestChildRequiresProbe(t *testing.T) {
	if os.Getenv(childEnv) != "1" {
		return
	}
	Require(t, probe)
	t.Log("ran past Require")
}

// runChild runs TestChildRequiresProbe in a child process with the switch variables set to env
// (and otherwise unset, whatever this process was given), and returns its output and exit error.
func runChild(t *testing.T, env ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildRequiresProbe$", "-test.v")
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if name != FastEnv && name != SkippedEnv && name != WithoutEnv {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, append(env, childEnv+"=1")...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestMissingFailsWithoutTheSwitch: by default (make test, CI) a missing tool fails the test,
// saying how to get it.
func TestMissingFailsWithoutTheSwitch(t *testing.T) {
	t.Parallel()
	skipped := filepath.Join(t.TempDir(), "skipped")
	out, err := runChild(t, SkippedEnv+"="+skipped)
	if err == nil {
		t.Fatalf("the test binary passed without probe:\n%s", out)
	}
	for _, want := range []string{"--- FAIL: TestChildRequiresProbe", "needs probe", "build a probe"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "ran past Require") {
		t.Errorf("the test went on after Require failed:\n%s", out)
	}
	if _, err := os.Stat(skipped); !os.IsNotExist(err) {
		t.Errorf("a failure was recorded as a skip (%v)", err)
	}
}

// TestMissingSkipsWithTheSwitch: with MOVIESDIARY_TEST_FAST=1 the test is skipped with a reason
// naming the tool, and the skip is recorded for the summary.
func TestMissingSkipsWithTheSwitch(t *testing.T) {
	t.Parallel()
	skipped := filepath.Join(t.TempDir(), "skipped")
	out, err := runChild(t, FastEnv+"=1", SkippedEnv+"="+skipped)
	if err != nil {
		t.Fatalf("the test binary failed: %v\n%s", err, out)
	}
	for _, want := range []string{"--- SKIP: TestChildRequiresProbe", "needs probe", "build a probe"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "ran past Require") {
		t.Errorf("the test went on after Require skipped:\n%s", out)
	}
	got, err := os.ReadFile(skipped)
	if err != nil {
		t.Fatal(err)
	}
	if want := "probe\tinternal/testtool\tTestChildRequiresProbe\tbuild a probe\n"; string(got) != want {
		t.Errorf("recorded %q, want %q", got, want)
	}
}

// TestFind: the tool's variable first, then PATH in the order of its binaries; a tool named in
// MOVIESDIARY_TEST_WITHOUT is missing even when present.
func TestFind(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"second", "third"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir)
	t.Setenv("TESTTOOL_PROBE", "")
	t.Setenv(WithoutEnv, "")
	tool := Tool{Name: "tool", Env: "TESTTOOL_PROBE", Binaries: []string{"first", "second", "third"}}
	if p, err := Find(tool); err != nil || p != filepath.Join(dir, "second") {
		t.Errorf("Find = %q, %v; want the first binary on PATH, second", p, err)
	}
	t.Setenv("TESTTOOL_PROBE", "/opt/tool")
	if p, err := Find(tool); err != nil || p != "/opt/tool" {
		t.Errorf("Find = %q, %v; want the variable's /opt/tool", p, err)
	}
	t.Setenv(WithoutEnv, "other,tool")
	if p, err := Find(tool); err == nil || !Hidden(tool) {
		t.Errorf("Find = %q, %v (hidden %v); want the tool left out", p, err, Hidden(tool))
	}
	t.Setenv(WithoutEnv, "")
	if p, err := Find(Tool{Name: "none", Binaries: []string{"first"}}); err == nil {
		t.Errorf("Find = %q; want an error for a binary not on PATH", p)
	}
}

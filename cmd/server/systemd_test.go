package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"moviesdiary/internal/testtool"
)

// TestSystemdUnitsVerifyAndAreHardened: each binary has a unit in deploy/systemd that
// `systemd-analyze verify` accepts without a word, runs as a dedicated user with the data
// directory the only writable path, takes its settings from an EnvironmentFile and cannot gain
// privileges.
func TestSystemdUnitsVerifyAndAreHardened(t *testing.T) {
	t.Parallel()
	analyze := testtool.Require(t, testtool.SystemdAnalyze)
	dir := t.TempDir()
	var units []string
	for _, bin := range []string{"server", "worker"} {
		name := "moviesdiary-" + bin + ".service"
		raw, err := os.ReadFile(filepath.Join("../../deploy/systemd", name))
		if err != nil {
			t.Fatalf("no unit for the %s: %v", bin, err)
		}
		unit := string(raw)
		for _, want := range []string{
			"\nExecStart=/usr/local/bin/moviesdiary-" + bin + "\n",
			"\nUser=moviesdiary\n", "\nStateDirectory=moviesdiary\n", "\nEnvironment=DATA_DIR=/var/lib/moviesdiary\n",
			"\nEnvironmentFile=-/etc/moviesdiary/moviesdiary.env\n", "\nProtectSystem=strict\n",
			"\nReadWritePaths=/var/lib/moviesdiary\n", "\nNoNewPrivileges=yes\n", "\nCapabilityBoundingSet=\n",
			"\nProtectHome=yes\n", "\nPrivateTmp=yes\n", "\nRestart=on-failure\n", "\nWantedBy=multi-user.target\n",
		} {
			if !strings.Contains(unit, want) {
				t.Errorf("%s lacks %q", name, strings.TrimSpace(want))
			}
		}
		// verify checks that ExecStart's program exists: the unit is checked as written, with
		// only that path moved to a stand-in in the test's directory.
		stub := filepath.Join(dir, "moviesdiary-"+bin)
		if err := os.WriteFile(stub, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		unit = strings.Replace(unit, "ExecStart=/usr/local/bin/moviesdiary-"+bin, "ExecStart="+stub, 1)
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(unit), 0o644); err != nil {
			t.Fatal(err)
		}
		units = append(units, path)
	}
	cmd := exec.Command(analyze, append([]string{"verify", "--man=no", "--generators=no"}, units...)...)
	out, err := cmd.CombinedOutput()
	if err != nil || len(strings.TrimSpace(string(out))) > 0 {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
	sysusers, err := os.ReadFile("../../deploy/systemd/moviesdiary.sysusers")
	if err != nil || !strings.Contains(string(sysusers), "\nu moviesdiary - ") {
		t.Errorf("deploy/systemd/moviesdiary.sysusers does not create the user moviesdiary (%v)", err)
	}
}

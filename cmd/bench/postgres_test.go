package main

import (
	"os"
	"slices"
	"testing"
	"time"
)

func TestParsePGCommits(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"on,off", []string{"on", "off"}},
		{" OFF ", []string{"off"}},
		{"off,on,off", []string{"off", "on"}},
	} {
		got, err := parsePGCommits(c.in)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("parsePGCommits(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"", "on,", "local", "remote_apply"} {
		if got, err := parsePGCommits(in); err == nil {
			t.Errorf("parsePGCommits(%q) = %q, want an error", in, got)
		}
	}
}

func TestParseStat(t *testing.T) {
	// A command name with a space and a parenthesis, as a postgres backend's can be.
	line := "4242 (postgres: x) y) S 17 4242 4242 0 -1 4194560 1 2 3 4 250 75 30 12 20 0 1 0 100 200 300\n"
	s, err := parseStat(line)
	if err != nil {
		t.Fatal(err)
	}
	if want := (procStat{ppid: 17, utime: 250, stime: 75, cutime: 30, cstime: 12}); s != want {
		t.Fatalf("parseStat = %+v, want %+v", s, want)
	}
	for _, bad := range []string{"4242 no name", "4242 (x) S 17 1 2", "4242 (x) S 17 1 1 0 -1 1 1 2 3 4 u 75 30 12"} {
		if _, err := parseStat(bad); err == nil {
			t.Errorf("parseStat(%q) gave no error", bad)
		}
	}
}

func TestProcessTreeCPUOfThisProcess(t *testing.T) {
	for start := time.Now(); time.Since(start) < 30*time.Millisecond; {
	}
	cpu, err := processTreeCPU(os.Getpid())
	if err != nil || cpu <= 0 {
		t.Fatalf("processTreeCPU(self) = %s, %v; want some CPU time", cpu, err)
	}
}

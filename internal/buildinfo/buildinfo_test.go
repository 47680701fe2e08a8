package buildinfo

import (
	"runtime/debug"
	"strings"
	"testing"
)

// These tests swap package state, so they do not run in parallel.

func TestVersionPrefersTheLinkerStamp(t *testing.T) {
	defer func(v string) { version = v }(version)
	version = "v1.2.3"
	if got := Version(); got != "v1.2.3" {
		t.Fatalf("Version() = %q, want the stamped v1.2.3", got)
	}
	if s := String("server"); !strings.HasPrefix(s, "moviesdiary server v1.2.3 (") {
		t.Fatalf("String = %q", s)
	}
}

func TestVersionFallsBackToTheBuildInfo(t *testing.T) {
	defer func(v string, f func() (*debug.BuildInfo, bool)) { version, readBuildInfo = v, f }(version, readBuildInfo)
	version = ""
	for _, c := range []struct {
		name string
		bi   *debug.BuildInfo
		ok   bool
		want string
	}{
		{"module version", &debug.BuildInfo{Main: debug.Module{Version: "v0.4.0"}}, true, "v0.4.0"},
		{"clean checkout", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "false"}}}, true, "devel+0123456789ab"},
		{"dirty checkout", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"}}}, true, "devel+0123456789ab-dirty"},
		{"nothing recorded", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true, "devel"},
		{"no build info", nil, false, "devel"},
	} {
		readBuildInfo = func() (*debug.BuildInfo, bool) { return c.bi, c.ok }
		if got := Version(); got != c.want {
			t.Errorf("%s: Version() = %q, want %q", c.name, got, c.want)
		}
	}
}

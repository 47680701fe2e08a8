// Package buildinfo says which build of moviesdiary is running: the version stamped at link time
// (make build passes -ldflags "-X moviesdiary/internal/buildinfo.version=v1.2.3"), or else what
// the Go toolchain recorded in the binary (the module version, or the VCS revision of a plain
// `go build` in a checkout).
package buildinfo

import (
	"runtime"
	"runtime/debug"
	"strings"
)

// version is set by the linker; empty in a plain `go build`.
var version string

// readBuildInfo is debug.ReadBuildInfo, a seam for tests.
var readBuildInfo = debug.ReadBuildInfo

// Version is the running build's version: the linker-stamped one, else the main module's version
// from the build info ("v1.2.3" for `go install moviesdiary/cmd/server@v1.2.3`), else
// "devel+<short revision>" (with "-dirty" for uncommitted changes) from the VCS stamp, else
// "devel".
func Version() string {
	if version != "" {
		return version
	}
	bi, ok := readBuildInfo()
	if !ok {
		return "devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	rev, dirty := vcs(bi)
	if rev == "" {
		return "devel"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return "devel+" + rev
}

// Revision is the VCS commit the binary was built from, or "" when the build did not record one.
func Revision() string {
	bi, ok := readBuildInfo()
	if !ok {
		return ""
	}
	rev, _ := vcs(bi)
	return rev
}

// GoVersion is the toolchain that built the binary.
func GoVersion() string { return runtime.Version() }

// String is the one line `--version` prints: "moviesdiary <name> <version> (<revision>, <go>)".
func String(name string) string {
	var b strings.Builder
	b.WriteString("moviesdiary " + name + " " + Version())
	extra := []string{}
	if rev := Revision(); rev != "" && !strings.Contains(Version(), rev[:min(12, len(rev))]) {
		extra = append(extra, "commit "+rev[:min(12, len(rev))])
	}
	extra = append(extra, GoVersion(), runtime.GOOS+"/"+runtime.GOARCH)
	b.WriteString(" (" + strings.Join(extra, ", ") + ")")
	return b.String()
}

func vcs(bi *debug.BuildInfo) (rev string, dirty bool) {
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	return rev, dirty
}

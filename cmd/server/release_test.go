package main

import (
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"moviesdiary/internal/testtool"
)

// makeRelease runs `make release` from the module root with VERSION, DIST and
// RELEASE_PLATFORMS, plus env, and returns its exit error and output.
func makeRelease(t *testing.T, version, dist, platforms string, env ...string) (error, string) {
	t.Helper()
	testtool.Require(t, testtool.Git) // VERSION and the archives' dates come from git
	cmd := exec.Command("make", "-s", "release", "VERSION="+version, "DIST="+dist, "RELEASE_PLATFORMS="+platforms)
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	return err, string(out)
}

// TestReleaseBuildsStaticBinariesWithChecksums: `make release` packs, for the host's platform,
// static server and worker binaries stamped with the version, the systemd units, the licence
// and the changelog; SHA256SUMS matches the archive and RELEASE-NOTES.md is the version's
// changelog section.
func TestReleaseBuildsStaticBinariesWithChecksums(t *testing.T) {
	t.Parallel()
	dist := t.TempDir()
	version, platform := "v0.0.0-releasetest", "linux/"+runtime.GOARCH
	if err, out := makeRelease(t, version, dist, platform); err != nil {
		t.Fatalf("make release: %v\n%s", err, out)
	}
	dir := filepath.Join(dist, version)
	name := "moviesdiary-" + version + "-linux-" + runtime.GOARCH
	archive, err := os.ReadFile(filepath.Join(dir, name+".tar.gz"))
	if err != nil {
		t.Fatal(err)
	}
	sums, err := os.ReadFile(filepath.Join(dir, "SHA256SUMS"))
	sum := sha256.Sum256(archive)
	if want := hex.EncodeToString(sum[:]) + "  " + name + ".tar.gz\n"; err != nil || string(sums) != want {
		t.Errorf("SHA256SUMS = %q (%v), want %q", sums, err, want)
	}
	notes, err := os.ReadFile(filepath.Join(dir, "RELEASE-NOTES.md"))
	changelog, _ := os.ReadFile("../../CHANGELOG.md")
	if err != nil || !bytes.HasPrefix(notes, []byte("## [Unreleased]\n")) || !bytes.Contains(changelog, notes) ||
		bytes.Contains(notes, []byte("\n## [")) {
		t.Errorf("RELEASE-NOTES.md is not the changelog's [Unreleased] section (%v):\n%.300s", err, notes)
	}
	unpacked := t.TempDir()
	if out, err := exec.Command("tar", "-xzf", filepath.Join(dir, name+".tar.gz"), "-C", unpacked).CombinedOutput(); err != nil {
		t.Fatalf("tar: %v\n%s", err, out)
	}
	root := filepath.Join(unpacked, name)
	for _, f := range []string{"LICENSE", "README.md", "CHANGELOG.md", "systemd/moviesdiary-server.service",
		"systemd/moviesdiary-worker.service", "systemd/moviesdiary.sysusers"} {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			t.Errorf("the archive lacks %s", f)
		}
	}
	for _, bin := range []string{"server", "worker"} {
		path := filepath.Join(root, bin)
		f, err := elf.Open(path)
		if err != nil {
			t.Fatalf("%s: %v", bin, err)
		}
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP {
				t.Errorf("%s is dynamically linked (it names a program interpreter)", bin)
			}
		}
		f.Close()
		out, err := exec.Command(path, "--version").Output()
		if want := "moviesdiary " + bin + " " + version + " ("; err != nil || !strings.HasPrefix(string(out), want) {
			t.Errorf("%s --version = %q (%v), want %q", bin, out, err, want)
		}
	}
}

// TestReleaseSaysWhatItCouldNotBuild: a platform whose C cross compiler is missing is not
// built, the run says so and fails, and nothing stands in for it.
func TestReleaseSaysWhatItCouldNotBuild(t *testing.T) {
	t.Parallel()
	dist := t.TempDir()
	version := "v0.0.0-releasetest"
	err, out := makeRelease(t, version, dist, "linux/arm64 linux/riscv64",
		"CC_linux_arm64=/nonexistent/aarch64-linux-gnu-gcc", "CC_linux_riscv64=/nonexistent/riscv64-gcc")
	if err == nil || !strings.Contains(out, "linux/arm64 NOT built: cgo (SQLite) needs a C compiler for arm64") ||
		!strings.Contains(out, "NOT built: linux/arm64 linux/riscv64") {
		t.Fatalf("make release without a cross compiler: %v\n%s", err, out)
	}
	entries, _ := os.ReadDir(filepath.Join(dist, version))
	for _, e := range entries {
		if e.Name() != "RELEASE-NOTES.md" {
			t.Errorf("%s was produced without a compiler for it", e.Name())
		}
	}
}

// TestReleaseOfATagNeedsItsChangelogSection: a tag vX.Y.Z takes the notes of "## [X.Y.Z]"
// and refuses to release without them.
func TestReleaseOfATagNeedsItsChangelogSection(t *testing.T) {
	t.Parallel()
	dist := t.TempDir()
	err, out := makeRelease(t, "v0.1.0", dist, "")
	notes, rerr := os.ReadFile(filepath.Join(dist, "v0.1.0", "RELEASE-NOTES.md"))
	if err != nil || rerr != nil || !bytes.HasPrefix(notes, []byte("## [0.1.0]")) {
		t.Errorf("make release VERSION=v0.1.0 (no platform): %v, notes %.100q (%v)\n%s", err, notes, rerr, out)
	}
	if err, out := makeRelease(t, "v9.9.9", t.TempDir(), ""); err == nil || !strings.Contains(out, `CHANGELOG.md has no "## [9.9.9]" section`) {
		t.Errorf("make release VERSION=v9.9.9: %v\n%s", err, out)
	}
}

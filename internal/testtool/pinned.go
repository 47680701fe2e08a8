package testtool

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// Pinned is a server the tests build with `go build` from a pin module of its own (its
// go.mod/go.sum beside a tools.go), so its dependencies stay out of moviesdiary's go.mod: the S3
// gateway and the OpenID provider. The binary is built once per pin (the hash of its go.mod and
// go.sum) into the user cache directory ($XDG_CACHE_HOME or ~/.cache, under moviesdiary/), under
// a file lock so parallel test packages build it once.
type Pinned struct {
	Tool    Tool   // what Missing names when it cannot be had
	Module  string // the pin module's directory, from the main module's root
	Package string // the main package to build
	Name    string // the binary's file name, and its cache directory's prefix

	mu     sync.Mutex
	failed error // this test binary's failed build, so its other tests do not try again
}

// Binary returns the path of the binary, building it on first use. When it cannot be built
// (offline, typically) or MOVIESDIARY_TEST_WITHOUT names the tool, the test ends as Missing says:
// a failure, or a skip under the fast switch.
func (p *Pinned) Binary(t testing.TB) string {
	t.Helper()
	if Hidden(p.Tool) {
		Missing(t, p.Tool, fmt.Errorf("left out by %s", WithoutEnv))
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.failed != nil {
		Missing(t, p.Tool, p.failed)
	}
	bin, err := p.build(t)
	if err != nil {
		p.failed = err
		Missing(t, p.Tool, err)
	}
	return bin
}

// build returns the kept binary, building it first if there is none; its error is a failed go
// build (whose whole output goes to the test's log).
func (p *Pinned) build(t testing.TB) (string, error) {
	t.Helper()
	module, err := moduleRoot()
	if err != nil {
		t.Fatalf("testtool: %s: %v", p.Name, err)
	}
	module = filepath.Join(module, filepath.FromSlash(p.Module))
	var pin []byte
	for _, f := range []string{"go.mod", "go.sum"} {
		b, err := os.ReadFile(filepath.Join(module, f))
		if err != nil {
			t.Fatalf("testtool: the pin module of %s: %v", p.Name, err)
		}
		pin = append(pin, b...)
	}
	h := sha256.Sum256(pin)
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "moviesdiary", p.Name+"-"+hex.EncodeToString(h[:6]))
	bin := filepath.Join(dir, p.Name)
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	lock, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	if _, err := os.Stat(bin); err == nil { // another package built it while this one waited
		return bin, nil
	}
	t.Logf("testtool: building %s into %s (once; a cold build takes minutes)", p.Name, dir)
	tmp := bin + ".tmp"
	cmd := exec.Command("go", "build", "-o", tmp, p.Package)
	cmd.Dir = module
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=-mod=readonly -buildvcs=false")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Logf("testtool: go build %s: %v\n%s", p.Name, err, out)
		// The last line says why (offline: "module lookup disabled", "dial tcp …").
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		return "", fmt.Errorf("go build %s: %v: %s", p.Name, err, lines[len(lines)-1])
	}
	if err := os.Rename(tmp, bin); err != nil {
		t.Fatal(err)
	}
	return bin, nil
}

// moduleRoot is moviesdiary's root directory: two levels above this file, or, in a test built
// with -trimpath, where `go env GOMOD` says.
func moduleRoot() (string, error) {
	_, file, _, _ := runtime.Caller(0)
	if filepath.IsAbs(file) {
		return filepath.Join(filepath.Dir(file), "..", ".."), nil
	}
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("not inside the moviesdiary module")
	}
	return filepath.Dir(gomod), nil
}

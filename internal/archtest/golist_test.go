package archtest

import (
	"bytes"
	"os/exec"
	"testing"
)

// goList runs `go list -tags sqlite_fts5 args…` on the module and returns its output: the build
// graph the rules are checked against, as the Makefile builds it.
func goList(t *testing.T, args ...string) []byte {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go tool lists the packages: %v", err)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(goTool, append([]string{"list", "-tags", "sqlite_fts5"}, args...)...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %v: %v\n%s", args, err, stderr.String())
	}
	return out
}

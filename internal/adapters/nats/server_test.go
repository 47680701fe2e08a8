package nats

import (
	"os/exec"
	"strings"
	"testing"
)

// TestServerDoesNotLinkNATS enforces that the HTTP server only writes the outbox: no package of
// its build may come from nats-io (neither this adapter's client nor the server library).
func TestServerDoesNotLinkNATS(t *testing.T) {
	t.Parallel()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go tool lists the server's dependencies: %v", err)
	}
	for _, tc := range []struct {
		pkg      string
		wantNATS bool
	}{
		{"moviesdiary/cmd/server", false},
		{"moviesdiary/cmd/worker", true}, // the check itself works
	} {
		out, err := exec.Command(goTool, "list", "-tags", "sqlite_fts5", "-deps", tc.pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list %s: %v\n%s", tc.pkg, err, out)
		}
		var nats []string
		for _, p := range strings.Fields(string(out)) {
			if strings.Contains(p, "nats-io") || p == "moviesdiary/internal/adapters/nats" {
				nats = append(nats, p)
			}
		}
		if got := len(nats) > 0; got != tc.wantNATS {
			t.Errorf("%s links NATS packages: %v (want %v)", tc.pkg, nats, tc.wantNATS)
		}
	}
}

package metrics_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDashboardUsesExistingMetrics: every metric the Grafana dashboard and the docs query is
// defined in this package, so a rename cannot leave a panel silently empty.
func TestDashboardUsesExistingMetrics(t *testing.T) {
	dash, err := os.ReadFile("../../../deploy/grafana/dashboards/moviesdiary.json")
	if err != nil {
		t.Fatal(err)
	}
	var src strings.Builder
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src.Write(b)
	}
	defined := src.String()
	used := regexp.MustCompile(`moviesdiary_[a-z_]+`).FindAllString(string(dash), -1)
	if len(used) < 8 {
		t.Fatalf("dashboard queries only %d metrics", len(used))
	}
	for _, m := range used {
		base := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(m, "_bucket"), "_count"), "_sum")
		if !strings.Contains(defined, `"`+base+`"`) {
			t.Errorf("dashboard queries %s, which no collector here defines", m)
		}
	}
}

package metrics_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"moviesdiary/internal/testtool"
)

const alertsDir = "../../../deploy/prometheus"

// TestAlertRulesUseExistingMetrics: every moviesdiary_ metric the alert rules query is defined in
// this package, so a rename cannot leave an alert silently never firing.
func TestAlertRulesUseExistingMetrics(t *testing.T) {
	t.Parallel()
	rules, err := os.ReadFile(alertsDir + "/alerts.yml")
	if err != nil {
		t.Fatal(err)
	}
	defined := packageSource(t)
	used := regexp.MustCompile(`moviesdiary_[a-z_]+`).FindAllString(string(rules), -1)
	if len(used) < 6 {
		t.Fatalf("the rules query only %d metrics", len(used))
	}
	for _, m := range used {
		if !strings.Contains(defined, `"`+strings.TrimSuffix(m, "_total")+`"`) && !strings.Contains(defined, `"`+m+`"`) {
			t.Errorf("alerts.yml queries %s, which no collector here defines", m)
		}
	}
}

// TestAlertRules runs `promtool check rules` and the rules' unit tests (alerts_test.yml: each
// alert fires on the series that should raise it, and not before) with promtool
// (Debian: apt-get install prometheus).
func TestAlertRules(t *testing.T) {
	t.Parallel()
	promtool := testtool.Require(t, testtool.Promtool)
	for _, args := range [][]string{{"check", "rules", "alerts.yml"}, {"test", "rules", "alerts_test.yml"}, {"check", "config", "prometheus.yml"}} {
		cmd := exec.Command(promtool, args...)
		cmd.Dir = alertsDir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// packageSource is the text of this package's non-test files.
func packageSource(t *testing.T) string {
	t.Helper()
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
	return src.String()
}

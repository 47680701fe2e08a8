package archtest

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestOnlyOutboxSpellsAnInsertIntoEventQueue scans the module's non-test Go files: only
// internal/outbox/outbox.go (outbox.Insert, which both stores' EnqueueEvents call) may spell an
// insert into event_queue. It sees code no test runs, but only a literal statement;
// TestExecutedInsertsIntoEventQueueComeFromOutbox catches one however it is spelt.
func TestOnlyOutboxSpellsAnInsertIntoEventQueue(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	insert := regexp.MustCompile(`(?is)insert\s+(or\s+\w+\s+)?into\s+["'\x60]?event_queue\b`)
	var offenders []string
	scanned := 0
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "data" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || filepath.Ext(path) != ".go" || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		scanned++
		if insert.Match(b) {
			rel, _ := filepath.Rel(root, path)
			offenders = append(offenders, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if scanned < 100 {
		t.Fatalf("scanned %d Go files under %s: the check would be vacuous", scanned, root)
	}
	if !slices.Equal(offenders, []string{"internal/outbox/outbox.go"}) {
		t.Fatalf("files inserting into event_queue: %v; only internal/outbox/outbox.go may", offenders)
	}
}

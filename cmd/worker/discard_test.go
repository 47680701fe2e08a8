package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/config"
	"moviesdiary/internal/outbox"
)

// TestEventsNeedAnExistingMigratedDatabase: a path with no database is an error that says so,
// creates nothing; an unmigrated one is refused and left unmigrated.
func TestEventsNeedAnExistingMigratedDatabase(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "data", "moviesdiary.db")
	f := &eventsFixture{cfg: config.Config{DatabaseURL: path, DataDir: filepath.Join(dir, "data")}}
	for _, cmd := range []string{"stats", "list", "purge"} {
		args := []string{cmd}
		if cmd == "purge" {
			args = append(args, "--done-older-than", "30d")
		}
		code, out, errOut := f.run(t, args...)
		if code != 1 || !strings.Contains(errOut, "no database at "+path) || out != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 1 saying there is no database", cmd, code, out, errOut)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "data")); err == nil {
		t.Fatal("an events command created the data directory")
	}

	// An empty SQLite file (no schema) is refused and not migrated.
	s, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if code, _, errOut := f.run(t, "stats"); code != 1 || !strings.Contains(errOut, "not a migrated moviesdiary database") {
		t.Fatalf("unmigrated: exit %d, %q", code, errOut)
	}
	s, err = sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, _, err := s.Version(context.Background()); err == nil {
		t.Fatal("the events command migrated the database")
	}
}

func TestEventsDiscard(t *testing.T) {
	eachStore(t, func(t *testing.T, f *eventsFixture) {
		dead := f.ids["dead_lettered"]
		count := func() (total, dead int) {
			f.db.QueryRow(`SELECT count(*), count(*) FILTER (WHERE status = 'dead_lettered') FROM event_queue`).Scan(&total, &dead)
			return
		}
		// --dry-run lists and changes nothing.
		code, out, _ := f.run(t, "discard", dead, f.ids["pending"], "--dry-run", "--json")
		var dry struct {
			DryRun bool              `json:"dry_run"`
			Events []outbox.EventRow `json:"events"`
		}
		if err := json.Unmarshal([]byte(out), &dry); code != 0 || err != nil || !dry.DryRun || len(dry.Events) != 1 || dry.Events[0].EventID != dead {
			t.Fatalf("discard --dry-run: exit %d %v %s", code, err, out)
		}
		if total, _ := count(); total != 4 {
			t.Fatalf("--dry-run changed the outbox: %d rows", total)
		}
		// By id: only dead-lettered rows go.
		code, out, _ = f.run(t, "discard", dead, f.ids["pending"], "--json")
		if code != 0 || !strings.Contains(out, `"discarded": 1`) || !strings.Contains(out, `"skipped_not_dead_lettered": 1`) {
			t.Fatalf("discard ids: exit %d %s", code, out)
		}
		if total, d := count(); total != 3 || d != 0 {
			t.Fatalf("after discard: %d rows, %d dead", total, d)
		}
		// --all-dead narrowed by type and age; row 1 is 40 days old.
		old := time.Now().Add(-40 * 24 * time.Hour).UnixMilli()
		f.db.Exec(`UPDATE event_queue SET status = 'dead_lettered' WHERE id IN (1, 2, 3)`)
		f.db.Exec(`UPDATE event_queue SET created_at = ` + itoa(old) + ` WHERE id = 3`)
		if code, out, _ := f.run(t, "discard", "--all-dead", "--type", "PosterSynced", "--dry-run"); code != 0 || !strings.Contains(out, "would discard 1 ") {
			t.Fatalf("--all-dead --type --dry-run: exit %d %s", code, out)
		}
		if code, out, _ := f.run(t, "discard", "--all-dead", "--older-than", "30d"); code != 0 || !strings.Contains(out, "discarded 2 ") {
			t.Fatalf("--all-dead --older-than 30d: exit %d %s", code, out)
		}
		if total, d := count(); total != 1 || d != 1 {
			t.Fatalf("after --older-than: %d rows, %d dead; want the young one left", total, d)
		}
		if code, out, _ := f.run(t, "discard", "--all-dead"); code != 0 || !strings.Contains(out, "discarded 1 ") {
			t.Fatalf("--all-dead: exit %d %s", code, out)
		}
		for _, args := range [][]string{
			{"discard"}, {"discard", "1", "--all-dead"}, {"discard", "1", "--type", "X"}, {"discard", "--all-dead", "--older-than", "soon"},
		} {
			if code, _, _ := f.run(t, args...); code != 2 {
				t.Errorf("%v: exit %d, want 2", args, code)
			}
		}
	})
}

func TestEventsRetryDryRun(t *testing.T) {
	eachStore(t, func(t *testing.T, f *eventsFixture) {
		code, out, _ := f.run(t, "retry", "--all-dead", "--dry-run")
		if code != 0 || !strings.Contains(out, "dry run: would retry 1 ") || !strings.Contains(out, "remote said 503") {
			t.Fatalf("retry --dry-run: exit %d %s", code, out)
		}
		var status string
		f.db.QueryRow(`SELECT status FROM event_queue WHERE id = 4`).Scan(&status)
		if status != "dead_lettered" {
			t.Fatalf("retry --dry-run changed the row to %s", status)
		}
	})
}

func TestEventsPurgeEverythingNeedsYes(t *testing.T) {
	eachStore(t, func(t *testing.T, f *eventsFixture) {
		f.db.Exec(`UPDATE event_queue SET status = 'done' WHERE id = 2`)
		if code, _, errOut := f.run(t, "purge", "--done-older-than", "0s"); code != 2 || !strings.Contains(errOut, "--yes") {
			t.Fatalf("purge 0s without --yes: exit %d %q", code, errOut)
		}
		if code, out, _ := f.run(t, "purge", "--done-older-than", "0s", "--dry-run"); code != 0 || !strings.Contains(out, "would purge 2 ") {
			t.Fatalf("purge 0s --dry-run: exit %d %s", code, out)
		}
		var n int
		f.db.QueryRow(`SELECT count(*) FROM event_queue WHERE status = 'done'`).Scan(&n)
		if n != 2 {
			t.Fatalf("the refused and dry runs deleted rows: %d done left", n)
		}
		if code, out, _ := f.run(t, "purge", "--done-older-than", "0d", "--yes"); code != 0 || !strings.Contains(out, "purged 2 ") {
			t.Fatalf("purge 0d --yes: exit %d %s", code, out)
		}
	})
}

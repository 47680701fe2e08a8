package sqlite

import (
	"context"
	"testing"
	"time"

	"moviesdiary/internal/maintenance"
)

// TestAdoptedHistorySurvivesTheWorkersJobs runs the worker's real retention jobs (the
// federation pruner and the wrap-up reaper) over an adopted database: at their first run,
// and a week and a day later. The original's inbound activity ids (all older than the 14-day
// dedup window) are kept at both, so replays of them are still refused, as the original
// refused them; its wrap-ups run on the reaper's clocks from the adoption, not from their
// creation: the Failed ones (its own and the one the adoption superseded) are kept a week, the
// Pending one is not failed as stuck on the first day.
func TestAdoptedHistorySurvivesTheWorkersJobs(t *testing.T) {
	t.Parallel()
	path := newLegacyDB(t)
	ctx := context.Background()
	if err := openStore(t, path).Migrate(ctx, testLogger(t)); err != nil {
		t.Fatal(err)
	}
	s := openStore(t, path)
	db, err := openRaw(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	run := func(now time.Time) {
		t.Helper()
		jc := maintenance.JobConfig{Logger: testLogger(t), Now: func() time.Time { return now }}
		for _, j := range []interface{ RunOnce(context.Context) error }{
			maintenance.NewFederationPruner(s, jc), maintenance.NewWrapUpReaper(s, jc),
		} {
			if err := j.RunOnce(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	const wrapups = `SELECT id, status, error_message FROM wrapups ORDER BY id`
	superseded := "superseded when adopted from movies-diary: another live wrap-up covers the same range"

	run(time.Now())
	wantRows(t, db, `SELECT activity_id FROM inbox_activities`, []string{"https://social.example/activities/1"})
	wantRows(t, db, wrapups,
		[]string{"eeeeeeee-eeee-4eee-8eee-eeeeeeeeeee1", "Ready", "<nil>"},
		[]string{"eeeeeeee-eeee-4eee-8eee-eeeeeeeeeee2", "Failed", superseded},
		[]string{"eeeeeeee-eeee-4eee-8eee-eeeeeeeeeee3", "Pending", "<nil>"},
		[]string{"eeeeeeee-eeee-4eee-8eee-eeeeeeeeeee4", "Failed", "no reviews"})

	// A week and a day on: the stuck Pending one is failed (and goes a run later, as ours do),
	// the Failed ones are gone; the inbound ids stay.
	later := time.Now().Add(maintenance.FailedWrapUpKeep + 24*time.Hour)
	run(later)
	wantRows(t, db, `SELECT activity_id FROM inbox_activities`, []string{"https://social.example/activities/1"})
	wantRows(t, db, wrapups,
		[]string{"eeeeeeee-eeee-4eee-8eee-eeeeeeeeeee1", "Ready", "<nil>"},
		[]string{"eeeeeeee-eeee-4eee-8eee-eeeeeeeeeee3", "Failed", "generation did not finish"})
	run(later.Add(time.Hour))
	wantRows(t, db, wrapups, []string{"eeeeeeee-eeee-4eee-8eee-eeeeeeeeeee1", "Ready", "<nil>"})
}

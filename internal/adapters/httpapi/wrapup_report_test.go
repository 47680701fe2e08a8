package httpapi_test

import (
	"slices"
	"testing"
)

// TestOldWrapUpReportIsRegenerated: a report stored by an older build, in its own field names,
// is never served (the client crashes on it); reading it sends the wrap-up back to Pending with
// one WrapUpRequested in the same transaction, and a second read requests nothing more.
func TestOldWrapUpReportIsRegenerated(t *testing.T) {
	t.Parallel()
	b := setup(t)
	admin := b.register("alice")
	var wu struct{ ID string }
	b.must(200, req{method: "POST", path: "/api/v1/wrapups/generate", token: admin.token,
		body: map[string]any{"start_date": "2024-01-01", "end_date": "2024-12-31"}}).json(t, &wu)
	b.execSQL(`UPDATE wrapups SET status = 'Ready', created_at = '2024-05-06T07:08:09Z', completed_at = '2024-05-06T07:08:10Z',
		report = '{"scope":"user","total_viewings":3,"average_rating":4,"rewatches":[]}'`)
	since := b.lastEvent()
	report := req{method: "GET", path: "/api/v1/wrapups/" + wu.ID + "/report", token: admin.token}
	for range 2 {
		if got := b.must(202, report); len(got.body) != 0 || got.header.Get("X-Wrap-Up-Status") != "Pending" {
			t.Errorf("old report read = %q (status %q), want an empty 202 while it is made again", got.body, got.header.Get("X-Wrap-Up-Status"))
		}
	}
	if got := b.eventTypes(since); !slices.Equal(got, []string{"WrapUpRequested"}) {
		t.Errorf("events = %v, want one WrapUpRequested", got)
	}
	if got := b.scalar(`SELECT status || '|' || ifnull(report, 'NULL') || '|' || ifnull(completed_at, 'NULL') FROM wrapups`); got != "Pending|NULL|NULL" {
		t.Errorf("row = %s", got)
	}
	// Requested again now, so the stuck-wrap-up reaper does not fail it at once.
	if got := b.scalar(`SELECT created_at > '2024-05-06T07:08:09Z' FROM wrapups`); got != "1" {
		t.Errorf("created_at = %s, want the time of the regeneration", b.scalar(`SELECT created_at FROM wrapups`))
	}
	// Someone else's wrap-up stays not found, and is not touched.
	bob := b.register("bob")
	b.execSQL(`UPDATE wrapups SET status = 'Ready', report = '{"scope":"user"}', user_id = ?`, admin.id.String())
	b.must(404, req{method: "GET", path: report.path, token: bob.token})
	if got := b.scalar(`SELECT status FROM wrapups`); got != "Ready" {
		t.Errorf("another user's read changed the wrap-up to %s", got)
	}
	b.must(400, req{method: "GET", path: "/api/v1/wrapups/nope/report", token: admin.token})
	b.must(401, req{method: "GET", path: report.path})
}

// TestWrapUpRegenerationIsAtomic: when the WrapUpRequested cannot be written, the wrap-up keeps
// its old report and status (the change and its event commit together or not at all).
func TestWrapUpRegenerationIsAtomic(t *testing.T) {
	t.Parallel()
	b := setup(t)
	admin := b.register("alice")
	var wu struct{ ID string }
	b.must(200, req{method: "POST", path: "/api/v1/wrapups/generate", token: admin.token,
		body: map[string]any{"start_date": "2024-01-01", "end_date": "2024-12-31"}}).json(t, &wu)
	b.execSQL(`UPDATE wrapups SET status = 'Ready', report = '{"scope":"instance"}'`)
	since := b.lastEvent()
	b.failEnqueue.Store(true)
	b.must(500, req{method: "GET", path: "/api/v1/wrapups/" + wu.ID + "/report", token: admin.token}).errorMessage(t)
	if got := b.scalar(`SELECT status || '|' || report FROM wrapups`); got != `Ready|{"scope":"instance"}` {
		t.Errorf("after a failed regeneration the row is %s", got)
	}
	if got := b.eventTypes(since); len(got) != 0 {
		t.Errorf("events = %v, want none", got)
	}
	b.failEnqueue.Store(false)
	b.must(202, req{method: "GET", path: "/api/v1/wrapups/" + wu.ID + "/report", token: admin.token})
	if got := b.eventTypes(since); !slices.Equal(got, []string{"WrapUpRequested"}) {
		t.Errorf("events = %v, want one WrapUpRequested", got)
	}
}

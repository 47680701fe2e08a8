package maintenance

import (
	"context"
	"strings"
	"testing"
	"time"

	"moviesdiary/internal/adapters/sqlite"
)

var _ Federation = (*sqlite.Store)(nil)

// TestFederationPrunerKeepsWhatIsNeeded: inbound ids past the dedup window go, younger ones
// stay; of the published activities past their retention, superseded Updates, the Create of a
// deleted object and answers go, while an object's latest activity, a live object's Create and
// every Follow stay, and so does anything younger than the retention.
func TestFederationPrunerKeepsWhatIsNeeded(t *testing.T) {
	t.Parallel()
	b := setup(t)
	old, young := b.now.Add(-PublishedActivityRetention-time.Hour), b.now.Add(-time.Hour)
	for id, age := range map[string]time.Duration{"kept": InboxDedupWindow - time.Minute, "pruned": InboxDedupWindow + time.Minute} {
		b.exec(t, `INSERT INTO inbox_activities (activity_id, actor_url, received_at) VALUES (?, 'https://r.example/users/a', ?)`,
			id, b.now.Add(-age).UnixMilli())
	}
	for _, a := range []struct {
		id, typ, object string
		at              time.Time
	}{
		{"kept-create-live", "Create", "review/1", old},
		{"pruned-update-superseded", "Update", "review/1", old},
		{"kept-update-latest", "Update", "review/1", old.Add(time.Minute)},
		{"pruned-create-deleted", "Create", "review/2", old},
		{"kept-delete", "Delete", "review/2", old.Add(time.Minute)},
		{"pruned-accept", "Accept", "https://r.example/users/a", old},
		{"kept-accept-young", "Accept", "https://r.example/users/b", young},
		{"kept-follow", "Follow", "https://r.example/users/a", old},
		{"kept-update-young", "Update", "review/3", young},
		{"kept-update-young-latest", "Update", "review/3", young.Add(time.Minute)},
	} {
		b.exec(t, `INSERT INTO ap_activities (id, actor_id, type, object_id, activity, created_at) VALUES (?, 'u', ?, ?, '{}', ?)`,
			a.id, a.typ, a.object, a.at.UnixMilli())
	}
	if err := NewFederationPruner(b.store, b.cfg).RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, table := range []struct{ name, id string }{{"inbox_activities", "activity_id"}, {"ap_activities", "id"}} {
		rows, err := b.db.Query(`SELECT ` + table.id + ` FROM ` + table.name)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(id, "kept") {
				t.Errorf("%s: %s was not pruned", table.name, id)
			}
		}
		rows.Close()
	}
	if n := b.count(t, `SELECT count(*) FROM ap_activities`); n != 7 {
		t.Errorf("%d published activities left, want the 7 kept", n)
	}
	if n := b.count(t, `SELECT count(*) FROM inbox_activities`); n != 1 {
		t.Errorf("%d inbound ids left, want 1", n)
	}
}

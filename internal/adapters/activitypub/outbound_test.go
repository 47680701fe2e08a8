package activitypub_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"moviesdiary/internal/adapters/activitypub"
	"moviesdiary/internal/delivery"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/federation"
)

// TestFanOutOneDeliveryPerInbox: a review goes out as a Create(Note) to one inbox per server:
// two followers on a server with a shared inbox get one POST there, a follower on a server
// without one gets it at their own inbox. The activity id derives from the event id and each
// delivery's outbox id from (activity id, inbox). The Note carries the review's fields.
func TestFanOutOneDeliveryPerInbox(t *testing.T) {
	t.Parallel()
	a := newInstance(t, nil)
	alice := a.user("alice")
	shared, single := newRemote(t), newRemote(t)
	single.noShared = true
	for _, f := range []string{shared.addUser("bob"), shared.addUser("carol"), single.addUser("dave")} {
		a.acceptRemoteFollower(alice, f)
	}
	a.startWorker()
	eventually(t, "the follows' Accepts and backfills settle", a.settled) // so the only Create is the review's
	a.logReview(alice, 4)
	t.Cleanup(func() {
		if t.Failed() {
			a.dump()
		}
	})
	eventually(t, "the Create reaches both servers", func() bool {
		return len(shared.postsOf("Create")) == 1 && len(single.postsOf("Create")) == 1 && a.settled()
	})
	if p := shared.postsOf("Create")[0]; p.Inbox != "/inbox" {
		t.Errorf("shared server got the Create at %s, want its shared inbox /inbox", p.Inbox)
	}
	if p := single.postsOf("Create")[0]; p.Inbox != "/users/dave/inbox" {
		t.Errorf("server without a shared inbox got it at %s, want /users/dave/inbox", p.Inbox)
	}
	var eventID string
	if err := a.db.QueryRow(`SELECT event_id FROM event_queue WHERE event_type = 'ReviewLogged'`).Scan(&eventID); err != nil {
		t.Fatal(err)
	}
	create := shared.postsOf("Create")[0].Activity
	wantID := federation.ActivityID(a.base, eventID, "Create")
	if create["id"] != wantID || create["actor"] != a.actor(alice) {
		t.Errorf("Create id %v actor %v, want %s by %s", create["id"], create["actor"], wantID, a.actor(alice))
	}
	note, _ := create["object"].(map[string]any)
	if note["type"] != "Note" || note["review"] != true || note["rating"] != float64(4) || note["movieTitle"] != "The Matrix" ||
		note["externalMetadataId"] != "tt0133093" || note["comment"] != "mind-bending" ||
		!strings.HasPrefix(note["content"].(string), `<p>⭐⭐⭐⭐ <a href="https://www.imdb.com/title/tt0133093/" rel="nofollow noopener" target="_blank">The Matrix (1999)</a></p><p>mind-bending</p><p>Watched: Mar 1, 2024</p>`) {
		t.Errorf("Note = %v", note)
	}
	for _, inbox := range []string{shared.base + "/inbox", single.base + "/users/dave/inbox"} {
		id := federation.DeliveryID(wantID, inbox).String()
		if n := a.count(`SELECT count(*) FROM event_queue WHERE event_id = ? AND event_type = 'FederationDeliveryRequested'
			AND status = 'done'`, id); n != 1 {
			t.Errorf("delivery %s to %s: %d done rows, want 1", id, inbox, n)
		}
	}
	// The activity is dereferenceable, and so is the review.
	for _, u := range []string{wantID, note["id"].(string)} {
		req, _ := http.NewRequest(http.MethodGet, u, nil)
		req.Header.Set("Accept", "application/activity+json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("GET %s = %d, want 200", u, resp.StatusCode)
		}
	}
}

// TestFederationFlagGatesReviews: with federate_reviews off, a review is not sent at all.
func TestFederationFlagGatesReviews(t *testing.T) {
	t.Parallel()
	a := newInstance(t, nil)
	alice := a.user("alice")
	r := newRemote(t)
	a.acceptRemoteFollower(alice, r.addUser("bob"))
	if err := a.store.SaveSettings(context.Background(), alice.ID, domain.FederationSettings{Reviews: false, Watchlist: true}); err != nil {
		t.Fatal(err)
	}
	a.startWorker()
	a.logReview(alice, 3)
	eventually(t, "the outbox settles", a.settled)
	if n := a.count(`SELECT count(*) FROM event_queue WHERE event_type = 'FederationDeliveryRequested'`); n != 1 {
		// the one delivery is the Accept of bob's follow
		t.Errorf("%d deliveries, want only the Accept", n)
	}
	if got := r.postsOf("Create"); len(got) != 0 {
		t.Errorf("a review was federated with federate_reviews off: %v", got)
	}
}

// TestReplayRepeatsIDs simulates a crash after the fan-out committed but before the ledger
// recorded it: running the handler again for the same event writes no new outbox row (the
// delivery ids are the same), and re-running a delivery re-sends the same activity id.
func TestReplayRepeatsIDs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := newInstance(t, nil)
	alice := a.user("alice")
	r := newRemote(t)
	a.acceptRemoteFollower(alice, r.addUser("bob"))
	review := a.logReview(alice, 5)
	handlers := map[string]delivery.Handler{}
	for _, h := range a.fed.Handlers() {
		handlers[h.Name] = h
	}
	env := delivery.Envelope{EventID: "0190a000-0000-7000-8000-000000000001", Attempt: 1,
		Event: domain.ReviewUpdated{ReviewID: review, MovieID: domain.MovieIDFor("tt0133093"), UserID: alice.ID, Rating: 5,
			WatchedAt: domain.UnixFrom(1_700_000_000)}}
	outbox := func() int { return a.count(`SELECT count(*) FROM event_queue`) }
	if err := handlers[activitypub.OutboundHandler].Handle(ctx, env); err != nil {
		t.Fatal(err)
	}
	before := outbox()
	for range 2 { // the replays
		if err := handlers[activitypub.OutboundHandler].Handle(ctx, env); err != nil {
			t.Fatal(err)
		}
	}
	if after := outbox(); after != before {
		t.Fatalf("replaying the fan-out added %d outbox rows, want none", after-before)
	}
	activityID := federation.ActivityID(a.base, env.EventID, "Update")
	deliveryID := federation.DeliveryID(activityID, r.base+"/inbox").String()
	var payload []byte
	if err := a.db.QueryRow(`SELECT payload FROM event_queue WHERE event_id = ?`, deliveryID).Scan(&payload); err != nil {
		t.Fatalf("delivery %s not in the outbox: %v", deliveryID, err)
	}
	d, err := domain.Decode("FederationDeliveryRequested", payload)
	if err != nil {
		t.Fatal(err)
	}
	denv := delivery.Envelope{EventID: deliveryID, Event: d, Attempt: 1}
	for range 2 { // the delivery, and its redelivery after a lost ack
		if err := handlers[activitypub.DeliverHandler].Handle(ctx, denv); err != nil {
			t.Fatal(err)
		}
	}
	got := r.postsOf("Update")
	if len(got) != 2 || got[0].Activity["id"] != activityID || got[1].Activity["id"] != activityID {
		t.Fatalf("the remote got %d Updates (%v), want 2 with id %s", len(got), got, activityID)
	}
}

// TestDeliveryFailures: an inbox that answers 500 three times and then 202 gets the activity
// (retried with backoff); one that answers 410 is not retried (dead-lettered at once).
func TestDeliveryFailures(t *testing.T) {
	t.Parallel()
	a := newInstance(t, nil)
	alice := a.user("alice")
	flaky, gone := newRemote(t), newRemote(t)
	flaky.status = func(_ string, n int) int {
		if n <= 3 {
			return http.StatusInternalServerError
		}
		return http.StatusAccepted
	}
	gone.status = func(string, int) int { return http.StatusGone }
	a.acceptRemoteFollower(alice, flaky.addUser("bob"))
	// gone's follower joins after the Accept went out, so its only delivery is the review's.
	a.acceptRemoteFollower(alice, gone.addUser("eve"))
	a.startWorker()
	eventually(t, "the follows' Accepts and backfills settle", a.settled)
	a.logReview(alice, 2)
	eventually(t, "the outbox settles", a.settled)
	if got := flaky.postsOf("Create"); len(got) != 1 {
		t.Errorf("flaky inbox accepted %d Creates, want 1", len(got))
	}
	var attempts int
	var status string
	err := a.db.QueryRow(`SELECT status, attempts FROM event_queue WHERE event_type = 'FederationDeliveryRequested'
		AND payload LIKE '%"Create"%' AND payload LIKE ?`, "%"+flaky.base+"%").Scan(&status, &attempts)
	if err != nil || status != "done" || attempts != 3 {
		t.Errorf("flaky delivery: status %q after %d failed attempts (%v), want done after 3", status, attempts, err)
	}
	err = a.db.QueryRow(`SELECT status, attempts FROM event_queue WHERE event_type = 'FederationDeliveryRequested'
		AND payload LIKE '%"Create"%' AND payload LIKE ?`, "%"+gone.base+"%").Scan(&status, &attempts)
	if err != nil || status != "dead_lettered" {
		t.Errorf("410 delivery: status %q (%v), want dead_lettered", status, err)
	}
	gone.mu.Lock()
	accept, create := gone.attempts["/users/eve/inbox"], gone.attempts["/inbox"]
	gone.mu.Unlock()
	if accept != 1 || create != 1 { // the Accept of eve's follow, and the Create: each tried once
		t.Errorf("the 410 server was tried %d times for the Accept and %d for the Create, want once each", accept, create)
	}
}

// TestCrashBetweenFanOutAndDelivery: the fan-out of a review committed, then the worker died
// before marking the event done and before any delivery. After a restart the event is handled
// again: its fan-out writes nothing new, and each inbox receives the activity exactly once.
func TestCrashBetweenFanOutAndDelivery(t *testing.T) {
	t.Parallel()
	a := newInstance(t, nil)
	alice := a.user("alice")
	r1, r2 := newRemote(t), newRemote(t)
	a.acceptRemoteFollower(alice, r1.addUser("bob"))
	a.acceptRemoteFollower(alice, r2.addUser("carol"))
	// Only the review's event is left to handle (the Accepts are not what this test is about).
	if _, err := a.db.Exec(`UPDATE event_queue SET status = 'done'`); err != nil {
		t.Fatal(err)
	}
	a.logReview(alice, 3)
	var eventID string
	var payload []byte
	if err := a.db.QueryRow(`SELECT event_id, payload FROM event_queue WHERE event_type = 'ReviewLogged'`).Scan(&eventID, &payload); err != nil {
		t.Fatal(err)
	}
	e, err := domain.Decode("ReviewLogged", payload)
	if err != nil {
		t.Fatal(err)
	}
	run(t, a, activitypub.OutboundHandler, eventID, e) // the fan-out before the crash
	rows := a.count(`SELECT count(*) FROM event_queue`)

	a.startWorker() // the restart: ReviewLogged is still pending
	eventually(t, "the outbox settles", a.settled)
	if after := a.count(`SELECT count(*) FROM event_queue`); after != rows {
		t.Errorf("the replayed fan-out wrote %d new outbox rows, want 0", after-rows)
	}
	want := federation.ActivityID(a.base, eventID, "Create")
	for _, r := range []*remote{r1, r2} {
		got := r.postsOf("Create")
		if len(got) != 1 || got[0].Activity["id"] != want {
			t.Errorf("%s received %d Creates, want exactly one with id %s", r.base, len(got), want)
		}
	}
}

// TestIdenticalForeignRowsSendTwoUpdates: two rows a foreign writer put in the outbox (no event
// id) with equal payloads — the same edit made twice — are two events: each is keyed by its row,
// so followers get two Updates with distinct ids, where a payload hash sent a single one.
func TestIdenticalForeignRowsSendTwoUpdates(t *testing.T) {
	t.Parallel()
	a := newInstance(t, nil)
	alice := a.user("alice")
	srv := newRemote(t)
	a.acceptRemoteFollower(alice, srv.addUser("bob"))
	review := a.logReview(alice, 4)
	a.startWorker()
	eventually(t, "the Create and the backfill settle", a.settled)
	payload, err := domain.Encode(domain.ReviewUpdated{ReviewID: review, MovieID: domain.MovieIDFor("tt0133093"), UserID: alice.ID,
		Rating: 4, WatchedAt: domain.NewUnixTime(time.Date(2024, 3, 1, 20, 0, 0, 0, time.UTC))})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := a.db.Exec(`INSERT INTO event_queue (event_id, event_type, payload) VALUES (NULL, 'ReviewUpdated', ?)`, payload); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		if t.Failed() {
			a.dump()
		}
	})
	eventually(t, "both foreign rows are delivered", func() bool {
		return a.settled() && a.count(`SELECT count(*) FROM event_queue WHERE event_type = 'ReviewUpdated' AND status = 'done'`) == 2 &&
			a.count(`SELECT count(*) FROM event_queue WHERE event_type = 'FederationDeliveryRequested' AND status IN ('pending', 'processing')`) == 0
	})
	updates := srv.postsOf("Update")
	if len(updates) != 2 || updates[0].Activity["id"] == updates[1].Activity["id"] {
		ids := make([]any, len(updates))
		for i, u := range updates {
			ids[i] = u.Activity["id"]
		}
		t.Fatalf("Updates delivered %v, want two with distinct ids", ids)
	}
}

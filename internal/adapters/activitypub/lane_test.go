package activitypub_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/activitypub"
	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/outbox"
	"moviesdiary/internal/usecase/federation"
)

// fakeClock is the lane's clock, which the test moves: the retry schedule is hours and days long,
// and no test waits for it.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// laneWorld is an instance whose worker hands deliveries to a delivery lane on a fake clock,
// with remote instances on loopback addresses of their own.
type laneWorld struct {
	*instance
	clock  *fakeClock
	policy federation.Policy
	stop   func() // stops the lane and waits for it

	mu       sync.Mutex
	settles  int       // attempts the lane recorded
	idles    int       // idle cycles
	idleAt   time.Time // the clock of the lane's last idle cycle
	idleSeen int       // settles by then
}

// newLaneWorld starts the instance, its worker and its lane. Requests time out after 300 ms
// (a black-holed host costs that much real time per attempt).
func newLaneWorld(t *testing.T, policy federation.Policy) *laneWorld {
	// The clock starts a minute ahead of the real one, which stamps the handoffs.
	w := &laneWorld{clock: &fakeClock{now: time.Now().Add(time.Minute)}, policy: policy}
	var lane *federation.Lane
	w.instance = newInstanceOver(t, func(cfg *activitypub.Config, store *sqlite.Store) {
		cfg.Client = activitypub.NewClient(activitypub.ClientConfig{AllowPrivate: true, Timeout: 300 * time.Millisecond})
		cfg.Deliveries = store
		cfg.Wake = func() {
			if lane != nil {
				lane.Wake()
			}
		}
	})
	lane = w.startLane()
	w.instance.startWorker()
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		rows, err := w.db.Query(`SELECT id, inbox, object_key, json_extract(activity, '$.type'), status, attempts,
			coalesce(last_error, '') FROM federation_deliveries ORDER BY id`)
		if err != nil {
			return
		}
		defer rows.Close()
		for rows.Next() {
			var id, attempts int
			var inbox, object, typ, status, lastErr string
			_ = rows.Scan(&id, &inbox, &object, &typ, &status, &attempts, &lastErr)
			t.Logf("delivery %d %s to %s about %s: %s after %d attempts %s", id, typ, inbox, object, status, attempts, lastErr)
		}
	})
	return w
}

// startLane runs a lane until the test ends or stop is called.
func (w *laneWorld) startLane() *federation.Lane {
	// The lease is a day of the fake clock: steps move it by minutes while a black hole holds an
	// attempt for 300 ms of real time, which must not look like a dead lane's.
	lane := federation.NewLane(w.store, w.fed, federation.LaneConfig{Policy: w.policy, Poll: 2 * time.Millisecond, Lease: 24 * time.Hour,
		Now: w.clock.Now, Jitter: func() float64 { return 0.5 }, Logger: quietLog(),
		Observe: func(string) { w.mu.Lock(); w.settles++; w.mu.Unlock() }, Refuse: w.fed.RefuseHost,
		Idle: func(at time.Time) { w.mu.Lock(); w.idles++; w.idleAt, w.idleSeen = at, w.settles; w.mu.Unlock() }})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = lane.Run(ctx); close(done) }()
	var once sync.Once
	w.stop = func() { once.Do(func() { cancel(); <-done }) }
	w.t.Cleanup(w.stop)
	return lane
}

// step moves the clock by d and waits until the lane has caught up: no delivery is being sent
// but to a black hole (host skip), and the lane went idle at the new time after the last
// attempt it recorded, having claimed all it could.
func (w *laneWorld) step(d time.Duration, skip string) {
	w.clock.advance(d)
	to := w.clock.Now()
	idle := func() (int, bool) {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.idles, !w.idleAt.Before(to) && w.idleSeen == w.settles
	}
	eventually(w.t, "the lane caught up", func() bool {
		// Idle before and after the count, in the same cycle: nothing was claimed in between.
		before, ok := idle()
		if !ok || w.count(`SELECT count(*) FROM federation_deliveries WHERE status = 'sending' AND host <> ?`, skip) != 0 {
			return false
		}
		after, _ := idle()
		return before == after
	})
}

// typesAbout is the activity types a remote accepted about object, in the order each activity
// first arrived. A repeat of an activity (same id) is left out: delivery is at least once, and
// an answer that comes after the client's timeout on a loaded machine is retried.
func typesAbout(r *remote, object string) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range r.received() {
		o := p.Activity["object"]
		if m, ok := o.(map[string]any); ok {
			o = m["id"]
		}
		id, _ := p.Activity["id"].(string)
		if o != object || (id != "" && seen[id]) {
			continue
		}
		seen[id] = true
		out = append(out, p.Activity["type"].(string))
	}
	return out
}

// TestLaneDeliversThroughTheFediversesWeather: one user's review is created, edited and
// deleted while its followers' servers are healthy, answer 503 a few times, are down for two
// hours, ask for a pause with 429 Retry-After, are gone (410), are black holes, or are slow. Every
// server that comes back gets all three activities in order; the gone one loses its follower;
// the black hole's circuit opens and no attempt reaches it while it is open.
func TestLaneDeliversThroughTheFediversesWeather(t *testing.T) {
	policy := federation.Policy{OpenAfter: 3, CoolOff: 10 * time.Minute, MaxCoolOff: time.Hour}
	w := newLaneWorld(t, policy)
	u := w.user("alice")

	healthy := newRemoteAt(t, "127.0.0.2")
	flaky := newRemoteAt(t, "127.0.0.3")
	flaky.status = func(_ string, n int) int {
		if n <= 3 {
			return http.StatusServiceUnavailable
		}
		return http.StatusAccepted
	}
	down := newRemoteAt(t, "127.0.0.4")
	var downMu sync.Mutex
	isDown := true
	down.status = func(string, int) int {
		downMu.Lock()
		defer downMu.Unlock()
		if isDown {
			return statusDrop
		}
		return http.StatusAccepted
	}
	paced := newRemoteAt(t, "127.0.0.5")
	paced.retryAfter = "900"
	var pacedAt []time.Time // at the shared inbox
	paced.status = func(inbox string, n int) int {
		if inbox == "/inbox" {
			pacedAt = append(pacedAt, w.clock.Now())
		}
		if n == 1 {
			return http.StatusTooManyRequests
		}
		return http.StatusAccepted
	}
	gone := newRemoteAt(t, "127.0.0.6")
	gone.noShared = true
	gone.status = func(string, int) int { return http.StatusGone }
	hole := newRemoteAt(t, "127.0.0.7")
	var holeMu sync.Mutex
	whileOpen := 0
	hole.status = func(string, int) int {
		holeMu.Lock()
		defer holeMu.Unlock()
		var open int
		_ = w.db.QueryRow(`SELECT count(*) FROM federation_hosts WHERE host = '127.0.0.7' AND state = 'open' AND open_until > ?`,
			w.clock.Now().UnixMilli()).Scan(&open)
		whileOpen += open
		return statusHang
	}
	slow := newRemoteAt(t, "127.0.0.11")
	slow.status = func(string, int) int {
		time.Sleep(50 * time.Millisecond) // a slow server (well within the client's timeout, even on a loaded machine), not synchronisation
		return http.StatusAccepted
	}
	remotes := []*remote{healthy, flaky, down, paced, gone, hole, slow}
	followers := map[*remote]string{}
	for i, r := range remotes {
		followers[r] = r.addUser(fmt.Sprintf("f%d", i))
		w.acceptRemoteFollower(u, followers[r])
	}
	// The follows' own work (the Accepts, the backfill of existing reviews) is done before the
	// review is written, so the review's activities are its fan-out alone.
	eventually(t, "the follows settled", w.settled)

	// Each write is published before the next (the worker reads the review as it is now), to
	// every follower but the gone one's: the 410 its server gave the Accept removed it.
	id := w.logReview(u, 4)
	object := w.base + "/reviews/" + id.String()
	published := func(n int) {
		eventually(t, "the activities handed to the lane", func() bool {
			return w.count(`SELECT count(*) FROM federation_deliveries WHERE object_key = ?`, object) == n
		})
	}
	published(len(remotes) - 1)
	ctx := context.Background()
	if _, err := w.store.UpdateReview(ctx, id, func(r *domain.Review) error { r.Rating = 5; return nil }); err != nil {
		t.Fatal(err)
	}
	published(2 * (len(remotes) - 1))
	if err := w.store.DeleteReview(ctx, id, func(domain.Review) error { return nil }); err != nil {
		t.Fatal(err)
	}
	published(3 * (len(remotes) - 1))
	// The publications queued their deliveries themselves: the fan-out cost the outbox nothing.
	if n := w.count(`SELECT count(*) FROM event_queue WHERE event_type = 'FederationDeliveryRequested'`); n != 0 {
		t.Errorf("%d FederationDeliveryRequested outbox rows: the fan-out went through the outbox", n)
	}

	want := []string{"Create", "Update", "Delete"}
	for elapsed := time.Duration(0); elapsed < 6*time.Hour; elapsed += 5 * time.Minute {
		if elapsed == 2*time.Hour {
			downMu.Lock()
			isDown = false
			downMu.Unlock()
		}
		w.step(5*time.Minute, "127.0.0.7")
	}
	for _, r := range []*remote{healthy, flaky, down, paced, slow} {
		if got := typesAbout(r, object); !slices.Equal(got, want) {
			t.Errorf("%s received %v, want %v in that order", r.host(), got, want)
		}
	}
	if len(pacedAt) < 2 || pacedAt[1].Sub(pacedAt[0]) < 15*time.Minute {
		t.Errorf("after a 429 with Retry-After: 900 the next attempt came %v later", pacedAt[1].Sub(pacedAt[0]))
	}
	if n := w.count(`SELECT count(*) FROM follows WHERE follower_id = ?`, followers[gone]); n != 0 {
		t.Errorf("the follower behind the gone (410) inbox is still there")
	}
	if n := w.count(`SELECT count(*) FROM federation_deliveries WHERE host = '127.0.0.6' AND status <> 'dead'`); n != 0 {
		t.Errorf("%d deliveries to the gone host not dead-lettered", n)
	}
	holeMu.Lock()
	defer holeMu.Unlock()
	if whileOpen != 0 {
		t.Errorf("%d attempts reached the black hole while its circuit was open", whileOpen)
	}
	if n := w.count(`SELECT count(*) FROM federation_hosts WHERE host = '127.0.0.7' AND state IN ('open', 'unavailable')`); n != 1 {
		t.Errorf("the black hole's circuit is not open")
	}
	if n := w.count(`SELECT count(*) FROM federation_deliveries WHERE host = '127.0.0.7' AND status = 'dead'`); n != 0 {
		t.Errorf("%d deliveries to the black hole dead-lettered within the retry window", n)
	}
}

// TestParkedDeliveriesSurviveARestartAndGoWhenTheHostIsSeenAlive: a server down for longer than
// UnavailableAfter has its deliveries parked; the lane is stopped and a new one started (a
// worker restart); nothing is attempted while parked; when an activity arrives from the
// server, every parked delivery goes out, in order.
func TestParkedDeliveriesSurviveARestartAndGoWhenTheHostIsSeenAlive(t *testing.T) {
	w := newLaneWorld(t, federation.Policy{UnavailableAfter: 3 * time.Hour})
	u := w.user("alice")
	r := newRemoteAt(t, "127.0.0.8")
	var mu sync.Mutex
	up, attempts := false, 0
	r.status = func(string, int) int {
		mu.Lock()
		defer mu.Unlock()
		attempts++
		if up {
			return http.StatusAccepted
		}
		return http.StatusServiceUnavailable
	}
	follower := r.addUser("bob")
	w.acceptRemoteFollower(u, follower)
	eventually(t, "the follow settled", w.settled)
	id := w.logReview(u, 3)
	object := w.base + "/reviews/" + id.String()
	eventually(t, "the Create handed to the lane", func() bool {
		return w.count(`SELECT count(*) FROM federation_deliveries WHERE object_key = ?`, object) == 1
	})
	if _, err := w.store.UpdateReview(context.Background(), id, func(r *domain.Review) error { r.Rating = 1; return nil }); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 48 && w.count(`SELECT count(*) FROM federation_deliveries WHERE status = 'parked' AND object_key = ?`, object) < 2; i++ {
		w.step(10*time.Minute, "")
	}
	if n := w.count(`SELECT count(*) FROM federation_deliveries WHERE status = 'parked' AND object_key = ?`, object); n != 2 {
		t.Fatalf("%d deliveries parked after hours of failures, want 2", n)
	}
	w.stop()
	w.startLane() // the worker restarts
	mu.Lock()
	before := attempts
	up = true
	mu.Unlock()
	w.step(time.Hour, "") // within ProbeEvery: a parked host is not tried
	mu.Lock()
	if attempts != before {
		t.Errorf("%d attempts at a parked host", attempts-before)
	}
	mu.Unlock()
	// The server sends us an activity: it is alive.
	resp := r.signedPost(w.base+"/users/"+u.ID.String()+"/inbox", "bob", map[string]any{
		"@context": "https://www.w3.org/ns/activitystreams", "id": follower + "/likes/1", "type": "Like",
		"actor": follower, "object": w.base + "/reviews/" + id.String()}, time.Now(), nil)
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("inbox answered %d", resp.StatusCode)
	}
	eventually(t, "the parked deliveries sent", func() bool {
		return slices.Equal(typesAbout(r, object), []string{"Create", "Update"})
	})
}

// TestLaneDropsDeliveriesToADomainBlockedAfterPublication: a review is published to a follower's
// server while the lane is stopped; the admin blocks that server's domain; the restarted lane
// dead-letters the delivery without sending it, and the host's health is untouched.
func TestLaneDropsDeliveriesToADomainBlockedAfterPublication(t *testing.T) {
	w := newLaneWorld(t, federation.Policy{})
	u := w.user("alice")
	r := newRemoteAt(t, "127.0.0.9")
	follower := r.addUser("carol")
	w.acceptRemoteFollower(u, follower)
	eventually(t, "the follow settled", w.settled)
	w.stop()
	id := w.logReview(u, 5)
	object := w.base + "/reviews/" + id.String()
	eventually(t, "the Create queued for the lane", func() bool {
		return w.count(`SELECT count(*) FROM federation_deliveries WHERE object_key = ? AND status = 'pending'`, object) == 1
	})
	if err := w.store.BlockDomain(context.Background(), "127.0.0.9", "spam"); err != nil {
		t.Fatal(err)
	}
	w.startLane()
	eventually(t, "the delivery dead-lettered", func() bool {
		return w.count(`SELECT count(*) FROM federation_deliveries WHERE object_key = ? AND status = 'dead'
			AND last_error LIKE '%blocked%'`, object) == 1
	})
	if got := typesAbout(r, object); len(got) != 0 {
		t.Errorf("the blocked server received %v", got)
	}
	if n := w.count(`SELECT count(*) FROM federation_hosts WHERE host = '127.0.0.9' AND failures > 0`); n != 0 {
		t.Errorf("the refusal counted as the host's failure")
	}
}

// TestLaneTakesTheOutboxDeliveriesOfAnEarlierRelease: a FederationDeliveryRequested row in the
// outbox (written before publications queued their deliveries themselves) is handed to the lane
// and sent, once.
func TestLaneTakesTheOutboxDeliveriesOfAnEarlierRelease(t *testing.T) {
	w := newLaneWorld(t, federation.Policy{})
	u := w.user("alice")
	r := newRemoteAt(t, "127.0.0.10")
	object := w.base + "/notes/legacy"
	doc := fmt.Sprintf(`{"@context":"https://www.w3.org/ns/activitystreams","id":%q,"type":"Create","actor":%q,"object":%q}`,
		w.base+"/activities/legacy", w.base+"/users/"+u.ID.String(), object)
	ev := outbox.EventWithID{ID: uuid.New(), Event: domain.FederationDeliveryRequested{InboxURL: r.base + "/inbox",
		ActivityJSON: []byte(doc), SigningActorID: u.ID}}
	if err := w.store.Enqueue(context.Background(), ev); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the legacy delivery sent and done in the lane's queue", func() bool {
		return w.count(`SELECT count(*) FROM federation_deliveries WHERE delivery_id = ? AND status = 'done'`, ev.ID.String()) == 1
	})
	if got := typesAbout(r, object); !slices.Equal(got, []string{"Create"}) {
		t.Errorf("the remote received %v, want one Create", got)
	}
}

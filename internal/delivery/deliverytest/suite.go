package deliverytest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"moviesdiary/internal/delivery"
	"moviesdiary/internal/domain"
)

// The decision record's retry schedule, written out here rather than taken from domain, so that
// a change to domain.BackoffBase or domain.BackoffMax fails the suite.
const (
	scheduleBase = 5 * time.Second
	scheduleCap  = 300 * time.Second
)

// schedule is the delay after the n-th failed delivery: 5 s doubling, capped at 300 s.
func schedule(n int) time.Duration {
	d := scheduleBase
	for i := 1; i < n && d < scheduleCap; i++ {
		d *= 2
	}
	return min(d, scheduleCap)
}

// shortLease is the ledger lease for sources without a clock, so a held claim expires in a test.
const shortLease = 2 * time.Second

// wait bounds every wait for a condition the pump should reach promptly.
const wait = 20 * time.Second

// Run runs every case of the suite against fresh harnesses from newHarness, each in a parallel
// subtest.
func Run(t *testing.T, f Features, newHarness func(t *testing.T) Harness) {
	cases := []struct {
		name string
		run  func(t *testing.T, s *suite)
	}{
		{"Ack", testAck},
		{"RetryOnTheSharedBackoff", testRetry},
		{"DeferSpendsNoAttempt", testDefer},
		{"DeadLetterAtMaxAttempts", testExhausted},
		{"DeadLetterAtOnceOnAPermanentError", testPermanent},
		{"ShutdownReturnsUnstartedWork", testShutdown},
		{"RepeatedEventIDRunsHandlersOnce", testRepeats},
		{"StaleClaimerCannotSettle", testStaleClaimer},
		{"AckOfATakenOverClaimCompletesNothing", testAckOfATakenOverClaim},
		{"LedgerDoneSkipsTheHandler", testLedgerDone},
		{"LedgerStaleClaimIsTakenOver", testLedgerTakeOver},
		{"LedgerMarksNeedTheClaimToken", testLedgerToken},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.run(t, newSuite(t, f, newHarness(t)))
		})
	}
}

// Handler names of the suite's engine; both handle every event the suite publishes.
const (
	handlerA = "conformance-a"
	handlerB = "conformance-b"
)

// event is what the suite publishes: decodable, and handled by both handlers.
var event domain.Event = domain.SearchReindexRequested{}

// errUnavailable is the suite's transient handler failure.
var errUnavailable = errors.New("remote unavailable")

// suite is one case's harness, recording handlers and engine settings.
type suite struct {
	f     Features
	h     Harness
	lease time.Duration // the engine's ledger lease
	// backoff is the engine's retry schedule base; zero: production's (domain.BackoffBase).
	backoff time.Duration

	mu    sync.Mutex
	calls map[string]int // handler/event id → runs
	fail  func(handler string, e delivery.Envelope) error
}

func newSuite(t *testing.T, f Features, h Harness) *suite {
	s := &suite{f: f, h: h, lease: delivery.LedgerLeaseDefault, calls: map[string]int{}}
	if !f.Clock {
		s.lease = shortLease
	}
	return s
}

func (s *suite) handlers() []delivery.Handler {
	var hs []delivery.Handler
	for _, name := range []string{handlerA, handlerB} {
		hs = append(hs, delivery.Handler{Name: name, Types: []string{event.EventType()}, Handle: func(_ context.Context, e delivery.Envelope) error {
			s.mu.Lock()
			s.calls[name+"/"+e.EventID]++
			fail := s.fail
			s.mu.Unlock()
			if fail != nil {
				return fail(name, e)
			}
			return nil
		}})
	}
	return hs
}

func (s *suite) setFail(fail func(handler string, e delivery.Envelope) error) {
	s.mu.Lock()
	s.fail = fail
	s.mu.Unlock()
}

func (s *suite) runs(handler, id string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[handler+"/"+id]
}

// running is a pump the suite started.
type running struct {
	cancel context.CancelFunc // begins the shutdown
	stop   func()             // cancel, then wait for Run to return
}

// start runs a pump with the suite's engine over src until the test ends, or until it is
// stopped earlier.
func (s *suite) start(t *testing.T, src delivery.Source, cfg delivery.PumpConfig) running {
	t.Helper()
	log := Logger(t)
	engine, err := delivery.NewEngine(delivery.Config{LedgerLease: s.lease, MaxAttempts: s.f.MaxAttempts, Now: s.h.Now, Logger: log,
		BackoffBase: s.backoff},
		s.h.Ledger(), s.handlers()...)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Logger = log
	pump := delivery.NewPump(src, engine, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- pump.Run(ctx) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("pump: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return running{cancel: cancel, stop: stop}
}

// settled waits until the event's outcome satisfies ok and returns it; on timeout it reports
// the last outcome seen.
func (s *suite) settled(t *testing.T, id, what string, ok func(Outcome) bool) Outcome {
	t.Helper()
	var o Outcome
	deadline := time.Now().Add(wait)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for o = s.h.Outcome(t, id); !ok(o); o = s.h.Outcome(t, id) {
		if time.Now().After(deadline) {
			t.Fatalf("after %s: event %s still not %s (outcome %s)", wait, id, what, &o)
		}
		<-tick.C
	}
	return o
}

func (o *Outcome) String() string {
	return fmt.Sprintf("%s attempts=%d delay=%s err=%q", o.State, o.Attempts, o.Delay, o.Err)
}

// testAck: a delivery whose handlers all succeed is acked, each handler having run once.
func testAck(t *testing.T, s *suite) {
	src := s.h.Source(t)
	id := s.h.Publish(t, event)[0]
	s.start(t, src, delivery.PumpConfig{})
	s.settled(t, id, "done", func(o Outcome) bool { return o.State == Done })
	if a, b := s.runs(handlerA, id), s.runs(handlerB, id); a != 1 || b != 1 {
		t.Fatalf("handlers ran %d and %d times, want once each", a, b)
	}
	s.checkRow(t, id, "done", 0, "")
}

// checkRow waits until the event's outbox row has status, then checks its attempts and that
// last_error contains errText; it does nothing for a harness without rows.
func (s *suite) checkRow(t *testing.T, id, status string, attempts int, errText string) {
	t.Helper()
	rows, ok := s.h.(Rows)
	if !ok {
		return
	}
	var r Row
	Eventually(t, wait, "the outbox row "+status, func() bool {
		r = rows.Row(t, id)
		return r.Status == status
	})
	if r.Attempts != attempts || !strings.Contains(r.LastError, errText) {
		t.Fatalf("outbox row %+v; want %s with %d attempts and an error containing %q", r, status, attempts, errText)
	}
}

// testRetry: a transient failure spends an attempt and comes back after the shared backoff, 5 s
// doubling to a 300 s cap, the delay the source itself applies.
func testRetry(t *testing.T, s *suite) {
	s.setFail(func(string, delivery.Envelope) error { return errUnavailable })
	src := s.h.Source(t)
	id := s.h.Publish(t, event)[0]
	s.start(t, src, delivery.PumpConfig{})
	for n := 1; n < s.f.MaxAttempts; n++ {
		o := s.settled(t, id, fmt.Sprintf("waiting after failed delivery %d", n), func(o Outcome) bool {
			return o.State == Waiting && o.Attempts == n
		})
		if o.Delay != schedule(n) || o.Delay != domain.RetryBackoff(n) {
			t.Fatalf("after failed delivery %d the source waits %s; the schedule says %s (domain.RetryBackoff %s)",
				n, o.Delay, schedule(n), domain.RetryBackoff(n))
		}
		if got := s.runs(handlerA, id); got != n {
			t.Fatalf("handler ran %d times by delivery %d", got, n)
		}
		if !s.f.Clock {
			// Without a test clock the source's first retry is what can be checked in real time;
			// it was right, and the rest of the schedule is the same function (domain.RetryBackoff).
			t.Logf("first retry checked (%s); walking the rest needs Features.Clock", o.Delay)
			return
		}
		s.h.Advance(o.Delay)
	}
	if s.f.MaxAttempts < 8 {
		t.Fatalf("MaxAttempts %d: the schedule never reached its cap twice", s.f.MaxAttempts)
	}
}

// testDefer: a handler whose ledger claim is held by another live delivery defers the event to
// that claim's lease end without spending an attempt; once the lease is over the handler runs.
func testDefer(t *testing.T, s *suite) {
	ctx := context.Background()
	src := s.h.Source(t)
	id := s.h.Publish(t, event)[0]
	key := delivery.Key{EventID: id, Handler: handlerA}
	claims, err := s.h.Ledger().Claim(ctx, s.h.Now(), s.lease, []delivery.Key{key})
	if err != nil || len(claims) != 1 || claims[0].State != delivery.Acquired {
		t.Fatalf("another delivery's claim: %+v %v", claims, err)
	}
	heldUntil := time.UnixMilli(claims[0].Token).Add(s.lease)
	s.start(t, src, delivery.PumpConfig{})
	// The other handler runs first, so the outcome read after it is the delivery's, not the
	// event's state before its first claim.
	Eventually(t, wait, "the unblocked handler ran", func() bool { return s.runs(handlerB, id) == 1 })
	o := s.settled(t, id, "deferred", func(o Outcome) bool { return o.State == Waiting })
	if s.f.Clock {
		if want := heldUntil.Sub(s.h.Now()); o.Delay != want {
			t.Fatalf("deferred by %s, want %s (the held claim's lease end)", o.Delay, want)
		}
	} else if latest, earliest := heldUntil.Sub(time.Now()), heldUntil.Sub(time.UnixMilli(claims[0].Token)); o.Delay < latest-time.Millisecond || o.Delay > earliest {
		t.Fatalf("deferred by %s, want the held claim's remaining lease (between %s and %s)", o.Delay, latest, earliest)
	}
	if s.runs(handlerA, id) != 0 {
		t.Fatal("the handler ran while another delivery held its claim")
	}
	if !s.f.CountsEveryDelivery && o.Attempts != 0 {
		t.Fatalf("the defer spent %d attempts", o.Attempts)
	}
	if s.f.Clock {
		s.h.Advance(o.Delay)
	}
	s.settled(t, id, "done once the lease ended", func(o Outcome) bool { return o.State == Done })
	if a, b := s.runs(handlerA, id), s.runs(handlerB, id); a != 1 || b != 1 {
		t.Fatalf("handlers ran %d and %d times, want once each (the done one skipped on redelivery)", a, b)
	}
}

// testExhausted: an event that keeps failing is dead-lettered on its MaxAttempts-th delivery,
// with the error kept.
//
// A source on a test clock walks the production schedule; one on its broker's wall clock runs
// the schedule scaled to Features.WallClockBackoff and waits it out.
func testExhausted(t *testing.T, s *suite) {
	if !s.f.Clock {
		if s.f.WallClockBackoff <= 0 {
			t.Fatal("a source without Features.Clock must set Features.WallClockBackoff")
		}
		s.backoff = s.f.WallClockBackoff
	}
	s.setFail(func(string, delivery.Envelope) error { return errUnavailable })
	src := s.h.Source(t)
	id := s.h.Publish(t, event)[0]
	s.start(t, src, delivery.PumpConfig{})
	for n := 1; n < s.f.MaxAttempts; n++ {
		o := s.settled(t, id, fmt.Sprintf("waiting after failed delivery %d", n), func(o Outcome) bool {
			return o.State == Waiting && o.Attempts == n
		})
		if !s.f.Clock {
			if want := domain.ScaledBackoff(s.backoff, n); o.Delay != want {
				t.Fatalf("after failed delivery %d the source waits %s, want %s", n, o.Delay, want)
			}
			continue // the broker redelivers after the delay on its own clock
		}
		s.h.Advance(o.Delay)
	}
	o := s.settled(t, id, "dead-lettered", func(o Outcome) bool { return o.State == DeadLettered })
	if o.Attempts != s.f.MaxAttempts || !strings.Contains(o.Err, errUnavailable.Error()) {
		t.Fatalf("dead-lettered after %d attempts with %q; want %d attempts and the handler's error",
			o.Attempts, o.Err, s.f.MaxAttempts)
	}
	if got := s.runs(handlerA, id); got != s.f.MaxAttempts {
		t.Fatalf("handler ran %d times, want %d", got, s.f.MaxAttempts)
	}
	s.checkRow(t, id, "dead_lettered", s.f.MaxAttempts, errUnavailable.Error())
	s.checkKept(t, id)
}

// testPermanent: a permanent error dead-letters the event on its first delivery, error kept.
func testPermanent(t *testing.T, s *suite) {
	gone := domain.Permanent(errors.New("remote answered 410 Gone"))
	s.setFail(func(h string, _ delivery.Envelope) error {
		if h == handlerA {
			return gone
		}
		return nil
	})
	src := s.h.Source(t)
	id := s.h.Publish(t, event)[0]
	s.start(t, src, delivery.PumpConfig{})
	o := s.settled(t, id, "dead-lettered", func(o Outcome) bool { return o.State == DeadLettered })
	if o.Attempts != 1 || !strings.Contains(o.Err, "410 Gone") {
		t.Fatalf("dead-lettered after %d attempts with %q; want at once with the handler's error", o.Attempts, o.Err)
	}
	s.checkRow(t, id, "dead_lettered", 1, "410 Gone")
	s.checkKept(t, id)
	if got := s.runs(handlerA, id); got != 1 {
		t.Fatalf("handler ran %d times, want once", got)
	}
}

// checkKept: with a dead-letter store the event stays there and no claimer gets it again.
func (s *suite) checkKept(t *testing.T, id string) {
	t.Helper()
	if !s.f.DeadLetterStore {
		return
	}
	if s.f.Clock {
		s.h.Advance(time.Hour)
	}
	msgs, err := s.h.Source(t).Claim(context.Background(), 10)
	if err != nil || len(msgs) != 0 {
		t.Fatalf("a fresh claim got %d messages (err %v), want none", len(msgs), err)
	}
	if o := s.h.Outcome(t, id); o.State != DeadLettered {
		t.Fatalf("dead letter not kept: %+v", &o)
	}
}

// counting is a Source that counts the messages it hands out, by event id.
type counting struct {
	delivery.Source
	mu  sync.Mutex
	ids map[string]int
}

func (c *counting) Claim(ctx context.Context, max int) ([]delivery.Message, error) {
	msgs, err := c.Source.Claim(ctx, max)
	c.mu.Lock()
	for _, m := range msgs {
		c.ids[m.EventID]++
	}
	c.mu.Unlock()
	return msgs, err
}

func (c *counting) claimed(id string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ids[id]
}

// testShutdown: when the pump's context ends, the running handler finishes and is acked, and
// claimed work that never started goes back at once without spending an attempt, on every
// source: JetStream, which counts every redelivery, gets a fresh copy from the relay instead
// (issue 33 finding 9, docs/adr/0010-a-shutdown-hands-the-copy-back.md).
func testShutdown(t *testing.T, s *suite) {
	release := make(chan struct{})
	var first sync.Once
	var runningID string
	s.setFail(func(h string, e delivery.Envelope) error {
		first.Do(func() {
			s.mu.Lock()
			runningID = e.EventID
			s.mu.Unlock()
			<-release
		})
		return nil
	})
	const events = 5
	src := &counting{Source: s.h.Source(t), ids: map[string]int{}}
	ids := s.h.Publish(t, event, event, event, event, event)
	pump := s.start(t, src, delivery.PumpConfig{BatchSize: 10, Concurrency: 1, Grace: time.Minute})
	Eventually(t, wait, "every event claimed and one handler running", func() bool {
		s.mu.Lock()
		started := runningID != ""
		s.mu.Unlock()
		n := 0
		for _, id := range ids {
			n += src.claimed(id)
		}
		return started && n == events
	})
	pump.cancel() // the shutdown begins while the handler still runs
	close(release)
	pump.stop()
	// A new worker starts before the old one's source ends (a rolling restart), so a source that
	// hands its events to whoever listens (core NATS) has someone to hand them to.
	restarted := s.h.Source(t)
	if st, ok := s.h.(Stopper); ok {
		st.Stop(t, src.Source)
	}
	s.mu.Lock()
	ran := runningID
	s.mu.Unlock()
	for _, id := range ids {
		if id == ran {
			s.settled(t, id, "done: it was running when the shutdown began", func(o Outcome) bool { return o.State == Done })
			continue
		}
		o := s.settled(t, id, "handed back", func(o Outcome) bool { return o.State == Waiting })
		if o.Delay != 0 {
			t.Errorf("event %s comes back after %s, want at once", id, o.Delay)
		}
		if o.Attempts != 0 {
			t.Errorf("event %s: the shutdown spent %d attempts", id, o.Attempts)
		}
		if s.runs(handlerA, id)+s.runs(handlerB, id) != 0 {
			t.Errorf("event %s: a handler ran after the shutdown began", id)
		}
	}
	s.start(t, restarted, delivery.PumpConfig{})
	// Redelivered at once: well before the first retry delay would bring it back.
	Eventually(t, schedule(1)*4/5, "every event done after a restart", func() bool {
		for _, id := range ids {
			if s.h.Outcome(t, id).State != Done {
				return false
			}
		}
		return true
	})
	for _, id := range ids {
		if a, b := s.runs(handlerA, id), s.runs(handlerB, id); a != 1 || b != 1 {
			t.Errorf("event %s: handlers ran %d and %d times, want once each", id, a, b)
		}
		s.checkRow(t, id, "done", 0, "") // nothing the shutdown handed back spent an attempt
	}
}

// testRepeats: copies of one event id in reach of one claim run each handler once. A source
// without Features.Repeats keeps one message per id (the outbox's unique event_id): the copies
// collapse where they are published, and the one left is claimed once.
func testRepeats(t *testing.T, s *suite) {
	src := &counting{Source: s.h.Source(t), ids: map[string]int{}}
	id := s.h.PublishCopies(t, event, 2)
	s.start(t, src, delivery.PumpConfig{})
	if s.f.Repeats {
		s.settled(t, id, "done, both copies claimed", func(o Outcome) bool { return o.State == Done && src.claimed(id) >= 2 })
	} else {
		s.settled(t, id, "done, the one copy kept claimed", func(o Outcome) bool { return o.State == Done && src.claimed(id) >= 1 })
		if n := src.claimed(id); n != 1 {
			t.Errorf("event claimed %d times, want once: the source kept repeated copies of one id", n)
		}
	}
	if a, b := s.runs(handlerA, id), s.runs(handlerB, id); a != 1 || b != 1 {
		t.Fatalf("handlers ran %d and %d times for two copies, want once each", a, b)
	}
}

// testStaleClaimer: a claimer whose claim went stale and was claimed again elsewhere cannot
// settle the message any more: the claim token decides, and only the new owner's settle counts.
//
// A source on a test clock moves past the claim lease. One on its broker's wall clock waits the
// short lease out with the first claimer stalled (Stopper), as a worker frozen past its lease
// would be; the event comes back as the same message's next delivery (JetStream) or as the
// relay's next round (core NATS).
func testStaleClaimer(t *testing.T, s *suite) {
	if !s.f.Clock && s.f.ClaimLease <= 0 {
		t.Fatal("a source without Features.Clock must set a short Features.ClaimLease")
	}
	ctx := context.Background()
	stale := s.h.Source(t)
	id := s.h.Publish(t, event)[0]
	old := claimOne(t, stale, id, "the first claim")
	if st, ok := s.h.(Stopper); ok {
		st.Stop(t, stale)
	}
	fresh := s.h.Source(t)
	if s.f.Clock {
		s.h.Advance(s.f.ClaimLease)
	}
	now := claimOne(t, fresh, id, "the claim after the lease")
	// The abandoned delivery counts as an attempt (its worker may have died of the event).
	reclaimed := s.settled(t, id, "claimed by the new owner", func(o Outcome) bool { return o.State == Claimed })
	if reclaimed.Attempts != 1 {
		t.Fatalf("after the reclaim: %s; want claimed with the abandoned delivery counted", &reclaimed)
	}
	if now.Attempt != old.Attempt+1 && now.Handoffs <= old.Handoffs {
		t.Fatalf("the new owner got delivery %d of round %d after delivery %d of round %d; want the next delivery or a later round",
			now.Attempt, now.Handoffs, old.Attempt, old.Handoffs)
	}
	rows, hasRows := s.h.(Rows)
	var row Row
	if hasRows {
		row = rows.Row(t, id)
	}
	for _, k := range []delivery.Disposition{delivery.Retry, delivery.DeadLetter, delivery.Defer, delivery.Return} {
		r := delivery.Result{Msg: old, Kind: k, Delay: schedule(1), Until: s.h.Now().Add(time.Hour), Err: errors.New("stale claimer")}
		if err := stale.Settle(ctx, []delivery.Result{r}); err != nil {
			t.Fatalf("stale %s: %v", k, err)
		}
		if o := s.h.Outcome(t, id); o.State != Claimed || o.Attempts != reclaimed.Attempts {
			t.Fatalf("a stale claimer's %s changed the event: %s, want it still claimed by the new owner", k, &o)
		}
		if hasRows {
			if got := rows.Row(t, id); got != row {
				t.Fatalf("a stale claimer's %s changed the outbox row: %+v, was %+v", k, got, row)
			}
		}
	}
	if err := fresh.Settle(ctx, []delivery.Result{{Msg: now, Kind: delivery.Ack}}); err != nil {
		t.Fatal(err)
	}
	s.settled(t, id, "done by the owner's ack", func(o Outcome) bool { return o.State == Done })
	s.checkRow(t, id, "done", 1, "")
}

// testAckOfATakenOverClaim: a delivery whose handler's ledger claim was taken over while the
// handler ran (the delivery outlived both leases) cannot complete the event with its late ack:
// its done mark does not land, the ledger does not have the handler done, and the delivery that
// took the claim over decides (docs/adr/0009-an-ack-completes-only-what-the-ledger-has-done.md).
// Found by make chaos on PostgreSQL: the late ack marked the row done, the taker's handler
// failed and released its claim, and its retry was guarded by a claim the done row no longer had.
func testAckOfATakenOverClaim(t *testing.T, s *suite) {
	if !s.f.Clock && s.f.ClaimLease <= 0 {
		t.Fatal("a source without Features.Clock must set a short Features.ClaimLease")
	}
	ctx := context.Background()
	stale := s.h.Source(t)
	id := s.h.Publish(t, event)[0]
	old := claimOne(t, stale, id, "the first claim")
	key := delivery.Key{EventID: id, Handler: handlerA}
	l := s.h.Ledger()
	// The first delivery's claim on the handler, already past the ledger lease.
	mine, err := l.Claim(ctx, s.h.Now().Add(-s.lease-time.Second), s.lease, []delivery.Key{key})
	if err != nil || mine[0].State != delivery.Acquired {
		t.Fatalf("the first delivery's claim: %+v %v", mine, err)
	}
	if st, ok := s.h.(Stopper); ok {
		st.Stop(t, stale)
	}
	fresh := s.h.Source(t)
	if s.f.Clock {
		s.h.Advance(s.f.ClaimLease)
	}
	now := claimOne(t, fresh, id, "the claim after the lease")
	taken, err := l.Claim(ctx, s.h.Now(), s.lease, []delivery.Key{key})
	if err != nil || taken[0].State != delivery.Acquired || !taken[0].TookOver {
		t.Fatalf("the second delivery's claim: %+v %v, want the first one's taken over", taken, err)
	}
	late := delivery.Result{Msg: old, Kind: delivery.Ack, Marks: []delivery.Mark{{Key: key, Token: mine[0].Token, Done: true}}}
	if err := stale.Settle(ctx, []delivery.Result{late}); err != nil {
		t.Fatal(err)
	}
	if o := s.h.Outcome(t, id); o.State != Claimed {
		t.Fatalf("a late ack whose done mark did not land changed the event: %s, want it still claimed by the second delivery", &o)
	}
	if probe, err := l.Claim(ctx, s.h.Now(), s.lease, []delivery.Key{key}); err != nil || probe[0].State != delivery.Held {
		t.Fatalf("after the late ack the ledger answers %+v (%v); want the claim still held by the second delivery", probe, err)
	}
	// The second delivery's handler fails: the event is retried, not lost.
	failed := delivery.Result{Msg: now, Kind: delivery.Retry, Delay: schedule(1), Err: errors.New("the taker failed"),
		Marks: []delivery.Mark{{Key: key, Token: taken[0].Token}}}
	if err := fresh.Settle(ctx, []delivery.Result{failed}); err != nil {
		t.Fatal(err)
	}
	s.settled(t, id, "waiting for its retry", func(o Outcome) bool { return o.State == Waiting })
}

// claimOne claims from src until it hands out a message, which must be the event's only one.
func claimOne(t *testing.T, src delivery.Source, id, what string) delivery.Message {
	t.Helper()
	var got []delivery.Message
	Eventually(t, wait, what, func() bool {
		msgs, err := src.Claim(context.Background(), 10)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		got = append(got, msgs...)
		return len(got) > 0
	})
	if len(got) != 1 || got[0].EventID != id {
		t.Fatalf("%s: %d messages (%+v), want event %s once", what, len(got), got, id)
	}
	return got[0]
}

// testLedgerDone: a handler the ledger has as done for the event is skipped.
func testLedgerDone(t *testing.T, s *suite) {
	ctx := context.Background()
	src := s.h.Source(t)
	id := s.h.Publish(t, event)[0]
	key := delivery.Key{EventID: id, Handler: handlerA}
	l := s.h.Ledger()
	claims, err := l.Claim(ctx, s.h.Now(), s.lease, []delivery.Key{key})
	if err != nil || claims[0].State != delivery.Acquired {
		t.Fatalf("claim: %+v %v", claims, err)
	}
	if err := l.Settle(ctx, s.h.Now(), []delivery.Mark{{Key: key, Token: claims[0].Token, Done: true}}); err != nil {
		t.Fatal(err)
	}
	s.start(t, src, delivery.PumpConfig{})
	s.settled(t, id, "done", func(o Outcome) bool { return o.State == Done })
	if a, b := s.runs(handlerA, id), s.runs(handlerB, id); a != 0 || b != 1 {
		t.Fatalf("handlers ran %d and %d times; want the done one skipped and the other once", a, b)
	}
}

// testLedgerTakeOver: a ledger claim older than the lease (its holder died) is taken over.
func testLedgerTakeOver(t *testing.T, s *suite) {
	ctx := context.Background()
	src := s.h.Source(t)
	id := s.h.Publish(t, event)[0]
	key := delivery.Key{EventID: id, Handler: handlerA}
	l := s.h.Ledger()
	if claims, err := l.Claim(ctx, s.h.Now().Add(-s.lease-time.Second), s.lease, []delivery.Key{key}); err != nil || claims[0].State != delivery.Acquired {
		t.Fatalf("dead holder's claim: %+v %v", claims, err)
	}
	s.start(t, src, delivery.PumpConfig{})
	s.settled(t, id, "done", func(o Outcome) bool { return o.State == Done })
	if a := s.runs(handlerA, id); a != 1 {
		t.Fatalf("handler ran %d times, want once: the dead holder's claim must be taken over", a)
	}
	if claims, err := l.Claim(ctx, s.h.Now(), s.lease, []delivery.Key{key}); err != nil || claims[0].State != delivery.Done {
		t.Fatalf("ledger after the take-over: %+v %v, want done", claims, err)
	}
}

// testLedgerToken: after a take-over the old holder's marks change nothing: both the done mark
// and the release are conditioned on started_at, the claim's owner token.
func testLedgerToken(t *testing.T, s *suite) {
	ctx := context.Background()
	src := s.h.Source(t)
	id := s.h.Publish(t, event)[0]
	key := delivery.Key{EventID: id, Handler: handlerA}
	l := s.h.Ledger()
	old, err := l.Claim(ctx, s.h.Now().Add(-s.lease-time.Second), s.lease, []delivery.Key{key})
	if err != nil || old[0].State != delivery.Acquired {
		t.Fatalf("old holder's claim: %+v %v", old, err)
	}
	release := make(chan struct{})
	running := make(chan struct{})
	var first sync.Once
	s.setFail(func(h string, _ delivery.Envelope) error {
		if h == handlerA {
			first.Do(func() { close(running) })
			<-release
		}
		return nil
	})
	s.start(t, src, delivery.PumpConfig{})
	select {
	case <-running: // the pump took the claim over and its handler runs
	case <-time.After(wait):
		close(release)
		t.Fatal("the handler never ran")
	}
	for _, done := range []bool{true, false} {
		if err := l.Settle(ctx, s.h.Now(), []delivery.Mark{{Key: key, Token: old[0].Token, Done: done}}); err != nil {
			close(release)
			t.Fatal(err)
		}
	}
	probe, err := l.Claim(ctx, s.h.Now(), s.lease, []delivery.Key{key})
	close(release)
	if err != nil || probe[0].State != delivery.Held {
		t.Fatalf("after the old holder's marks the ledger answers %+v (%v); want the claim still held by the running delivery", probe, err)
	}
	s.settled(t, id, "done", func(o Outcome) bool { return o.State == Done })
	if claims, err := l.Claim(ctx, s.h.Now(), s.lease, []delivery.Key{key}); err != nil || claims[0].State != delivery.Done {
		t.Fatalf("ledger after the delivery: %+v %v, want done", claims, err)
	}
}

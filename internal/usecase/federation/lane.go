package federation

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"runtime"
	"sync"
	"time"

	"github.com/google/uuid"
	"golang.org/x/time/rate"

	"moviesdiary/internal/domain"
)

// QueuedDelivery is one activity handed to the lane for one inbox.
type QueuedDelivery struct {
	DeliveryID string // the FederationDeliveryRequested event id: handing off twice queues once
	Inbox      string
	Activity   []byte
	ActivityID string
	ObjectKey  string // what the activity is about (its object's id), ordering an inbox's activities
	Signer     uuid.UUID
}

// ClaimedDelivery is a delivery the lane took to send, owned until Token (Unix ms).
type ClaimedDelivery struct {
	ID           int64
	DeliveryID   string
	Host, Inbox  string
	Activity     []byte
	Signer       uuid.UUID
	Attempts     int       // failed attempts so far
	FirstFailure time.Time // zero before the first failure
	Token        int64
}

// DeliveryClaim is what a claim may take: at most Max deliveries due at Now, owned until Until,
// at most PerHost of one host in flight (one while the host's last attempt failed), and at most
// MaxFailing in flight to failing hosts in all (healthy hosts first).
type DeliveryClaim struct {
	Now, Until time.Time
	Max        int
	PerHost    int
	MaxFailing int
}

// Step is what becomes of a delivery after a failed attempt.
type Step int

// The steps after a failure.
const (
	StepRetry Step = iota + 1 // pending again at the retry time
	StepPark                  // parked: its host is unavailable
	StepDead                  // dead-lettered
)

// DeliveryFailure is a failed attempt as the lane records it. Decide turns the host's stored
// record, with this failure counted, into its new record and the delivery's step.
type DeliveryFailure struct {
	Delivery ClaimedDelivery
	Now      time.Time
	Retry    time.Time // when StepRetry: the next attempt
	Error    string
	Decide   func(h HostHealth) (HostHealth, Step)
	// Refused is a delivery never attempted (LaneConfig.Refuse): dead-lettered, its host's
	// record left alone, Decide not called.
	Refused bool
}

// Deliveries is where deliveries wait for the lane, and the hosts' health (the store). Every
// write that changes a delivery is conditioned on its claim, so a delivery another lane took
// over after this one's lease is left to it.
type Deliveries interface {
	// HandOff queues d, parked when its host is unavailable; a delivery queued already is left.
	HandOff(ctx context.Context, d QueuedDelivery, now time.Time) error
	// ClaimDeliveries takes the deliveries c allows: pending and due (or sending past their
	// lease: their lane died), of a host available or at the end of its cool-off, each the
	// first unfinished one of its inbox and object.
	ClaimDeliveries(ctx context.Context, c DeliveryClaim) ([]ClaimedDelivery, error)
	// Delivered marks d done and its host alive (HostAlive).
	Delivered(ctx context.Context, d ClaimedDelivery, now time.Time) error
	// DeliveryFailed counts a failure against the delivery's host and applies f.Decide.
	DeliveryFailed(ctx context.Context, f DeliveryFailure) (HostHealth, error)
	// HostAlive marks host available with no failures, its parked deliveries due now.
	HostAlive(ctx context.Context, host string, now time.Time) error
	// Housekeep probes each unavailable host whose probe is due (one parked delivery due now,
	// the next probe at nextProbe), dead-letters deliveries parked since parkedBefore, and
	// deletes deliveries done before doneBefore and dead-lettered before deadBefore.
	Housekeep(ctx context.Context, now, nextProbe, parkedBefore, doneBefore, deadBefore time.Time) error
	// NextDue is when the earliest pending delivery is due (ok false: none).
	NextDue(ctx context.Context) (time.Time, bool, error)
	// DropGoneInbox ends the follows of the remote actors whose own inbox is inbox (410 Gone).
	DropGoneInbox(ctx context.Context, inbox string) (int, error)
}

// Sender POSTs a signed activity to an inbox (Remote.Deliver).
type Sender interface {
	Deliver(ctx context.Context, inbox string, activity []byte, signer uuid.UUID) error
}

// LaneConfig tunes a Lane; zero fields take the defaults.
type LaneConfig struct {
	Policy      Policy
	Concurrency int // deliveries in flight at once; default 32
	PerHost     int // of one host; default 4
	// Rate caps attempts per second (each signs with RSA), so a fan-out to thousands of inboxes
	// leaves CPU for local work; 0 is RatePerCPU per CPU, negative no cap.
	Rate    float64
	Lease   time.Duration // how long a claim owns a delivery; default 2 min
	Poll    time.Duration // the longest idle wait between claims; default 1 s
	Now     func() time.Time
	Jitter  func() float64 // in [0, 1); default math/rand
	Logger  *slog.Logger
	Observe func(outcome string) // counts each attempt's outcome (metrics)
	// Refuse, when set, is asked before each attempt (Service.RefuseHost): a delivery to a
	// domain blocked since its publication is dead-lettered unsent, its host's health untouched.
	Refuse func(ctx context.Context, inbox string) error
	Idle   func(at time.Time) // called as the lane waits, having claimed all it could at at (tests)
}

// Lane sends federation deliveries with its own concurrency, so a fan-out to thousands of
// inboxes or a black-holed host never takes the worker's slots from posters, search or
// wrap-ups. It waits between claims on a timer (the earliest due delivery, at most Poll) or a
// Wake, never polling per row.
type Lane struct {
	q      Deliveries
	send   Sender
	cfg    LaneConfig
	log    *slog.Logger
	wake   chan struct{}
	lastHK time.Time
	pace   *rate.Limiter
}

// RatePerCPU is the default cap of a lane's attempts per second per CPU: on the 2-vCPU box of
// docs/benchmarks.md an attempt costs 2–3 ms of CPU, so 100 a second per CPU keep about a
// quarter of it for the handlers' local work during a fan-out to thousands of inboxes.
const RatePerCPU = 100

// NewLane returns a lane over q sending through send.
func NewLane(q Deliveries, send Sender, cfg LaneConfig) *Lane {
	cfg.Policy = cfg.Policy.withDefaults()
	cfg.Concurrency = cmp.Or(cfg.Concurrency, 32)
	cfg.PerHost = cmp.Or(cfg.PerHost, 4)
	cfg.Lease = cmp.Or(cfg.Lease, 2*time.Minute)
	cfg.Poll = cmp.Or(cfg.Poll, time.Second)
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Jitter == nil {
		cfg.Jitter = jitter
	}
	if cfg.Observe == nil {
		cfg.Observe = func(string) {}
	}
	if cfg.Idle == nil {
		cfg.Idle = func(time.Time) {}
	}
	pace := rate.NewLimiter(rate.Inf, 0)
	switch {
	case cfg.Rate == 0:
		pace = rate.NewLimiter(rate.Limit(RatePerCPU*runtime.GOMAXPROCS(0)), cfg.Concurrency)
	case cfg.Rate > 0:
		pace = rate.NewLimiter(rate.Limit(cfg.Rate), max(1, min(cfg.Concurrency, int(cfg.Rate))))
	}
	return &Lane{q: q, send: send, cfg: cfg, log: cmp.Or(cfg.Logger, slog.Default()), wake: make(chan struct{}, 1), pace: pace}
}

// Wake tells the lane that deliveries may have become due (a handoff, a settle).
func (l *Lane) Wake() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// housekeepEvery is how often the lane probes unavailable hosts and expires parked deliveries.
const housekeepEvery = time.Minute

// doneKept is how long a delivered delivery is kept (for the operator's counts), deadKept a
// dead-lettered one (for the operator to see why).
const (
	doneKept = 7 * 24 * time.Hour
	deadKept = 30 * 24 * time.Hour
)

// Run claims and sends until ctx ends, then waits for the sends in flight (each bounded by the
// client's timeout) to record their outcome.
func (l *Lane) Run(ctx context.Context) error {
	slots := make(chan struct{}, l.cfg.Concurrency)
	var wg sync.WaitGroup
	defer wg.Wait()
	pause := domain.Pause{Min: 100 * time.Millisecond, Max: 30 * time.Second}
	for ctx.Err() == nil {
		now := l.cfg.Now()
		if now.Sub(l.lastHK) >= housekeepEvery {
			p := l.cfg.Policy
			if err := l.q.Housekeep(ctx, now, now.Add(p.ProbeEvery), now.Add(-p.ParkedFor), now.Add(-doneKept), now.Add(-deadKept)); err != nil {
				l.log.Warn("federation delivery housekeeping failed", "error", err)
			} else {
				l.lastHK = now
			}
		}
		free := cap(slots) - len(slots)
		if free > 0 && free < max(1, l.cfg.Concurrency/2) {
			free = l.gather(ctx, slots)
		}
		var claimed []ClaimedDelivery
		if free > 0 {
			var err error
			claimed, err = l.q.ClaimDeliveries(ctx, DeliveryClaim{Now: now, Until: now.Add(l.cfg.Lease), Max: free,
				PerHost: l.cfg.PerHost, MaxFailing: max(1, l.cfg.Concurrency/4)})
			if err != nil {
				if ctx.Err() != nil {
					break
				}
				d := pause.Next()
				l.log.Error("claiming federation deliveries failed; trying again", "error", err, "in", d)
				l.sleep(ctx, d)
				continue
			}
			pause.Reset()
		}
		for _, d := range claimed {
			slots <- struct{}{}
			wg.Go(func() {
				defer func() { <-slots; l.Wake() }()
				l.deliver(context.WithoutCancel(ctx), d)
			})
		}
		if len(claimed) > 0 && len(claimed) == free {
			continue // there may be more due: claim again once a slot frees
		}
		l.idle(ctx, now)
	}
	return nil
}

// gatherFor is how long a busy lane with few free slots waits for more before it claims: a
// lane sending hundreds a second then claims in batches (a claim ranks the whole due set), not
// once per delivery, at the cost of at most this much delay.
const gatherFor = 50 * time.Millisecond

// gather waits up to gatherFor for half the slots to be free, and returns how many are.
func (l *Lane) gather(ctx context.Context, slots chan struct{}) int {
	t := time.NewTimer(gatherFor)
	defer t.Stop()
	for {
		free := cap(slots) - len(slots)
		if free >= max(1, l.cfg.Concurrency/2) {
			return free
		}
		select {
		case <-ctx.Done():
			return free
		case <-t.C:
			return cap(slots) - len(slots)
		case <-l.wake:
		}
	}
}

// idle waits for a wake, the earliest due delivery, or Poll, whichever comes first.
func (l *Lane) idle(ctx context.Context, now time.Time) {
	l.cfg.Idle(now)
	wait := l.cfg.Poll
	if due, ok, err := l.q.NextDue(ctx); err == nil && ok {
		wait = min(wait, max(due.Sub(now), time.Millisecond))
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-l.wake:
	case <-t.C:
	}
}

func (l *Lane) sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// deliver sends d once and records the outcome.
func (l *Lane) deliver(ctx context.Context, d ClaimedDelivery) {
	fields := []any{"delivery_id", d.DeliveryID, "inbox", d.Inbox, "host", d.Host, "attempt", d.Attempts + 1}
	if l.cfg.Refuse != nil {
		if err := l.cfg.Refuse(ctx, d.Inbox); errors.Is(err, ErrDomainBlocked) {
			l.refused(ctx, d, err, fields)
			return
		}
	}
	if err := l.pace.Wait(ctx); err != nil {
		return // stopping: the delivery is claimed again after its lease
	}
	err := l.send.Deliver(ctx, d.Inbox, d.Activity, d.Signer)
	now := l.cfg.Now()
	if err == nil {
		l.cfg.Observe("delivered")
		if err := l.q.Delivered(ctx, d, now); err != nil {
			l.log.Error("recording a federation delivery failed (it will be sent again after the lease)",
				append(fields, "error", err)...)
		}
		return
	}
	verdict, retryAfter := Judge(err)
	p := l.cfg.Policy
	first := d.FirstFailure
	if first.IsZero() {
		first = now
	}
	f := DeliveryFailure{Delivery: d, Now: now, Error: err.Error(),
		Retry: now.Add(p.Backoff(d.Attempts+1, retryAfter, l.cfg.Jitter()))}
	f.Decide = func(h HostHealth) (HostHealth, Step) {
		h = p.Failed(h, now)
		switch {
		case verdict != Retry:
			return h, StepDead
		case h.State == HostUnavailable:
			return h, StepPark
		case now.Sub(first) >= p.RetryWindow && h.LastSuccessAt.After(first):
			// Failing for the whole window while its host answered others: this delivery's
			// own fault (a broken inbox), not the host's weather.
			return h, StepDead
		}
		return h, StepRetry
	}
	h, rerr := l.q.DeliveryFailed(ctx, f)
	if rerr != nil {
		l.log.Error("recording a failed federation delivery failed (it will be sent again after the lease)",
			append(fields, "error", rerr, "delivery_error", err)...)
		return
	}
	switch {
	case verdict == Gone:
		l.cfg.Observe("gone")
		n, gerr := l.q.DropGoneInbox(ctx, d.Inbox)
		l.log.Warn("federation inbox gone (410): delivery dead-lettered and its followers removed",
			append(fields, "followers_removed", n, "error", errors.Join(err, gerr))...)
	case verdict == Dead:
		l.cfg.Observe("permanent")
		l.log.Warn("federation delivery refused for good: dead-lettered", append(fields, "error", err)...)
	default:
		l.cfg.Observe("retry")
		l.log.Info("federation delivery failed; retrying later",
			append(fields, "error", err, "retry_at", f.Retry, "host_state", h.State, "host_failures", h.Failures)...)
	}
}

// refused dead-letters d unsent: its domain was blocked after its publication.
func (l *Lane) refused(ctx context.Context, d ClaimedDelivery, err error, fields []any) {
	f := DeliveryFailure{Delivery: d, Now: l.cfg.Now(), Error: err.Error(), Refused: true}
	if _, rerr := l.q.DeliveryFailed(ctx, f); rerr != nil {
		l.log.Error("recording a refused federation delivery failed (it will be claimed again after the lease)",
			append(fields, "error", rerr)...)
		return
	}
	l.cfg.Observe("refused")
	l.log.Info("federation delivery dropped: its domain is blocked", append(fields, "error", err)...)
}

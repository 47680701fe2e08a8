package storetest

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/federation"
)

// Deliveries is what RunDeliveries needs of a store: the federation delivery lane's queue and
// the hosts' health (docs/adr/0005-federation-delivery.md).
type Deliveries interface {
	federation.Deliveries
	FederationHosts(ctx context.Context) ([]federation.HostHealth, error)
	DeliveryCounts(ctx context.Context) (map[string]int, error)
	ForgetHost(ctx context.Context, host string, now time.Time) (int, error)
	Publish(ctx context.Context, p domain.Publication) error
}

// queued is delivery n of an activity about object to inbox.
func queued(inbox, object string, n int) federation.QueuedDelivery {
	return federation.QueuedDelivery{DeliveryID: fmt.Sprintf("%s|%s|%d", inbox, object, n), Inbox: inbox,
		Activity: []byte(fmt.Sprintf(`{"id":"https://local.example/a/%d","object":%q}`, n, object)), ObjectKey: object,
		Signer: uuid.New()}
}

// claim claims up to max deliveries at now with a lease of a minute, 4 per host.
func claim(t *testing.T, s Deliveries, now time.Time, max int) []federation.ClaimedDelivery {
	t.Helper()
	got, err := s.ClaimDeliveries(context.Background(), federation.DeliveryClaim{Now: now, Until: now.Add(time.Minute),
		Max: max, PerHost: 4})
	must(t, err)
	return got
}

// deliveryIDs are the delivery ids of ds, sorted.
func deliveryIDs(ds []federation.ClaimedDelivery) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.DeliveryID
	}
	sort.Strings(out)
	return out
}

// fail records a failed attempt of d at now deciding step, the host's record as the policy makes it.
func fail(t *testing.T, s Deliveries, d federation.ClaimedDelivery, now, retry time.Time, step federation.Step) federation.HostHealth {
	t.Helper()
	p := federation.Policy{}
	h, err := s.DeliveryFailed(context.Background(), federation.DeliveryFailure{Delivery: d, Now: now, Retry: retry, Error: "503",
		Decide: func(h federation.HostHealth) (federation.HostHealth, federation.Step) {
			h = p.Failed(h, now)
			if h.State == federation.HostUnavailable && step == federation.StepRetry {
				return h, federation.StepPark
			}
			return h, step
		}})
	must(t, err)
	return h
}

// RunDeliveries runs the delivery queue cases against stores open makes.
func RunDeliveries(t *testing.T, open func(t *testing.T, faults *Faults) Deliveries) {
	ctx := context.Background()

	t.Run("HandOffOnceClaimOnceDeliver", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		d := queued("https://a.example/inbox", "", 1)
		must(t, s.HandOff(ctx, d, t0))
		must(t, s.HandOff(ctx, d, t0)) // a replay of the handler queues nothing
		got := claim(t, s, t0, 10)
		if len(got) != 1 || got[0].DeliveryID != d.DeliveryID || got[0].Host != "a.example" || string(got[0].Activity) != string(d.Activity) ||
			got[0].Signer != d.Signer || got[0].Attempts != 0 || !got[0].FirstFailure.IsZero() {
			t.Fatalf("claimed %+v", got)
		}
		if again := claim(t, s, t0.Add(time.Second), 10); len(again) != 0 {
			t.Fatalf("claimed again within the lease: %+v", again)
		}
		// A lane that died: its lease ends and the delivery is claimed again.
		re := claim(t, s, t0.Add(2*time.Minute), 10)
		if len(re) != 1 {
			t.Fatalf("after the lease: %+v", re)
		}
		// The first lane's late record changes nothing; the owner's does.
		must(t, s.Delivered(ctx, got[0], t0.Add(2*time.Minute)))
		if c, err := s.DeliveryCounts(ctx); err != nil || c["sending"] != 1 {
			t.Fatalf("a stale claim settled the delivery: %v %v", c, err)
		}
		must(t, s.Delivered(ctx, re[0], t0.Add(2*time.Minute)))
		if c, err := s.DeliveryCounts(ctx); err != nil || c["done"] != 1 || len(c) != 1 {
			t.Fatalf("counts %v %v", c, err)
		}
		if _, ok, err := s.NextDue(ctx); err != nil || ok {
			t.Fatalf("next due with nothing pending: %v %v", ok, err)
		}
	})

	t.Run("OrderPerInboxAndObject", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		inbox := "https://b.example/users/x/inbox"
		create, update, del := queued(inbox, "https://local.example/r/1", 1), queued(inbox, "https://local.example/r/1", 2),
			queued(inbox, "https://local.example/r/1", 3)
		other := queued(inbox, "https://local.example/r/2", 4)
		for _, d := range []federation.QueuedDelivery{create, update, del, other} {
			must(t, s.HandOff(ctx, d, t0))
		}
		got := claim(t, s, t0, 10)
		if want := []string{create.DeliveryID, other.DeliveryID}; !slices.Equal(deliveryIDs(got), sortedCopy(want)) {
			t.Fatalf("claimed %v, want the first of each object %v", deliveryIDs(got), want)
		}
		// The Create fails: the Update waits behind it, even when it is due.
		var c federation.ClaimedDelivery
		for _, d := range got {
			if d.DeliveryID == create.DeliveryID {
				c = d
			} else {
				must(t, s.Delivered(ctx, d, t0))
			}
		}
		fail(t, s, c, t0, t0.Add(time.Minute), federation.StepRetry)
		if again := claim(t, s, t0.Add(30*time.Second), 10); len(again) != 0 {
			t.Fatalf("claimed %v while the Create waits", deliveryIDs(again))
		}
		again := claim(t, s, t0.Add(time.Minute), 10)
		if len(again) != 1 || again[0].DeliveryID != create.DeliveryID || again[0].Attempts != 1 || !again[0].FirstFailure.Equal(t0) {
			t.Fatalf("the retry: %+v", again)
		}
		must(t, s.Delivered(ctx, again[0], t0.Add(time.Minute)))
		next := claim(t, s, t0.Add(time.Minute), 10)
		if len(next) != 1 || next[0].DeliveryID != update.DeliveryID {
			t.Fatalf("after the Create: %v, want the Update", deliveryIDs(next))
		}
	})

	t.Run("PerHostLimit", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		for i := range 6 {
			must(t, s.HandOff(ctx, queued(fmt.Sprintf("https://c.example/u/%d/inbox", i), "", i), t0))
		}
		must(t, s.HandOff(ctx, queued("https://d.example/inbox", "", 9), t0))
		first := claim(t, s, t0, 100)
		hosts := map[string]int{}
		for _, d := range first {
			hosts[d.Host]++
		}
		if hosts["c.example"] != 4 || hosts["d.example"] != 1 {
			t.Fatalf("claimed per host %v, want 4 of c.example and 1 of d.example", hosts)
		}
		if more := claim(t, s, t0, 100); len(more) != 0 {
			t.Fatalf("claimed %v beyond the per-host limit", deliveryIDs(more))
		}
		must(t, s.Delivered(ctx, first[0], t0))
		if more := claim(t, s, t0, 100); len(more) != 1 {
			t.Fatalf("a slot of the host freed: claimed %v", deliveryIDs(more))
		}
	})

	t.Run("FailingHostsComeLastAndShareFewSlots", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		// Three hosts fail once each; then a healthy host's deliveries come due.
		for _, h := range []string{"j1", "j2", "j3"} {
			for i := range 2 {
				must(t, s.HandOff(ctx, queued("https://"+h+".example/u/"+fmt.Sprint(i)+"/inbox", "", i), t0))
			}
		}
		for _, d := range claim(t, s, t0, 100) {
			if d.Inbox[len(d.Inbox)-7:] == "0/inbox" {
				fail(t, s, d, t0, t0, federation.StepRetry)
			} else {
				must(t, s.Delivered(ctx, d, t0))
				// A success clears the host's failures: fail it again afterwards.
			}
		}
		for _, h := range []string{"j1", "j2", "j3"} {
			must(t, s.HandOff(ctx, queued("https://"+h+".example/again/inbox", "", 9), t0))
		}
		for _, d := range claim(t, s, t0, 100) {
			fail(t, s, d, t0, t0, federation.StepRetry)
		}
		for i := range 3 {
			must(t, s.HandOff(ctx, queued("https://k.example/u/"+fmt.Sprint(i)+"/inbox", "", i), t0))
		}
		got, err := s.ClaimDeliveries(ctx, federation.DeliveryClaim{Now: t0, Until: t0.Add(time.Minute), Max: 100, PerHost: 4, MaxFailing: 2})
		must(t, err)
		per := map[string]int{}
		for _, d := range got {
			per[d.Host]++
		}
		if per["k.example"] != 3 || per["j1.example"]+per["j2.example"]+per["j3.example"] != 2 {
			t.Fatalf("claimed per host %v, want the healthy host's 3 and 2 of the failing hosts", per)
		}
		if more, _ := s.ClaimDeliveries(ctx, federation.DeliveryClaim{Now: t0, Until: t0.Add(time.Minute), Max: 100, PerHost: 4, MaxFailing: 2}); len(more) != 0 {
			t.Fatalf("claimed %v beyond the failing hosts' share", deliveryIDs(more))
		}
		// With one slot left, a healthy delivery goes before a failing host's.
		for _, d := range got {
			if d.Host == "k.example" {
				must(t, s.Delivered(ctx, d, t0))
			}
		}
		must(t, s.HandOff(ctx, queued("https://k.example/later/inbox", "", 7), t0))
		one, err := s.ClaimDeliveries(ctx, federation.DeliveryClaim{Now: t0, Until: t0.Add(time.Minute), Max: 1, PerHost: 4, MaxFailing: 5})
		must(t, err)
		if len(one) != 1 || one[0].Host != "k.example" {
			t.Fatalf("with one slot claimed %v, want the healthy host's", deliveryIDs(one))
		}
	})

	t.Run("CircuitOpensThenProbesOneAtATime", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		for i := range 20 {
			must(t, s.HandOff(ctx, queued(fmt.Sprintf("https://e.example/u/%d/inbox", i), "", i), t0))
		}
		now := t0
		var h federation.HostHealth
		for h.State != federation.HostOpen {
			got := claim(t, s, now, 100)
			if len(got) == 0 {
				t.Fatalf("nothing to claim at %d failures", h.Failures)
			}
			for _, d := range got {
				h = fail(t, s, d, now, now, federation.StepRetry)
			}
		}
		if h.Failures < 10 || !h.OpenUntil.After(now) {
			t.Fatalf("host %+v", h)
		}
		if got := claim(t, s, now.Add(time.Second), 100); len(got) != 0 {
			t.Fatalf("claimed %v while the circuit is open", deliveryIDs(got))
		}
		probe := claim(t, s, h.OpenUntil, 100)
		if len(probe) != 1 {
			t.Fatalf("at the end of the cool-off claimed %d, want one probe", len(probe))
		}
		must(t, s.Delivered(ctx, probe[0], h.OpenUntil))
		hosts, err := s.FederationHosts(ctx)
		must(t, err)
		if len(hosts) != 1 || hosts[0].State != federation.HostAvailable || hosts[0].Failures != 0 || !hosts[0].LastSuccessAt.Equal(h.OpenUntil) {
			t.Fatalf("after a success: %+v", hosts)
		}
		if got := claim(t, s, h.OpenUntil, 100); len(got) != 4 {
			t.Fatalf("after the circuit closed claimed %d, want the per-host 4", len(got))
		}
	})

	t.Run("UnavailableParksUntilSeenAlive", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		a, b := queued("https://f.example/inbox", "", 1), queued("https://f.example/inbox", "", 2)
		must(t, s.HandOff(ctx, a, t0))
		must(t, s.HandOff(ctx, b, t0))
		got := claim(t, s, t0, 1)
		fail(t, s, got[0], t0, t0.Add(time.Hour), federation.StepRetry)
		// Two days later, still failing (one attempt at a time: its last one failed): the host
		// is unavailable and everything it has parks.
		later := t0.Add(49 * time.Hour)
		got = claim(t, s, later, 10)
		if len(got) != 1 {
			t.Fatalf("claimed %d of a failing host, want one at a time", len(got))
		}
		h := fail(t, s, got[0], later, later.Add(time.Hour), federation.StepRetry)
		if h.State != federation.HostUnavailable {
			t.Fatalf("host %+v, want unavailable", h)
		}
		c, err := s.DeliveryCounts(ctx)
		must(t, err)
		if c["parked"] != 2 || len(c) != 1 {
			t.Fatalf("counts %v, want both parked", c)
		}
		must(t, s.HandOff(ctx, queued("https://f.example/inbox", "", 3), later)) // new ones park at once
		if c, _ := s.DeliveryCounts(ctx); c["parked"] != 3 {
			t.Fatalf("counts %v, want 3 parked", c)
		}
		if got := claim(t, s, later.Add(24*time.Hour), 10); len(got) != 0 {
			t.Fatalf("claimed %v of an unavailable host", deliveryIDs(got))
		}
		// Seen alive (an activity came from it): every parked delivery is due now.
		alive := later.Add(25 * time.Hour)
		must(t, s.HostAlive(ctx, "f.example", alive))
		if got := claim(t, s, alive, 10); len(got) != 3 {
			t.Fatalf("after the host came back claimed %d, want 3", len(got))
		}
	})

	t.Run("DirectPublicationQueuesItsDeliveries", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		// p.example is unavailable: failing for two days.
		must(t, s.HandOff(ctx, queued("https://p.example/inbox", "", 1), t0))
		fail(t, s, claim(t, s, t0, 1)[0], t0, t0.Add(time.Hour), federation.StepRetry)
		if h := fail(t, s, claim(t, s, t0.Add(49*time.Hour), 1)[0], t0.Add(49*time.Hour), t0.Add(50*time.Hour),
			federation.StepRetry); h.State != federation.HostUnavailable {
			t.Fatalf("host %+v, want unavailable", h)
		}
		object := "https://local.example/reviews/1"
		p := publication("https://local.example/activities/c1", "Create", uuid.New(), object,
			"https://a.example/inbox", "https://b.example/users/x/inbox", "https://p.example/inbox")
		p.Direct = true
		must(t, s.Publish(ctx, p))
		must(t, s.Publish(ctx, p)) // a replay of the outbound handler queues nothing more
		c, err := s.DeliveryCounts(ctx)
		must(t, err)
		if c["pending"] != 2 || c["parked"] != 2 || len(c) != 2 {
			t.Fatalf("counts %v, want 2 pending and 2 parked (the old one and the new one)", c)
		}
		now := time.Now().Add(time.Second) // Publish stamps with the store's clock
		got := claim(t, s, now, 10)
		want := []string{p.Deliveries[0].EventID.String(), p.Deliveries[1].EventID.String()}
		sort.Strings(want)
		if !slices.Equal(deliveryIDs(got), want) {
			t.Fatalf("claimed %v, want the deliveries to a.example and b.example %v", deliveryIDs(got), want)
		}
		for _, d := range got {
			if string(d.Activity) != string(p.Activity) || d.Signer != p.ActorID || d.Attempts != 0 {
				t.Fatalf("claimed %+v, want the publication's activity signed by its actor", d)
			}
		}
		// A later activity about the same object waits behind the first at the same inbox.
		q := publication("https://local.example/activities/d1", "Delete", p.ActorID, object, "https://a.example/inbox")
		q.Direct = true
		must(t, s.Publish(ctx, q))
		if got := claim(t, s, now, 10); len(got) != 0 {
			t.Fatalf("claimed %v while the Create to a.example is in flight", deliveryIDs(got))
		}
	})

	t.Run("ABacklogOfOneHostDoesNotStarveTheOthers", func(t *testing.T) {
		// 300 deliveries of one host fall due before another host's one: the claim's first
		// window (the earliest due) holds only the first host, which may have 4 in flight, so
		// the claim ranks the whole due set and the other host's delivery goes out too.
		t.Parallel()
		s := open(t, &Faults{})
		for i := range 300 {
			must(t, s.HandOff(ctx, queued("https://busy.example/inbox", "", i), t0))
		}
		must(t, s.HandOff(ctx, queued("https://other.example/inbox", "", 0), t0.Add(time.Second)))
		got := claim(t, s, t0.Add(time.Minute), 10)
		hosts := map[string]int{}
		for _, d := range got {
			hosts[d.Host]++
		}
		if hosts["busy.example"] != 4 || hosts["other.example"] != 1 {
			t.Fatalf("claimed %v per host, want busy.example's 4 and other.example's 1", hosts)
		}
	})

	t.Run("HousekeepProbesExpiresAndPrunes", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		for i := range 3 {
			must(t, s.HandOff(ctx, queued("https://g.example/inbox", "", i), t0))
		}
		got := claim(t, s, t0, 1)
		fail(t, s, got[0], t0, t0, federation.StepRetry)
		later := t0.Add(50 * time.Hour)
		got = claim(t, s, later, 1)
		if h := fail(t, s, got[0], later, later, federation.StepRetry); h.State != federation.HostUnavailable {
			t.Fatalf("host %+v", h)
		}
		// Not yet time to probe: nothing moves.
		must(t, s.Housekeep(ctx, later.Add(time.Hour), later.Add(7*time.Hour), t0.Add(-time.Hour), t0, t0))
		if got := claim(t, s, later.Add(time.Hour), 10); len(got) != 0 {
			t.Fatalf("claimed %v before the probe", deliveryIDs(got))
		}
		probeAt := later.Add(6 * time.Hour)
		must(t, s.Housekeep(ctx, probeAt, probeAt.Add(6*time.Hour), t0.Add(-time.Hour), t0, t0))
		probe := claim(t, s, probeAt, 10)
		if len(probe) != 1 {
			t.Fatalf("the probe claimed %d, want the oldest parked one", len(probe))
		}
		must(t, s.Delivered(ctx, probe[0], probeAt))
		if got := claim(t, s, probeAt, 10); len(got) != 2 {
			t.Fatalf("after a successful probe claimed %d, want the 2 parked", len(got))
		} else {
			for _, d := range got {
				must(t, s.Delivered(ctx, d, probeAt))
			}
		}
		// Done deliveries are deleted after doneBefore; parked ones expire after parkedBefore.
		must(t, s.HandOff(ctx, queued("https://h.example/inbox", "", 7), probeAt))
		d := claim(t, s, probeAt, 1)
		fail(t, s, d[0], probeAt, probeAt, federation.StepRetry)
		d = claim(t, s, probeAt.Add(49*time.Hour), 1)
		fail(t, s, d[0], probeAt.Add(49*time.Hour), probeAt.Add(50*time.Hour), federation.StepRetry)
		must(t, s.Housekeep(ctx, probeAt.Add(49*time.Hour), probeAt.Add(55*time.Hour), probeAt.Add(time.Second), probeAt.Add(time.Second), t0))
		c, err := s.DeliveryCounts(ctx)
		must(t, err)
		if c["done"] != 0 || c["dead"] != 1 || c["parked"] != 0 {
			t.Fatalf("counts %v, want the done pruned and the parked one dead", c)
		}
		// Dead-lettered ones are kept until deadBefore.
		must(t, s.Housekeep(ctx, probeAt.Add(50*time.Hour), probeAt.Add(56*time.Hour), t0, t0, probeAt.Add(50*time.Hour)))
		if c, _ := s.DeliveryCounts(ctx); len(c) != 0 {
			t.Fatalf("counts %v, want the dead one pruned", c)
		}
	})

	t.Run("DeadAndForget", func(t *testing.T) {
		t.Parallel()
		s := open(t, &Faults{})
		must(t, s.HandOff(ctx, queued("https://i.example/inbox", "", 1), t0))
		must(t, s.HandOff(ctx, queued("https://i.example/inbox", "", 2), t0))
		got := claim(t, s, t0, 1)
		fail(t, s, got[0], t0, t0, federation.StepDead)
		n, err := s.ForgetHost(ctx, "i.example", t0)
		must(t, err)
		if n != 1 {
			t.Fatalf("forgot %d deliveries, want the one waiting", n)
		}
		c, _ := s.DeliveryCounts(ctx)
		if c["dead"] != 2 || len(c) != 1 {
			t.Fatalf("counts %v", c)
		}
		if hosts, err := s.FederationHosts(ctx); err != nil || len(hosts) != 0 {
			t.Fatalf("hosts after forget: %+v %v", hosts, err)
		}
	})
}

// sortedCopy is a sorted copy of s.
func sortedCopy(s []string) []string {
	out := slices.Clone(s)
	sort.Strings(out)
	return out
}

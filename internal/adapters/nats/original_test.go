package nats

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"moviesdiary/internal/delivery"
	"moviesdiary/internal/delivery/deliverytest"
	"moviesdiary/internal/domain"
)

// TestTheOriginalsStreamAdopted: the stream and durable consumer a movies-diary deployment on
// NATS leaves (its worker's: subjects prefix.>, a pull durable named worker, deliver all, ack
// wait 600 s, no max deliveries), with messages its worker handled and messages it had not,
// all without headers, as it publishes them. Our worker, keeping the names, takes the durable
// in place and continues after the original's acks. Each message the original left gets the
// fate of its event type, as the original's open outbox rows do at adoption
// (domain.LegacyEventFate): a delivered type runs through the handlers, a social event its
// server already answered (and an incoming FollowAccepted) and an event nothing consumes are
// acked without running any, a type the original never wrote is terminated; each saying so.
func TestTheOriginalsStreamAdopted(t *testing.T) {
	t.Parallel()
	log, sink := newLogger(t)
	conn := dial(t, embeddedServer(t), log)
	js := newJetStream(t, conn)
	ctx := context.Background()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "EVENTS", Subjects: []string{testPrefix + ".>"},
		MaxMsgs: 100_000}); err != nil {
		t.Fatal(err)
	}
	orig, err := js.CreateConsumer(ctx, "EVENTS", jetstream.ConsumerConfig{Durable: "worker", FilterSubject: testPrefix + ".>",
		AckPolicy: jetstream.AckExplicitPolicy, AckWait: 600 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	const u = `"11111111-1111-4111-8111-111111111111"`
	publish := func(suffix, payload string) {
		t.Helper()
		m := natsgo.NewMsg(testPrefix + "." + suffix)
		m.Data = []byte(payload)
		if _, err := js.PublishMsg(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	// Handled by the original's worker (acked below): never delivered again.
	publish("search.reindex.requested", `{"type":"SearchReindexRequested"}`)
	batch, err := orig.Fetch(1)
	if err != nil {
		t.Fatal(err)
	}
	for m := range batch.Messages() {
		if err := m.Ack(); err != nil {
			t.Fatal(err)
		}
	}
	// Left undelivered when it stopped.
	publish("search.reindex.requested", `{"type":"SearchReindexRequested"}`)
	publish("follow.unfollowed", `{"type":"Unfollowed","data":{"follower_id":`+u+`,"target_kind":"remote","target_id":"https://remote.example/users/bob"}}`)
	publish("follow.accepted", `{"type":"FollowAccepted","data":{"owner_id":`+u+`,"requester_kind":"remote","requester_id":"https://remote.example/users/bob"}}`)
	publish("watch.event.ingested", `{"type":"WatchEventIngested","data":{}}`)
	publish("mystery.event", `{"type":"MysteryEvent"}`)

	cons := setup(t, js, 5, 0, log)
	if p := cons.CachedInfo().Config.DeliverPolicy; p != jetstream.DeliverAllPolicy {
		t.Fatalf("the original's durable delivers %v, want it kept as it is (all)", p)
	}
	store := openStore(t)
	var mu sync.Mutex
	var handled []string
	hs := []delivery.Handler{{Name: "rec", Types: domain.EventTypes(), Handle: func(_ context.Context, e delivery.Envelope) error {
		mu.Lock()
		defer mu.Unlock()
		handled = append(handled, e.Event.EventType())
		return nil
	}}}
	startConsumer(t, conn, cons, store, hs, delivery.Config{}, log)
	deliverytest.Eventually(t, 10*time.Second, "the original's messages settled", func() bool { return drained(t, cons) })
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(handled, []string{"SearchReindexRequested"}) {
		t.Errorf("handlers ran for %v, want only the one SearchReindexRequested the original had not handled", handled)
	}
	settled := sink.find("adopted stream message settled, not delivered")
	var types []string
	for _, l := range settled {
		types = append(types, l["event_type"])
	}
	slices.Sort(types)
	if !slices.Equal(types, []string{"FollowAccepted", "Unfollowed", "WatchEventIngested"}) {
		t.Errorf("settled %v, want FollowAccepted, Unfollowed, WatchEventIngested", types)
	}
	if dead := sink.find("adopted stream message dead-lettered: not an event type of movies-diary's last release"); len(dead) != 1 ||
		dead[0]["subject"] != testPrefix+".mystery.event" {
		t.Errorf("dead-lettered %v, want the mystery event", dead)
	}
}

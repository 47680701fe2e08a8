package nats

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

func TestSetupCreatesWhatThisBuildNeeds(t *testing.T) {
	t.Parallel()
	log, sink := newLogger(t)
	js := newJetStream(t, dial(t, embeddedServer(t), log))
	cons := setup(t, js, 7, 0, log)

	s, err := js.Stream(context.Background(), "EVENTS")
	if err != nil {
		t.Fatal(err)
	}
	sc := s.CachedInfo().Config
	if sc.Duplicates != time.Hour || len(sc.Subjects) != 1 || sc.Subjects[0] != testPrefix+".>" ||
		sc.MaxAge != testMaxAge || sc.Storage != jetstream.FileStorage || sc.Retention != jetstream.LimitsPolicy {
		t.Fatalf("stream config %+v", sc)
	}
	cc := cons.CachedInfo().Config
	if cc.Durable != "worker" || cc.MaxDeliver != 7 || cc.AckWait != AckWaitDefault || cc.FilterSubject != testPrefix+".>" ||
		cc.AckPolicy != jetstream.AckExplicitPolicy || cc.DeliverPolicy != jetstream.DeliverAllPolicy {
		t.Fatalf("consumer config %+v", cc)
	}

	setup(t, js, 7, 0, log) // a restart finds everything as it needs it
	if n := len(sink.find("stream updated in place")) + len(sink.find("consumer updated in place")); n != 0 {
		t.Fatalf("a second start-up updated %d things", n)
	}
}

func TestSetupRefusesAStreamWithoutMaxAge(t *testing.T) {
	t.Parallel()
	log, _ := newLogger(t)
	js := newJetStream(t, dial(t, embeddedServer(t), log))
	if _, err := Setup(context.Background(), js, SetupConfig{Stream: "EVENTS", Consumer: "worker", Prefix: testPrefix,
		MaxDeliver: 5, Logger: log}); err == nil {
		t.Fatal("Setup created a stream that keeps messages forever")
	}
}

func TestSetupRacingWorkersBothStart(t *testing.T) {
	t.Parallel()
	log, _ := newLogger(t)
	url := embeddedServer(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		js := newJetStream(t, dial(t, url, log))
		wg.Go(func() {
			_, errs[i] = Setup(context.Background(), js, SetupConfig{Stream: "EVENTS", Consumer: "worker",
				Prefix: testPrefix, MaxDeliver: 5, MaxAge: testMaxAge, Logger: log})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("worker %d: %v", i, err)
		}
	}
}

func TestSetupUpdatesAnExistingStreamAndConsumerInPlace(t *testing.T) {
	t.Parallel()
	log, sink := newLogger(t)
	js := newJetStream(t, dial(t, embeddedServer(t), log))
	ctx := context.Background()
	// What the original system left behind, plus an operator's own settings.
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "EVENTS", Subjects: []string{testPrefix + ".>"},
		MaxMsgs: 100_000, Description: "operator notes", Duplicates: 2 * time.Minute}); err != nil {
		t.Fatal(err)
	}
	if _, err := js.CreateConsumer(ctx, "EVENTS", jetstream.ConsumerConfig{Durable: "worker", FilterSubject: testPrefix + ".>",
		AckPolicy: jetstream.AckExplicitPolicy, AckWait: 600 * time.Second, MaxDeliver: -1, MaxAckPending: 77,
		Description: "ops"}); err != nil {
		t.Fatal(err)
	}

	cons := setup(t, js, 5, 0, log)

	s, err := js.Stream(ctx, "EVENTS")
	if err != nil {
		t.Fatal(err)
	}
	sc := s.CachedInfo().Config
	if sc.Duplicates != time.Hour {
		t.Errorf("duplicate_window %s, want 1h", sc.Duplicates)
	}
	if sc.MaxMsgs != 100_000 || sc.Description != "operator notes" || sc.MaxAge != 0 {
		t.Errorf("operator fields lost: max_msgs %d, description %q, max_age %s", sc.MaxMsgs, sc.Description, sc.MaxAge)
	}
	live := consumerInfo(t, cons).Config
	if live.MaxDeliver != 5 || live.AckWait != AckWaitDefault {
		t.Errorf("consumer max_deliver %d ack_wait %s, want 5 and %s", live.MaxDeliver, live.AckWait, AckWaitDefault)
	}
	if live.MaxAckPending != 77 || live.Description != "ops" {
		t.Errorf("operator fields lost: max_ack_pending %d, description %q", live.MaxAckPending, live.Description)
	}
	if got := cons.CachedInfo().Config.MaxDeliver; got != 5 {
		t.Errorf("Setup returned a consumer that still reports max_deliver %d", got)
	}
	stream, consumer := sink.find("stream updated in place"), sink.find("consumer updated in place")
	if len(stream) != 1 || stream[0]["level"] != "WARN" || stream[0]["duplicate_window_was"] != "2m0s" {
		t.Errorf("stream update logs %v", stream)
	}
	if len(consumer) != 1 || consumer[0]["level"] != "WARN" || consumer[0]["max_deliver_was"] != "-1" {
		t.Errorf("consumer update logs %v", consumer)
	}
}

func TestSetupLogsTheManualCommandWhenTheServerRejectsAnUpdate(t *testing.T) {
	t.Parallel()
	log, sink := newLogger(t)
	js := newJetStream(t, dial(t, embeddedServer(t), log))
	ctx := context.Background()
	// A window longer than max_age is refused; so is max_deliver below the backoff's length.
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "EVENTS", Subjects: []string{testPrefix + ".>"},
		MaxAge: 30 * time.Minute, Duplicates: 2 * time.Minute}); err != nil {
		t.Fatal(err)
	}
	backoff := []time.Duration{time.Second, time.Second, time.Second, time.Second, time.Second, time.Second}
	if _, err := js.CreateConsumer(ctx, "EVENTS", jetstream.ConsumerConfig{Durable: "worker", FilterSubject: testPrefix + ".>",
		AckPolicy: jetstream.AckExplicitPolicy, MaxDeliver: 10, BackOff: backoff}); err != nil {
		t.Fatal(err)
	}

	cons, err := Setup(ctx, js, SetupConfig{Stream: "EVENTS", Consumer: "worker", Prefix: testPrefix, MaxDeliver: 5, MaxAge: testMaxAge, Logger: log})
	if err != nil || cons == nil {
		t.Fatalf("start-up must carry on after a rejected update: %v", err)
	}
	if got := cons.CachedInfo().Config.MaxDeliver; got != 10 {
		t.Errorf("consumer reports max_deliver %d, want the live 10", got)
	}
	stream := sink.find("stream update rejected; apply it by hand, the worker carries on with the live settings")
	if len(stream) != 1 || stream[0]["command"] != "nats stream edit EVENTS --dupe-window 1h --replicas 1" {
		t.Errorf("stream rejection logs %v", stream)
	}
	consumer := sink.find("consumer update rejected; apply it by hand, the worker carries on with the live settings")
	if len(consumer) != 1 || consumer[0]["command"] != "nats consumer edit EVENTS worker --max-deliver 5 --wait 1m" {
		t.Errorf("consumer rejection logs %v", consumer)
	}
}

func TestCLIDuration(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{time.Hour: "1h", time.Minute: "1m", 10 * time.Minute: "10m",
		90 * time.Second: "1m30s", 70 * time.Minute: "1h10m", 500 * time.Millisecond: "500ms"} {
		if got := cliDuration(d); got != want {
			t.Errorf("cliDuration(%s) = %q, want %q", d, got, want)
		}
	}
}

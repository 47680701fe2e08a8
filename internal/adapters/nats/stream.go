package nats

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// What this build needs from the stream and the durable consumer.
const (
	// DuplicateWindow is how long JetStream remembers a Nats-Msg-Id: set explicitly (the server
	// default is 2 minutes) and longer than the relay's retry horizon.
	DuplicateWindow = time.Hour
	// AckWaitDefault is how long a delivered message may go without an ack or an in-progress
	// notice before JetStream redelivers it. The consumer sends in-progress notices every third
	// of it while a message is unsettled, so it only expires when the worker is gone.
	AckWaitDefault = time.Minute
	// StreamMaxBytes bounds a new stream's size (deploy/nats.conf's max_file_store is above it).
	// When full, the oldest messages go; any whose events were not handled yet are relayed again
	// from the outbox after their horizon, so the bound costs delay, not events.
	StreamMaxBytes = 8 << 30
)

// SetupConfig names the stream and consumer and what they must be.
type SetupConfig struct {
	Stream     string        // NATS_STREAM_NAME
	Consumer   string        // NATS_CONSUMER_NAME: the durable pull consumer all workers share
	Prefix     string        // NATS_SUBJECT_PREFIX
	MaxDeliver int           // EVENT_QUEUE_MAX_ATTEMPTS
	AckWait    time.Duration // default AckWaitDefault
	// Replicas is how many servers of a JetStream cluster keep the stream (NATS_STREAM_REPLICAS,
	// default 1; 3 for a cluster that survives the loss of one server).
	Replicas int
	// MaxAge is how long a new stream keeps messages. Pass the ledger's retention (30 days), so
	// a message still in the stream always finds its handlers' ledger rows and is never handled
	// twice. Required.
	MaxAge time.Duration
	Logger *slog.Logger
}

// Setup creates the stream and the durable consumer when missing. For existing ones it compares
// duplicate_window, replicas, max_deliver and ack_wait with what this build needs and updates them in place
// with a clone of the live config in which only those fields change, so operator-set fields and
// the immutable ones are kept. If the server rejects an update, Setup logs the nats CLI command
// that applies it by hand and carries on with the live settings. It returns the consumer; its
// CachedInfo holds the settings it really runs with.
func Setup(ctx context.Context, js jetstream.JetStream, cfg SetupConfig) (jetstream.Consumer, error) {
	cfg.AckWait = cmp.Or(cfg.AckWait, AckWaitDefault)
	cfg.Replicas = cmp.Or(cfg.Replicas, 1)
	if cfg.MaxAge <= 0 {
		return nil, errors.New("nats setup: the stream needs a max age (the ledger's retention)")
	}
	log := cmp.Or(cfg.Logger, slog.Default())
	created, err := ensureStream(ctx, js, cfg, log)
	if err != nil {
		return nil, err
	}
	return ensureConsumer(ctx, js, cfg, created, log)
}

// ensureStream reports whether this call created the stream.
func ensureStream(ctx context.Context, js jetstream.JetStream, cfg SetupConfig, log *slog.Logger) (bool, error) {
	want := jetstream.StreamConfig{
		Name:        cfg.Stream,
		Description: "moviesdiary domain events, relayed from the outbox",
		Subjects:    []string{Wildcard(cfg.Prefix)},
		Retention:   jetstream.LimitsPolicy,
		Discard:     jetstream.DiscardOld,
		MaxAge:      cfg.MaxAge,
		MaxBytes:    StreamMaxBytes,
		Storage:     jetstream.FileStorage,
		Duplicates:  DuplicateWindow,
		Replicas:    cfg.Replicas,
	}
	s, err := js.Stream(ctx, cfg.Stream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		s, err = js.CreateStream(ctx, want)
		if err == nil {
			log.Info("created stream", "stream", cfg.Stream, "subjects", want.Subjects, "duplicate_window", DuplicateWindow.String(),
				"replicas", cfg.Replicas)
			return true, nil
		}
		if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) { // another worker won the race
			s, err = js.Stream(ctx, cfg.Stream)
		}
	}
	if err != nil {
		return false, fmt.Errorf("nats stream %s: %w", cfg.Stream, err)
	}
	live := s.CachedInfo().Config
	if !slices.Contains(live.Subjects, Wildcard(cfg.Prefix)) {
		log.Warn("stream does not list this build's subject; publishing fails unless another subject covers it",
			"stream", cfg.Stream, "subjects", live.Subjects, "want", Wildcard(cfg.Prefix))
	}
	if live.Duplicates == DuplicateWindow && live.Replicas == cfg.Replicas {
		return false, nil
	}
	update := live // a clone: only the duplicate window and the replicas change
	update.Duplicates, update.Replicas = DuplicateWindow, cfg.Replicas
	if _, err := js.UpdateStream(ctx, update); err != nil {
		log.Warn("stream update rejected; apply it by hand, the worker carries on with the live settings",
			"stream", cfg.Stream, "error", err, "duplicate_window", live.Duplicates.String(), "replicas", live.Replicas,
			"command", fmt.Sprintf("nats stream edit %s --dupe-window %s --replicas %d", cfg.Stream, cliDuration(DuplicateWindow), cfg.Replicas))
		return false, nil
	}
	log.Warn("stream updated in place", "stream", cfg.Stream,
		"duplicate_window_was", live.Duplicates.String(), "duplicate_window", DuplicateWindow.String(),
		"replicas_was", live.Replicas, "replicas", cfg.Replicas)
	return false, nil
}

func ensureConsumer(ctx context.Context, js jetstream.JetStream, cfg SetupConfig, newStream bool, log *slog.Logger) (jetstream.Consumer, error) {
	want := jetstream.ConsumerConfig{
		Durable:       cfg.Consumer,
		Description:   "moviesdiary workers",
		FilterSubject: Wildcard(cfg.Prefix),
		DeliverPolicy: jetstream.DeliverAllPolicy,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       cfg.AckWait,
		MaxDeliver:    cfg.MaxDeliver,
	}
	c, err := js.Consumer(ctx, cfg.Stream, cfg.Consumer)
	if errors.Is(err, jetstream.ErrConsumerNotFound) {
		// A new durable on an old stream that holds messages starts after them: their rows are
		// handled or dead-lettered already, or still relayed, and those the relay publishes again
		// after their horizon. Replaying the stream would run its whole history (legacy messages
		// without an id included) through every handler. On a stream this call created,
		// DeliverAll keeps what a relay already running published before the durable exists.
		// The original movies-diary's undelivered messages are taken by its own durable, kept
		// in place (settleOriginals), not by a new one.
		if info, serr := js.Stream(ctx, cfg.Stream); !newStream && serr == nil && info.CachedInfo().State.Msgs > 0 {
			want.DeliverPolicy = jetstream.DeliverNewPolicy
			log.Warn("new consumer on a stream with messages: it starts after them; events they carry that are not handled yet are relayed again after their horizon",
				"stream", cfg.Stream, "consumer", cfg.Consumer, "messages", info.CachedInfo().State.Msgs,
				"movies_diary", "messages the original movies-diary published (no event id) have no outbox row and are not relayed again: "+
					"to take those its worker had not handled, use its consumer's name (NATS_CONSUMER_NAME; its default was worker)")
		}
		// CreateConsumer succeeds when a racing worker created the same config.
		c, err = js.CreateConsumer(ctx, cfg.Stream, want)
		if err == nil {
			log.Info("created consumer", "stream", cfg.Stream, "consumer", cfg.Consumer,
				"max_deliver", cfg.MaxDeliver, "ack_wait", cfg.AckWait.String())
			return c, nil
		}
		if errors.Is(err, jetstream.ErrConsumerExists) {
			c, err = js.Consumer(ctx, cfg.Stream, cfg.Consumer)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("nats consumer %s on %s: %w", cfg.Consumer, cfg.Stream, err)
	}
	live := c.CachedInfo().Config
	if live.MaxDeliver == cfg.MaxDeliver && live.AckWait == cfg.AckWait {
		return c, nil
	}
	update := live // a clone: only max_deliver and ack_wait change
	update.MaxDeliver, update.AckWait = cfg.MaxDeliver, cfg.AckWait
	updated, err := js.UpdateConsumer(ctx, cfg.Stream, update)
	if err != nil {
		log.Warn("consumer update rejected; apply it by hand, the worker carries on with the live settings",
			"stream", cfg.Stream, "consumer", cfg.Consumer, "error", err,
			"max_deliver", live.MaxDeliver, "ack_wait", live.AckWait.String(),
			"command", fmt.Sprintf("nats consumer edit %s %s --max-deliver %d --wait %s",
				cfg.Stream, cfg.Consumer, cfg.MaxDeliver, cliDuration(cfg.AckWait)))
		return c, nil
	}
	log.Warn("consumer updated in place", "stream", cfg.Stream, "consumer", cfg.Consumer,
		"max_deliver_was", live.MaxDeliver, "max_deliver", cfg.MaxDeliver,
		"ack_wait_was", live.AckWait.String(), "ack_wait", cfg.AckWait.String())
	return updated, nil
}

// cliDuration writes d the way an operator would type it: 1h rather than 1h0m0s.
func cliDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}

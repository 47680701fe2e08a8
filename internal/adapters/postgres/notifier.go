package postgres

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"moviesdiary/internal/domain"

	"github.com/jackc/pgx/v5"
)

// NotifyPollDefault is how long a queue waits for a commit notification before it looks for
// work anyway: the slow poll that catches rows whose retry time or lease has come (no commit
// announces those) and covers a LISTEN connection that is down.
const NotifyPollDefault = time.Second

// Reconnection pauses of the LISTEN connection: 100 ms doubling to 5 s.
const (
	listenRetryMin = 100 * time.Millisecond
	listenRetryMax = 5 * time.Second
)

// notifier plays the part of the SQLite store's commit watcher: it LISTENs on the outbox channel
// over a connection of its own (outside the pool, held for the store's life) and counts what it
// hears. Every (re)connection counts as a notification too, since commits made while it was
// down went unheard. A waiter compares the count with the one it saw before its last claim, so
// a commit between that claim and the wait is never missed.
type notifier struct {
	url string
	log *slog.Logger

	mu      sync.Mutex
	seq     uint64
	changed chan struct{} // closed and replaced at every count
}

func newNotifier(url string, log *slog.Logger) *notifier {
	return &notifier{url: url, log: log, changed: make(chan struct{})}
}

// startNotifier starts the store's notifier on the first call; Close stops it.
func (s *Store) startNotifier(log *slog.Logger) *notifier {
	s.notifyOnce.Do(func() {
		s.notify = newNotifier(s.url, log)
		ctx, stop := context.WithCancel(context.Background())
		s.stop = stop
		s.bg.Go(func() { s.notify.run(ctx) })
	})
	return s.notify
}

// current is the count so far.
func (n *notifier) current() uint64 {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.seq
}

func (n *notifier) bump() {
	n.mu.Lock()
	n.seq++
	close(n.changed)
	n.changed = make(chan struct{})
	n.mu.Unlock()
}

// wait returns once the count differs from seen, after poll, or when ctx ends.
func (n *notifier) wait(ctx context.Context, seen uint64, poll time.Duration) {
	n.mu.Lock()
	if n.seq != seen {
		n.mu.Unlock()
		return
	}
	changed := n.changed
	n.mu.Unlock()
	t := time.NewTimer(poll)
	defer t.Stop()
	select {
	case <-changed:
	case <-t.C:
	case <-ctx.Done():
	}
}

// run listens until ctx ends, reconnecting with a growing pause whenever the connection fails.
func (n *notifier) run(ctx context.Context) {
	pauses := domain.Pause{Min: listenRetryMin, Max: listenRetryMax}
	for ctx.Err() == nil {
		err := n.listen(ctx, pauses.Reset)
		if ctx.Err() != nil {
			return
		}
		pause := pauses.Next()
		n.log.Warn("outbox notifications lost: reconnecting; queues poll meanwhile", "error", err, "retry_in", pause)
		t := time.NewTimer(pause)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return
		}
	}
}

// listen connects, LISTENs and counts notifications until the connection fails or ctx ends.
func (n *notifier) listen(ctx context.Context, connected func()) error {
	conn, err := pgx.Connect(ctx, n.url)
	if err != nil {
		return err
	}
	defer func() {
		closing, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		conn.Close(closing)
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+notifyChannel); err != nil {
		return err
	}
	connected()
	n.bump() // commits made before this connection listened went unheard
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return err
		}
		n.bump()
	}
}

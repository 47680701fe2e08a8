package nats

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	natsgo "github.com/nats-io/nats.go"

	"moviesdiary/internal/delivery"
)

// ReconnectWaitDefault is how long the client waits between reconnection attempts.
const ReconnectWaitDefault = 2 * time.Second

// ConnConfig configures Dial; zero fields take the defaults.
type ConnConfig struct {
	URL           string
	Name          string        // client name the server shows (default "moviesdiary-worker")
	ReconnectWait time.Duration // default ReconnectWaitDefault
	Logger        *slog.Logger
	// OnReconnect, if set, is called after each reconnection (metrics count them).
	OnReconnect func()
}

// Conn is a NATS connection that reconnects forever, logs its loss and its recovery once each
// (not once per message), and lets the relay and the consumers wait for it to come back instead
// of failing every publish or fetch while it is down.
type Conn struct {
	nc  *natsgo.Conn
	log *slog.Logger

	mu     sync.Mutex
	up     chan struct{} // closed while connected; a fresh open channel while not
	closed chan struct{} // closed once the connection is closed for good
}

// Dial connects to cfg.URL. An unreachable server is not an error: the connection keeps trying in
// the background (the worker may start before NATS does) and Connected tells when it is up.
func Dial(cfg ConnConfig) (*Conn, error) {
	c := &Conn{log: cmp.Or(cfg.Logger, slog.Default()), up: make(chan struct{}), closed: make(chan struct{})}
	nc, err := natsgo.Connect(cfg.URL,
		natsgo.Name(cmp.Or(cfg.Name, "moviesdiary-worker")),
		natsgo.MaxReconnects(-1),
		natsgo.ReconnectWait(cmp.Or(cfg.ReconnectWait, ReconnectWaitDefault)),
		natsgo.RetryOnFailedConnect(true),
		natsgo.ConnectHandler(func(nc *natsgo.Conn) {
			c.log.Info("nats connected", "server", nc.ConnectedUrlRedacted())
			c.setUp(true)
		}),
		natsgo.DisconnectErrHandler(func(_ *natsgo.Conn, err error) {
			if err == nil {
				return // a deliberate Close, logged by the caller
			}
			c.log.Warn("nats connection lost; reconnecting", "error", err)
			c.setUp(false)
		}),
		natsgo.ReconnectHandler(func(nc *natsgo.Conn) {
			c.log.Info("nats connection restored", "server", nc.ConnectedUrlRedacted())
			c.setUp(true)
			if cfg.OnReconnect != nil {
				cfg.OnReconnect()
			}
		}),
		natsgo.ClosedHandler(func(*natsgo.Conn) {
			c.setUp(false)
			close(c.closed)
		}),
		natsgo.ErrorHandler(func(_ *natsgo.Conn, sub *natsgo.Subscription, err error) {
			subject := ""
			if sub != nil {
				subject = sub.Subject
			}
			c.log.Error("nats asynchronous error", "error", err, "subject", subject)
		}),
	)
	if err != nil {
		return nil, fmt.Errorf("nats connect %s: %w", cfg.URL, err)
	}
	c.nc = nc
	if nc.IsConnected() {
		c.setUp(true)
	} else {
		c.log.Warn("nats not reachable yet; retrying in the background", "url", cfg.URL)
	}
	return c, nil
}

func (c *Conn) setUp(up bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	select {
	case <-c.up:
		if !up {
			c.up = make(chan struct{})
		}
	default:
		if up {
			close(c.up)
		}
	}
}

// Connected returns a channel that is closed while the connection is up.
func (c *Conn) Connected() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.up
}

// IsConnected reports whether the connection is up now.
func (c *Conn) IsConnected() bool {
	select {
	case <-c.Connected():
		return true
	default:
		return false
	}
}

// IsClosed reports whether the connection is closed for good: it will never reconnect, so the
// relay and the consumers cannot go on.
func (c *Conn) IsClosed() bool {
	select {
	case <-c.closed:
		return true
	default:
		return false
	}
}

// WaitConnected blocks until the connection is up, ctx ends, max passes or the connection is
// closed, and reports whether it is up.
func (c *Conn) WaitConnected(ctx context.Context, max time.Duration) bool {
	t := time.NewTimer(max)
	defer t.Stop()
	select {
	case <-c.Connected():
		return true
	case <-ctx.Done():
	case <-c.closed:
	case <-t.C:
	}
	return c.IsConnected()
}

// errClosed is what the relay and the consumers return once the connection is closed for good.
var errClosed = fmt.Errorf("nats connection: %w", delivery.ErrClosed)

// NATS is the underlying client connection.
func (c *Conn) NATS() *natsgo.Conn { return c.nc }

// Close flushes what is buffered (acks, in-progress notices) for up to a second and closes.
func (c *Conn) Close() {
	if c.nc.IsConnected() {
		_ = c.nc.FlushTimeout(time.Second)
	}
	c.nc.Close()
}

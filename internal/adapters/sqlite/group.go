package sqlite

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/jmoiron/sqlx"
)

// maxGroup bounds how many write transactions one commit carries.
const maxGroup = 64

// errStoreClosed answers a write submitted after Close.
var errStoreClosed = errors.New("sqlite: store closed")

// groupCommit merges the write transactions of concurrent requests into one SQLite transaction
// and one commit. SQLite has one writer anyway, and a commit writes every page it dirtied to the
// WAL: requests that touch the same pages (the outbox's last leaf and its index leaves, the
// reviews leaf) write them once per group instead of once each. Each request runs inside its own
// SAVEPOINT, so a failing request rolls back alone and the others still commit; a failed commit
// fails them all. A lone request commits alone at once: nothing waits for a group to fill.
type groupCommit struct {
	mu      sync.Mutex
	started bool
	closed  bool
	reqs    chan *groupReq
	queued  atomic.Int64 // requests submitted and not yet answered (tests wait on it)
	stop    chan struct{}
	done    chan struct{}
}

type groupReq struct {
	ctx context.Context
	fn  func(*sqlx.Tx) error
	err chan error
}

// writeGrouped runs fn in a write transaction shared with concurrent writeGrouped calls, and returns once
// fn's changes are committed (nil) or rolled back (fn's error, or the commit's). Like writeAlone, fn
// sees a transaction; unlike writeAlone, it must not commit or roll back itself.
func (s *Store) writeGrouped(ctx context.Context, fn func(*sqlx.Tx) error) error {
	g := &s.group
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return errStoreClosed
	}
	if !g.started {
		g.started = true
		g.reqs, g.stop, g.done = make(chan *groupReq), make(chan struct{}), make(chan struct{})
		go s.groupLoop()
	}
	g.mu.Unlock()
	r := &groupReq{ctx: ctx, fn: fn, err: make(chan error, 1)}
	g.queued.Add(1)
	defer g.queued.Add(-1)
	select {
	case g.reqs <- r:
	case <-ctx.Done():
		return ctx.Err()
	case <-g.stop:
		return errStoreClosed
	}
	return storageFull(<-r.err) // sqlerr.go: SQLITE_FULL becomes a *domain.StorageFullError
}

// groupLoop takes the requests waiting at the moment the writer is free, up to maxGroup, and
// commits them together.
func (s *Store) groupLoop() {
	g := &s.group
	defer close(g.done)
	batch := make([]*groupReq, 0, maxGroup)
	for {
		select {
		case r := <-g.reqs:
			batch = append(batch[:0], r)
		case <-g.stop:
			return
		}
	drain:
		for len(batch) < maxGroup {
			select {
			case r := <-g.reqs:
				batch = append(batch, r)
			default:
				break drain
			}
		}
		s.commitGroup(batch)
	}
}

// errNothingToCommit rolls back a group in which every request failed.
var errNothingToCommit = errors.New("no request of the group succeeded")

func (s *Store) commitGroup(batch []*groupReq) {
	results := make([]error, len(batch))
	// Shielded: a request whose context is cancelled while its statement runs must not
	// interrupt the statement, which would roll back every request of the group (shield.go).
	err := s.writeShielded(func(tx *sqlx.Tx) error {
		ok := 0
		for i, r := range batch {
			if err := r.ctx.Err(); err != nil {
				results[i] = err
				continue
			}
			if _, err := tx.Exec(`SAVEPOINT request`); err != nil {
				return err
			}
			if err := runSafely(r.fn, tx); err != nil {
				results[i] = err
				if _, rerr := tx.Exec(`ROLLBACK TO request`); rerr != nil {
					return fmt.Errorf("roll back a failed request: %w", rerr)
				}
			} else {
				ok++
			}
			if _, err := tx.Exec(`RELEASE request`); err != nil {
				return err
			}
		}
		if ok == 0 {
			return errNothingToCommit
		}
		return nil
	})
	for i, r := range batch {
		switch {
		case results[i] != nil:
			r.err <- results[i]
		case err != nil:
			r.err <- err
		default:
			r.err <- nil
		}
	}
}

// runSafely calls fn, turning a panic into an error: the loop serves every request of the
// process and must survive one bad request.
func runSafely(fn func(*sqlx.Tx) error, tx *sqlx.Tx) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("write transaction panicked: %v", p)
		}
	}()
	return fn(tx)
}

// close stops the loop, if it runs, after the group in progress.
func (g *groupCommit) close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return
	}
	g.closed = true
	if g.started {
		close(g.stop)
		<-g.done
	}
}

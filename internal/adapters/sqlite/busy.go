package sqlite

import (
	"context"
	"database/sql/driver"
	"errors"
	"time"

	"github.com/mattn/go-sqlite3"

	"moviesdiary/internal/domain"
)

// The writer connection waits for the write lock itself rather than through SQLite's busy
// handler. SQLite's sleeps 1, 2, 5, 10, 15, 20… ms between tries, so a worker's claim that finds
// the server committing (another process holds the lock for 50–100 µs) waited a whole
// millisecond or more: at 5,000 events/s that made commit→handler p50 13 ms and p99 80 ms. Go's
// own timers are no finer (time.Sleep of 50 µs sleeps about 1 ms on an idle Linux machine), so
// the retry pauses with a nanosleep system call, from 20 µs doubling to 250 µs, for as long as
// SQLite's busy timeout would have waited.
const (
	busyTimeout     = 10 * time.Second
	beginBackoffMin = 20 * time.Microsecond
	beginBackoffMax = 250 * time.Microsecond
)

// BeginTx begins the writer's transaction (BEGIN IMMEDIATE), trying again while another
// process holds the write lock. A failed BEGIN IMMEDIATE starts no transaction, so it is safe
// to run again; inside the transaction, in WAL mode, no statement waits for a lock.
func (c *shieldConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	ctx = c.ctx(ctx)
	var deadline time.Time
	wait := domain.Pause{Min: beginBackoffMin, Max: beginBackoffMax}
	for {
		tx, err := c.SQLiteConn.BeginTx(ctx, opts)
		if err == nil || !isBusy(err) {
			return tx, err
		}
		now := time.Now()
		if deadline.IsZero() {
			deadline = now.Add(busyTimeout)
		} else if now.After(deadline) {
			return nil, err
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		pause(wait.Next())
	}
}

// isBusy reports whether err is SQLite's "database is locked" by another connection.
func isBusy(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && se.Code == sqlite3.ErrBusy
}

package postgres

import (
	"context"
	"database/sql/driver"
	"errors"

	"github.com/jackc/pgx/v5/stdlib"

	"moviesdiary/internal/domain"
)

// conn is a pooled connection whose failed statements, when the server went away after they
// were sent (a restart, a crash, an administrator ending the session), fail as the database
// unavailable: the HTTP layer's 503 with Retry-After, as for a connection the connector cannot
// open, instead of a 500 for the first statement on each connection the server dropped. pgx
// itself hands database/sql a driver.ErrBadConn, which it retries on another connection, for a
// statement that never reached the server; those pass through unchanged.
type conn struct{ *stdlib.Conn }

// QueryContext runs a query, classifying a lost connection.
func (c conn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	rows, err := c.Conn.QueryContext(ctx, query, args)
	return rows, c.lost(ctx, err)
}

// ExecContext runs a statement, classifying a lost connection.
func (c conn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	res, err := c.Conn.ExecContext(ctx, query, args)
	return res, c.lost(ctx, err)
}

// BeginTx begins a transaction whose commit classifies a lost connection too.
func (c conn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	tx, err := c.Conn.BeginTx(ctx, opts)
	if err != nil {
		return nil, c.lost(ctx, err)
	}
	return txn{Tx: tx, c: c}, nil
}

// txn is a transaction on a conn.
type txn struct {
	driver.Tx
	c conn
}

// Commit commits, classifying a lost connection: the commit's outcome is then unknown, and the
// client is told to try again (reviews carry idempotency keys for that).
func (t txn) Commit() error { return t.c.lost(context.Background(), t.Tx.Commit()) }

// lost returns err as the database unavailable when the connection is closed after it (pgx
// closes a connection on a network error or a FATAL message) and ctx did not end it.
func (c conn) lost(ctx context.Context, err error) error {
	if err == nil || errors.Is(err, driver.ErrBadConn) || ctx.Err() != nil || !c.Conn.Conn().IsClosed() {
		return err
	}
	return &domain.UnavailableError{What: "database", RetryAfter: UnreachableRetryAfter, Err: err}
}

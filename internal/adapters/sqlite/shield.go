package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"sync/atomic"

	"moviesdiary/internal/adapters/sqlstore"

	"github.com/jmoiron/sqlx"
	"github.com/mattn/go-sqlite3"
)

// A group commit runs many requests' statements in one transaction. go-sqlite3 answers a
// context cancelled while its statement runs with sqlite3_interrupt, and an interrupted
// statement makes SQLite roll back the whole transaction: one client hanging up mid-write would
// fail every other request of its group. The writer connection is therefore a shieldConn: while
// it is shielded (during a group commit) its statements ignore their context's cancellation, so
// a statement always runs to its end; cancellation is still honoured between statements
// (database/sql checks the context before each one) and between requests (commitGroup checks it
// before each request), where it rolls back that request's savepoint alone.

// registerShielded makes name a go-sqlite3 driver that runs pragmas on every new connection and
// hands out shieldConns.
func registerShielded(name, pragmas string) {
	sql.Register(name, shieldDriver{&sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {
		_, err := c.Exec(pragmas, nil)
		return err
	}}})
	sqlx.BindDriver(name, sqlx.QUESTION)
}

type shieldDriver struct{ *sqlite3.SQLiteDriver }

func (d shieldDriver) Open(name string) (driver.Conn, error) {
	c, err := d.SQLiteDriver.Open(name)
	if err != nil {
		return nil, err
	}
	sc, ok := c.(*sqlite3.SQLiteConn)
	if !ok {
		c.Close()
		return nil, fmt.Errorf("sqlite: unexpected driver connection %T", c)
	}
	return &shieldConn{SQLiteConn: sc}, nil
}

// shieldConn is a go-sqlite3 connection whose statements can be made uninterruptible.
type shieldConn struct {
	*sqlite3.SQLiteConn
	shielded atomic.Bool
}

func (c *shieldConn) ctx(ctx context.Context) context.Context {
	if c.shielded.Load() {
		return context.WithoutCancel(ctx)
	}
	return ctx
}

func (c *shieldConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	return c.SQLiteConn.ExecContext(c.ctx(ctx), query, args)
}

func (c *shieldConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	return c.SQLiteConn.QueryContext(c.ctx(ctx), query, args)
}

func (c *shieldConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	st, err := c.SQLiteConn.PrepareContext(c.ctx(ctx), query)
	if err != nil {
		return nil, err
	}
	ss, ok := st.(*sqlite3.SQLiteStmt)
	if !ok {
		return st, nil
	}
	return &shieldStmt{SQLiteStmt: ss, c: c}, nil
}

// shieldStmt is a prepared statement of a shieldConn.
type shieldStmt struct {
	*sqlite3.SQLiteStmt
	c *shieldConn
}

func (s *shieldStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	return s.SQLiteStmt.ExecContext(s.c.ctx(ctx), args)
}

func (s *shieldStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	return s.SQLiteStmt.QueryContext(s.c.ctx(ctx), args)
}

// writeShielded is writeAlone on the writer connection shielded from cancellation: what a group
// commit runs in.
func (s *Store) writeShielded(fn func(tx *sqlx.Tx) error) error {
	ctx := context.Background()
	conn, err := s.write.Connx(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer conn.Close()
	shield := func(on bool) error {
		return conn.Raw(func(dc any) error {
			sc, ok := dc.(*shieldConn)
			if !ok {
				return fmt.Errorf("sqlite: writer connection %T cannot be shielded", dc)
			}
			sc.shielded.Store(on)
			return nil
		})
	}
	if err := shield(true); err != nil {
		return err
	}
	defer func() { _ = shield(false) }()
	if err := sqlstore.RunTx(ctx, conn, fn); err != nil {
		return err
	}
	s.ckpt.committed()
	return nil
}

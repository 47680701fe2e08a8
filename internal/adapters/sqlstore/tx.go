package sqlstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jmoiron/sqlx"
)

// Tx is a write transaction whose statements are written with ? placeholders: each method
// rebinds its statement to the engine's before running it. It offers only what the repositories
// use, so a statement cannot reach the driver unbound.
type Tx struct {
	tx *sqlx.Tx
	d  Dialect
}

// ExecContext runs a statement.
func (t *Tx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return t.tx.ExecContext(ctx, t.d.Rebind(query), args...)
}

// QueryContext runs a query.
func (t *Tx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return t.tx.QueryContext(ctx, t.d.Rebind(query), args...)
}

// QueryxContext runs a query whose rows scan into structs.
func (t *Tx) QueryxContext(ctx context.Context, query string, args ...any) (*sqlx.Rows, error) {
	return t.tx.QueryxContext(ctx, t.d.Rebind(query), args...)
}

// QueryRowxContext runs a query of one row.
func (t *Tx) QueryRowxContext(ctx context.Context, query string, args ...any) *sqlx.Row {
	return t.tx.QueryRowxContext(ctx, t.d.Rebind(query), args...)
}

// GetContext scans a query's one row into dest.
func (t *Tx) GetContext(ctx context.Context, dest any, query string, args ...any) error {
	return sqlx.GetContext(ctx, t, dest, query, args...)
}

// SelectContext scans a query's rows into dest, a slice.
func (t *Tx) SelectContext(ctx context.Context, dest any, query string, args ...any) error {
	return sqlx.SelectContext(ctx, t, dest, query, args...)
}

// PreparexContext prepares a statement for repeated use within the transaction.
func (t *Tx) PreparexContext(ctx context.Context, query string) (*sqlx.Stmt, error) {
	return t.tx.PreparexContext(ctx, t.d.Rebind(query))
}

// DB is the pool reads go through, rebinding as Tx does.
type DB struct {
	db *sqlx.DB
	d  Dialect
}

// QueryContext runs a query.
func (b *DB) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return b.db.QueryContext(ctx, b.d.Rebind(query), args...)
}

// QueryxContext runs a query whose rows scan into structs.
func (b *DB) QueryxContext(ctx context.Context, query string, args ...any) (*sqlx.Rows, error) {
	return b.db.QueryxContext(ctx, b.d.Rebind(query), args...)
}

// QueryRowxContext runs a query of one row.
func (b *DB) QueryRowxContext(ctx context.Context, query string, args ...any) *sqlx.Row {
	return b.db.QueryRowxContext(ctx, b.d.Rebind(query), args...)
}

// GetContext scans a query's one row into dest.
func (b *DB) GetContext(ctx context.Context, dest any, query string, args ...any) error {
	return sqlx.GetContext(ctx, b, dest, query, args...)
}

// SelectContext scans a query's rows into dest, a slice.
func (b *DB) SelectContext(ctx context.Context, dest any, query string, args ...any) error {
	return sqlx.SelectContext(ctx, b, dest, query, args...)
}

// Queryer is what a read that runs inside or outside a write transaction takes: a Tx or the DB.
type Queryer = sqlx.QueryerContext

var (
	_ Queryer = (*Tx)(nil)
	_ Queryer = (*DB)(nil)
)

// NamedExecContext runs a statement with :name parameters from arg (sqlx binds them in the
// engine's style itself).
func (t *Tx) NamedExecContext(ctx context.Context, query string, arg any) (sql.Result, error) {
	return t.tx.NamedExecContext(ctx, query, arg)
}

// QueryRowContext runs a query of one row.
func (t *Tx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return t.tx.QueryRowContext(ctx, t.d.Rebind(query), args...)
}

// QueryRowContext runs a query of one row.
func (b *DB) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return b.db.QueryRowContext(ctx, b.d.Rebind(query), args...)
}

// execIn runs a statement whose slice arguments expand into IN (?) lists (sqlx.In), so one
// statement serves both engines where PostgreSQL alone would take an array.
func (t *Tx) execIn(ctx context.Context, query string, args ...any) (sql.Result, error) {
	q, a, err := sqlx.In(query, args...)
	if err != nil {
		return nil, err
	}
	return t.ExecContext(ctx, q, a...)
}

// PrepareContext prepares a statement for repeated use within the transaction.
func (t *Tx) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	return t.tx.PrepareContext(ctx, t.d.Rebind(query))
}

// Beginner begins transactions: a pool (*sqlx.DB) or one connection of it (*sqlx.Conn).
type Beginner interface {
	BeginTxx(ctx context.Context, opts *sql.TxOptions) (*sqlx.Tx, error)
}

// RunTx runs fn in a transaction begun on db and commits it when fn returns nil, rolling it back
// otherwise: the plain write transaction both engines build theirs on.
func RunTx(ctx context.Context, db Beginner, fn func(*sqlx.Tx) error) error {
	tx, err := db.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

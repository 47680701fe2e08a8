// Package sqlstore is moviesdiary's store written once for both SQL engines: every repository
// (users, reviews, movies, watchlist, follows, federation, imports, goals, wrap-ups, …) and the
// derivation of the events each write causes, over a small Dialect seam that each engine's
// package implements (sqlite: one writer connection with group commit; postgres: a pool, row
// locks and deadlock retries).
//
// Statements are written once with ? placeholders; Tx and DB rebind them to the engine's style.
// What truly differs per engine (SQLite's writer lane, WAL, FTS5 and adoption of the original
// database; PostgreSQL's pool, LISTEN/NOTIFY, advisory locks and tsvector search) stays in the
// engine's own package, which embeds Store.
package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/domain"
)

// Dialect is what the shared repositories need from an engine: how it runs a write transaction,
// how it classifies errors, and the few SQL spellings that differ.
type Dialect interface {
	// Write runs fn in a write transaction and commits it when fn returns nil. SQLite merges
	// concurrent writes into one commit on its one writer connection; PostgreSQL takes a pooled
	// connection. fn must not commit or roll back itself.
	Write(ctx context.Context, fn func(*sqlx.Tx) error) error
	// WriteAlone is Write in a transaction of its own (SQLite: never grouped with others), for
	// long or large writes that must not hold up a group.
	WriteAlone(ctx context.Context, fn func(*sqlx.Tx) error) error
	// SearchDocuments are the statements that build search documents from the current rows and
	// upsert them: movies' (its %s a condition over movies m) and people's (over people p), with
	// ? placeholders. The engine indexes the documents itself (FTS5, tsvector).
	SearchDocuments() (movies, people string)
	// SearchMatch is how a search of words (one or more) matches the documents of table
	// (search_movies, search_people) in the engine's text index (FTS5; a tsvector), ranked
	// best first, ties in order.
	SearchMatch(table string, words []string, order string) TextMatch
	// PersonHitColumns are the columns of sqlrow.PersonHit over people p: a person and up to
	// three titles they are known for (billed credits first, then the newest movie).
	PersonHitColumns() string
	// Wake tells the engine's waiting queues, inside tx, that rows became due (PostgreSQL:
	// a NOTIFY delivered at commit; SQLite's watcher sees every commit by itself).
	Wake(ctx context.Context, tx *sqlx.Tx) error
	// ReusesIDs reports whether the engine may hand out a deleted row's id again (SQLite's
	// INTEGER PRIMARY KEY takes max(id)+1; PostgreSQL's identity never goes back).
	ReusesIDs() bool
	// UniqueViolation reports whether err is a UNIQUE or PRIMARY KEY violation and, where the
	// engine names it, the constraint's name.
	UniqueViolation(err error) (constraint string, ok bool)
	// Deadlock reports whether the engine aborted a transaction to break a deadlock (never on
	// SQLite, whose one writer cannot deadlock).
	Deadlock(err error) bool
	// LocksRows reports whether a write must lock the rows it reads before it decides (SELECT …
	// FOR UPDATE): PostgreSQL's writers run concurrently; SQLite's one writer serialises them.
	LocksRows() bool
	// Rebind turns a statement's ? placeholders into the engine's.
	Rebind(query string) string
	// SameText is the predicate "col equals the parameter, without case", in the form the
	// engine's index on col answers.
	SameText(col string) string
	// NoCase is col in an order that ignores case, as the engine's index on col holds it.
	NoCase(col string) string
	// Binary is col in byte order (SQLite's default; PostgreSQL's COLLATE "C").
	Binary(col string) string
	// Like is the operator that matches a LIKE pattern without case.
	Like() string
	// IfNull is the expression "expr, or alt when it is NULL", spelt as the engine's indexes on
	// such expressions are (SQLite's ifnull, PostgreSQL's coalesce).
	IfNull(expr, alt string) string
	// TieBreak orders the rows of table (or alias) written in the same millisecond: SQLite's
	// rowid, in insertion order; PostgreSQL's id in byte order (there Publish never stamps two of
	// an object's activities alike, so only rows copied from SQLite tie).
	TieBreak(table string) string
	// JSONArrayOf is the expression for a JSON array, as text ('[]' when empty), of one object
	// per row of "SELECT … FROM from ORDER BY order", its keys and SQL values given by fields.
	JSONArrayOf(fields [][2]string, from, order string) string
	// IntsFromJSON is a subquery listing the integers of a JSON array given as the one
	// parameter (as text): an IN list of any length in one parameter.
	IntsFromJSON() string
	// Greatest is the scalar function of the larger of its arguments (SQLite's max).
	Greatest() string
	// RowID is the column that orders a table's rows cheapest (SQLite's rowid; the primary
	// key id elsewhere).
	RowID() string
	// JSONElements is the FROM item that lists the elements of col, a JSON array in text, as
	// rows of alias with a column value.
	JSONElements(col, alias string) string
	// FixedJoin is the join that keeps the tables in the order written (SQLite's CROSS JOIN,
	// which its planner never reorders; a plain JOIN elsewhere).
	FixedJoin() string
	// PadYear is the SQL expression for the integer expression year as four digits ('2024').
	PadYear(year string) string
	// Values is a FROM item of literal rows named alias, with columns column1, column2, … of
	// the SQL types given ("bigint", "text"), and the arguments that fill it from rows: SQLite's
	// VALUES list (a parameter per value), PostgreSQL's unnest of one array per column (a
	// parameter per column, so the statement's text is the same whatever the rows).
	Values(alias string, types []string, rows [][]any) (string, []any)
	// NoIndex is col kept off its index, where the engine's planner would otherwise walk a
	// large index for a test the primary key answers (SQLite's unary +).
	NoIndex(col string) string
}

// EnqueueFunc writes a transaction's events into the outbox (outbox.Insert, or a test's
// replacement).
type EnqueueFunc func(ctx context.Context, tx *sqlx.Tx, now time.Time, events ...domain.Event) error

// Config is what New needs: the engine's dialect, the pool reads go through, the clock and the
// outbox insert.
type Config struct {
	Dialect Dialect
	Read    *sqlx.DB
	Now     func() time.Time
	Enqueue EnqueueFunc
}

// Store holds the repositories shared by both engines. Each engine's Store embeds it.
type Store struct {
	d      Dialect
	read   *DB
	now    func() time.Time
	insert EnqueueFunc
}

// New returns the shared repositories over c.
func New(c Config) *Store {
	return &Store{d: c.Dialect, read: &DB{db: c.Read, d: c.Dialect}, now: c.Now, insert: c.Enqueue}
}

// write runs fn in the engine's write transaction (Dialect.Write).
func (s *Store) write(ctx context.Context, fn func(*Tx) error) error {
	return s.d.Write(ctx, func(tx *sqlx.Tx) error { return fn(&Tx{tx: tx, d: s.d}) })
}

// writeAlone runs fn in a write transaction of its own (Dialect.WriteAlone).
func (s *Store) writeAlone(ctx context.Context, fn func(*Tx) error) error {
	return s.d.WriteAlone(ctx, func(tx *sqlx.Tx) error { return fn(&Tx{tx: tx, d: s.d}) })
}

// deadlockAttempts bounds how often againOnDeadlock runs a transaction the engine aborted.
const deadlockAttempts = 5

// againOnDeadlock runs fn, a whole write transaction, and runs it again while the engine aborts
// it to break a deadlock, up to deadlockAttempts times in all. The aborted one committed
// nothing. On SQLite it runs fn once.
func (s *Store) againOnDeadlock(fn func() error) error {
	var err error
	for range deadlockAttempts {
		if err = fn(); !s.d.Deadlock(err) {
			break
		}
	}
	return err
}

// enqueue writes a transaction's events stamped with the store's clock: what every repository
// write calls.
func (s *Store) enqueue(ctx context.Context, tx *Tx, events ...domain.Event) error {
	return s.insert(ctx, tx.tx, s.now(), events...)
}

// Enqueue commits events on their own, for requests that change nothing but the outbox (a
// poster sync or a search reindex request).
func (s *Store) Enqueue(ctx context.Context, events ...domain.Event) error {
	return s.writeAlone(ctx, func(tx *Tx) error { return s.enqueue(ctx, tx, events...) })
}

// isUnique reports whether err is a UNIQUE or PRIMARY KEY violation.
func (s *Store) isUnique(err error) bool {
	_, ok := s.d.UniqueViolation(err)
	return ok
}

// lock runs query, a statement that locks rows or keys (SELECT … FOR UPDATE, an advisory lock,
// LOCK TABLE), where writers run concurrently, and nothing on SQLite, whose one writer
// serialises every write transaction: its SQL is PostgreSQL's.
func (s *Store) lock(ctx context.Context, tx *Tx, what, query string, args ...any) error {
	if !s.d.LocksRows() {
		return nil
	}
	if _, err := tx.ExecContext(ctx, query, args...); err != nil {
		return fmt.Errorf("lock %s: %w", what, err)
	}
	return nil
}

// forUpdate is " FOR UPDATE" where the engine locks the rows a write reads, else "".
func (s *Store) forUpdate() string { return s.locking("FOR UPDATE") }

// locking is the locking clause (" FOR UPDATE", " FOR KEY SHARE") where the engine locks the
// rows a write reads, else "".
func (s *Store) locking(clause string) string {
	if s.d.LocksRows() {
		return " " + clause
	}
	return ""
}

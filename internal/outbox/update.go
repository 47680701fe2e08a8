package outbox

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Step names a transition the Lifecycle decided; stores batch the updates of one step.
type Step int

// The row transitions.
const (
	StepDone       Step = iota + 1 // handled: done
	StepHandoff                    // handed to a broker: relayed
	StepReturn                     // handed back unspent: pending at once (or at a consumer's At)
	StepDefer                      // a ledger claim held elsewhere: pending at its expiry, unspent
	StepRetry                      // a failed delivery: an attempt spent, pending after the backoff
	StepDeadLetter                 // given up: dead-lettered
	StepExtend                     // a live claim renewed
)

// Guard is the condition a row must meet when an Update runs: the store's WHERE, so that what
// another worker did meanwhile (a reclaim, a later relay round, a done mark) wins.
type Guard struct {
	In    []Status // status IN In, or with NotIn, NOT IN In
	NotIn bool
	Token int64 // > 0: claimed_at = Token (the owner token)
	Round int   // > 0: relays <= Round (a later relay round has not superseded the copy)
}

// Holds reports whether r meets the guard.
func (g Guard) Holds(r Row) bool {
	return slices.Contains(g.In, r.Status) != g.NotIn &&
		(g.Token == 0 || r.ClaimedAt == g.Token) &&
		(g.Round == 0 || r.Relays <= g.Round)
}

// Set is what an Update writes; zero fields leave their column alone.
type Set struct {
	Status        Status
	ClearClaim    bool  // claimed_at = NULL
	ClaimAt       int64 // > 0: claimed_at = ClaimAt
	AddAttempts   int
	AddRelays     int
	RelaysAtLeast int   // > 0: relays = max(relays, RelaysAtLeast)
	NextAttemptAt int64 // > 0: next_attempt_at = NextAttemptAt
	NextNoEarlier bool  // with NextAttemptAt: never move next_attempt_at earlier
	LastError     *string
	ClearError    bool // last_error = NULL
}

// Update is one conditioned update of a row, as the Lifecycle decides it.
type Update struct {
	Step  Step
	Guard Guard
	Set   Set
	// CountDead: the queue dead-letters the row on its own (a Retry on the last attempt), and
	// counts it for the dead-letter counter when the update applies.
	CountDead bool
}

// Apply is the update on r in memory: the row after it, and whether the guard let it apply.
// It is the model the stores' SQL must agree with.
func (u Update) Apply(r Row) (Row, bool) {
	if !u.Guard.Holds(r) {
		return r, false
	}
	s := u.Set
	if s.Status != "" {
		r.Status = s.Status
	}
	if s.ClearClaim {
		r.ClaimedAt = 0
	}
	if s.ClaimAt > 0 {
		r.ClaimedAt = s.ClaimAt
	}
	r.Attempts += s.AddAttempts
	r.Relays = max(r.Relays+s.AddRelays, s.RelaysAtLeast)
	if s.NextAttemptAt > 0 && (!s.NextNoEarlier || s.NextAttemptAt > r.NextAttemptAt) {
		r.NextAttemptAt = s.NextAttemptAt
	}
	if s.LastError != nil {
		r.LastError = *s.LastError
	}
	if s.ClearError {
		r.LastError = ""
	}
	return r, true
}

// Superseded reports whether an update that did not apply to r lost to a later relay round or a
// done row: the outcome of an earlier copy, which the consumer then drops.
func (u Update) Superseded(r Row) bool {
	return r.Status == Done || (u.Guard.Round > 0 && r.Relays > u.Guard.Round)
}

// SQL is the update as one statement on the row whose key column (id or event_id) equals id,
// written with ? placeholders (rebind them for the engine), in SQL both engines speak, so it
// means the same on both.
func (u Update) SQL(key string, id any) (string, []any) {
	var set []string
	var args []any
	s := u.Set
	if s.Status != "" {
		set, args = append(set, "status = ?"), append(args, string(s.Status))
	}
	switch {
	case s.ClearClaim:
		set = append(set, "claimed_at = NULL")
	case s.ClaimAt > 0:
		set, args = append(set, "claimed_at = ?"), append(args, s.ClaimAt)
	}
	if s.AddAttempts != 0 {
		set, args = append(set, "attempts = attempts + ?"), append(args, s.AddAttempts)
	}
	switch {
	case s.AddRelays != 0:
		set, args = append(set, "relays = relays + ?"), append(args, s.AddRelays)
	case s.RelaysAtLeast > 0:
		set, args = append(set, "relays = CASE WHEN relays < ? THEN ? ELSE relays END"), append(args, s.RelaysAtLeast, s.RelaysAtLeast)
	}
	switch {
	case s.NextAttemptAt > 0 && s.NextNoEarlier:
		set = append(set, "next_attempt_at = CASE WHEN next_attempt_at < ? THEN ? ELSE next_attempt_at END")
		args = append(args, s.NextAttemptAt, s.NextAttemptAt)
	case s.NextAttemptAt > 0:
		set, args = append(set, "next_attempt_at = ?"), append(args, s.NextAttemptAt)
	}
	switch {
	case s.ClearError:
		set = append(set, "last_error = NULL")
	case s.LastError != nil:
		set, args = append(set, "last_error = ?"), append(args, *s.LastError)
	}
	where, wargs := u.Guard.SQL("")
	return "UPDATE event_queue SET " + strings.Join(set, ", ") + " WHERE " + key + " = ? AND " + where,
		append(append(args, id), wargs...)
}

// SQL is the guard as a condition on the columns of the table named by qual ("" or "e."), with
// ? placeholders.
func (g Guard) SQL(qual string) (string, []any) {
	var conds []string
	var args []any
	in := make([]string, len(g.In))
	for i, s := range g.In {
		in[i], args = "?", append(args, string(s))
	}
	op := " IN ("
	if g.NotIn {
		op = " NOT IN ("
	}
	conds = append(conds, qual+"status"+op+strings.Join(in, ", ")+")")
	if g.Token > 0 {
		conds, args = append(conds, qual+"claimed_at = ?"), append(args, g.Token)
	}
	if g.Round > 0 {
		conds, args = append(conds, qual+"relays <= ?"), append(args, g.Round)
	}
	return strings.Join(conds, " AND "), args
}

// Execer runs statements written with ? placeholders in a transaction, rebinding them to its
// engine's (sqlstore.Tx).
type Execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	GetContext(ctx context.Context, dest any, query string, args ...any) error
}

// Exec runs the update on the row whose key column equals id inside tx and reports whether it
// applied; with superseded non-nil it also reports, when it did not, whether the row is done or
// owned by a later round (no row at all is not superseded).
func (u Update) Exec(ctx context.Context, tx Execer, key string, id any, superseded *bool) (bool, error) {
	q, args := u.SQL(key, id)
	res, err := tx.ExecContext(ctx, q, args...)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	if err != nil || n > 0 || superseded == nil {
		return n > 0, err
	}
	var r struct {
		Status string `db:"status"`
		Relays int    `db:"relays"`
	}
	err = tx.GetContext(ctx, &r, `SELECT status, relays FROM event_queue WHERE `+key+` = ?`, id)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read superseded row: %w", err)
	}
	*superseded = u.Superseded(Row{Status: Status(r.Status), Relays: r.Relays})
	return false, nil
}

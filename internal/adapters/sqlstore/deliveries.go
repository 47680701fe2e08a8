package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/federation"
)

// The delivery lane's queue and the remote hosts' health (migration 0240,
// docs/adr/0005-federation-delivery.md). Handoffs and outcomes, one per delivery, go through the
// engine's grouped write (SQLite commits concurrent ones together): a fan-out to thousands of
// inboxes must not cost a commit each. Every write to a claimed delivery is conditioned on
// its claim (status sending, claimed_until its token), so a delivery another lane took over
// after this one's lease is left to it.

var _ federation.Deliveries = (*Store)(nil)

// HandOff queues d once (by its delivery id), parked when its host is unavailable. Its order
// among the inbox's activities about one object is its publication's (ap_activities), or now.
func (s *Store) HandOff(ctx context.Context, d federation.QueuedDelivery, now time.Time) error {
	host := federation.HostOf(d.Inbox)
	at := sqlrow.Millis(now)
	err := s.write(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO federation_deliveries (delivery_id, host, inbox, object_key, seq,
				activity, signing_actor_id, status, next_attempt_at, created_at)
			SELECT CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), `+s.d.IfNull("a.object_id", "CAST(? AS TEXT)")+`,
				`+s.d.IfNull("a.created_at", "CAST(? AS BIGINT)")+`, CAST(? AS TEXT), CAST(? AS TEXT),
				CASE WHEN EXISTS (SELECT 1 FROM federation_hosts h WHERE h.host = ? AND h.state = 'unavailable')
					THEN 'parked' ELSE 'pending' END, CAST(? AS BIGINT), CAST(? AS BIGINT)
			FROM (SELECT 1 AS one) AS one LEFT JOIN ap_activities a ON a.id = ?
			WHERE true
			ON CONFLICT (delivery_id) DO NOTHING`,
			d.DeliveryID, host, d.Inbox, d.ObjectKey, at, string(d.Activity), d.Signer.String(), host, at, at, d.ActivityID)
		return err
	})
	if err != nil {
		return fmt.Errorf("hand off delivery %s: %w", d.DeliveryID, err)
	}
	return nil
}

// queueDeliveries writes a publication's deliveries into the lane's queue inside the
// publishing transaction (Publication.Direct): pending, or parked where the host is
// unavailable, ordered among the inbox's activities about the object by the publication's
// stamp (kept from the first publication when this is a replay).
func (s *Store) queueDeliveries(ctx context.Context, tx *Tx, p domain.Publication) error {
	rows := make([][]any, 0, len(p.Deliveries))
	for _, d := range p.Deliveries {
		rows = append(rows, []any{d.EventID.String(), federation.HostOf(d.Event.InboxURL), d.Event.InboxURL})
	}
	var seq int64
	if err := tx.GetContext(ctx, &seq, `SELECT created_at FROM ap_activities WHERE id = ?`, p.ActivityID); err != nil {
		return fmt.Errorf("read the publication's stamp: %w", err)
	}
	at := sqlrow.Millis(s.now())
	for part := range slices.Chunk(rows, chunk) {
		from, args := s.d.Values("v", []string{"text", "text", "text"}, part)
		_, err := tx.ExecContext(ctx, `INSERT INTO federation_deliveries (delivery_id, host, inbox, object_key, seq,
				activity, signing_actor_id, status, next_attempt_at, created_at)
			SELECT v.column1, v.column2, v.column3, CAST(? AS TEXT), CAST(? AS BIGINT), CAST(? AS TEXT), CAST(? AS TEXT),
				CASE WHEN h.state = 'unavailable' THEN 'parked' ELSE 'pending' END, CAST(? AS BIGINT), CAST(? AS BIGINT)
			FROM `+from+` LEFT JOIN federation_hosts h ON h.host = v.column2
			WHERE true
			ON CONFLICT (delivery_id) DO NOTHING`,
			append([]any{p.ObjectID, seq, string(p.Activity), p.ActorID.String(), at, at}, args...)...)
		if err != nil {
			return fmt.Errorf("queue deliveries: %w", err)
		}
	}
	return nil
}

// ClaimDeliveries takes what c allows, earliest due first: pending deliveries that are due, and
// sending ones whose lease ended (their lane died: sent again, which the remote's dedup by
// activity id absorbs), of hosts available or at the end of their cool-off, each the first
// unfinished delivery of its inbox and object, at most c.PerHost per host in flight with those
// already sending, and one while the host's last attempt failed (a failing host is probed one
// delivery at a time); failing hosts come after healthy ones and take at most c.MaxFailing
// slots in all, so black holes cannot fill the lane. Claims by lanes
// on other hosts re-check the row's state as they update it, so no delivery is taken twice.
func (s *Store) ClaimDeliveries(ctx context.Context, c federation.DeliveryClaim) ([]federation.ClaimedDelivery, error) {
	now, until := sqlrow.Millis(c.Now), sqlrow.Millis(c.Until)
	var rows []struct {
		ID           int64          `db:"id"`
		DeliveryID   string         `db:"delivery_id"`
		Host         string         `db:"host"`
		Inbox        string         `db:"inbox"`
		Activity     string         `db:"activity"`
		Signer       string         `db:"signing_actor_id"`
		Attempts     int            `db:"attempts"`
		FirstFailure sql.NullInt64  `db:"first_failure_at"`
		LastError    sql.NullString `db:"last_error"`
	}
	// The choice ranks due deliveries (per host, ordered per inbox and object), so it runs on the
	// read pool: on SQLite it must not hold the one writer local work shares. The update then
	// takes only what is still claimable, so a delivery another lane took between the two is
	// left to it (and two lanes' choices can exceed a host's limit by one claim at most: a
	// politeness bound, not a rule). The earliest due deliveries of hosts that may be tried are ranked first (a window through
	// the due index, cheap whatever the backlog); only when they do not fill the claim (the
	// window held mostly deliveries of busy or failing hosts, or waiting behind an earlier
	// activity) is the whole due set ranked, as exactness then needs.
	ids, err := s.chooseDeliveries(ctx, c, max(8*c.Max, 256))
	if err == nil && len(ids) < c.Max {
		ids, err = s.chooseDeliveries(ctx, c, 0)
	}
	if err != nil {
		return nil, fmt.Errorf("claim deliveries: %w", err)
	}
	if len(ids) == 0 {
		return nil, nil
	}
	in := strings.TrimSuffix(strings.Repeat("?, ", len(ids)), ", ")
	args := []any{until}
	for _, id := range ids {
		args = append(args, id)
	}
	args = append(args, now, now)
	err = s.writeAlone(ctx, func(tx *Tx) error {
		rows = rows[:0]
		return tx.SelectContext(ctx, &rows, `UPDATE federation_deliveries SET status = 'sending', claimed_until = ?
			WHERE id IN (`+in+`)
				AND ((status = 'pending' AND next_attempt_at <= ?) OR (status = 'sending' AND claimed_until <= ?))
			RETURNING id, delivery_id, host, inbox, activity, signing_actor_id, attempts, first_failure_at, last_error`, args...)
	})
	if err != nil {
		return nil, fmt.Errorf("claim deliveries: %w", err)
	}
	out := make([]federation.ClaimedDelivery, 0, len(rows))
	for _, r := range rows {
		signer, err := uuid.Parse(r.Signer)
		if err != nil {
			return nil, fmt.Errorf("claim deliveries: delivery %s: signer %q: %w", r.DeliveryID, r.Signer, err)
		}
		d := federation.ClaimedDelivery{ID: r.ID, DeliveryID: r.DeliveryID, Host: r.Host, Inbox: r.Inbox,
			Activity: []byte(r.Activity), Signer: signer, Attempts: r.Attempts, Token: until}
		if r.FirstFailure.Valid {
			d.FirstFailure = time.UnixMilli(r.FirstFailure.Int64)
		}
		out = append(out, d)
	}
	return out, nil
}

// chooseDeliveries ranks due deliveries for a claim: the first window of them in due order, or
// with window 0 all of them (pending and due, or sending past their lease).
func (s *Store) chooseDeliveries(ctx context.Context, c federation.DeliveryClaim, window int) ([]int64, error) {
	now := sqlrow.Millis(c.Now)
	failing := `(` + s.d.IfNull("h.failures", "0") + ` > 0)`
	hostMayTry := `(h.host IS NULL OR h.state = 'available' OR (h.state = 'open' AND h.open_until <= ?))`
	source, where := `federation_deliveries d LEFT JOIN federation_hosts h ON h.host = d.host LEFT JOIN busy b ON b.host = d.host`,
		`((d.status = 'pending' AND d.next_attempt_at <= ?) OR (d.status = 'sending' AND d.claimed_until <= ?)) AND `+hostMayTry+` AND `
	// busy counts each host's deliveries in flight once (a few dozen rows), not per due row.
	with := `WITH busy AS (
			SELECT host, count(*) AS n FROM federation_deliveries
			WHERE status = 'sending' AND claimed_until > ? GROUP BY host
		)`
	args := []any{now, now, now, now}
	if window > 0 {
		// Two windows: healthy hosts' deliveries, and failing hosts' (which may have one in
		// flight each and a few in all), so the failing ones' backlog cannot fill the first.
		pick := `SELECT d.id, d.host, d.inbox, d.object_key, d.seq, d.next_attempt_at
			FROM federation_deliveries d LEFT JOIN federation_hosts h ON h.host = d.host
			WHERE d.status = 'pending' AND d.next_attempt_at <= ? AND `
		with += `, cand AS (
			SELECT * FROM (` + pick + `(h.host IS NULL OR (h.state = 'available' AND h.failures = 0))
				ORDER BY d.next_attempt_at, d.id LIMIT ?) AS healthy
			UNION ALL
			SELECT * FROM (` + pick + `h.failures > 0 AND ` + hostMayTry + `
				ORDER BY d.next_attempt_at, d.id LIMIT ?) AS failing
		)`
		source, where = `cand d LEFT JOIN federation_hosts h ON h.host = d.host LEFT JOIN busy b ON b.host = d.host`, ``
		args = []any{now, now, window, now, now, window}
	}
	var ids []int64
	err := s.read.SelectContext(ctx, &ids, with+`
		SELECT id FROM (
			SELECT d.id, d.next_attempt_at,
				row_number() OVER (PARTITION BY d.host ORDER BY d.next_attempt_at, d.id) AS n,
				row_number() OVER (PARTITION BY `+failing+` ORDER BY d.next_attempt_at, d.id) AS k,
				`+s.d.IfNull("b.n", "0")+` AS busy,
				`+s.d.IfNull("h.failures", "0")+` AS failures
			FROM `+source+`
			WHERE `+where+`NOT EXISTS (SELECT 1 FROM federation_deliveries e
					WHERE e.inbox = d.inbox AND e.object_key = d.object_key AND d.object_key <> ''
						AND e.status IN ('pending', 'sending', 'parked') AND (e.seq < d.seq OR (e.seq = d.seq AND e.id < d.id)))
		) AS c
		WHERE c.n + c.busy <= CASE WHEN c.failures > 0 THEN 1 ELSE ? END
			AND (c.failures = 0 OR c.k + (SELECT count(*) FROM federation_deliveries x JOIN federation_hosts hx ON hx.host = x.host
				WHERE x.status = 'sending' AND x.claimed_until > ? AND hx.failures > 0) <= ?)
		ORDER BY c.failures > 0, c.next_attempt_at, c.id LIMIT ?`,
		append(args, c.PerHost, now, max(c.MaxFailing, 1), c.Max)...)
	return ids, err
}

// Delivered marks d done and its host alive.
func (s *Store) Delivered(ctx context.Context, d federation.ClaimedDelivery, now time.Time) error {
	at := sqlrow.Millis(now)
	err := s.write(ctx, func(tx *Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE federation_deliveries SET status = 'done', claimed_until = NULL,
				finished_at = ?, last_error = NULL
			WHERE id = ? AND status = 'sending' AND claimed_until = ?`, at, d.ID, d.Token); err != nil {
			return err
		}
		return s.hostAlive(ctx, tx, d.Host, at, true)
	})
	if err != nil {
		return fmt.Errorf("record delivery %s: %w", d.DeliveryID, err)
	}
	return nil
}

// HostAlive marks host available with no failures (an activity came from it, or an operator
// said so) and makes its parked deliveries due now. A host never failed is left alone.
func (s *Store) HostAlive(ctx context.Context, host string, now time.Time) error {
	// Most calls are for hosts that never failed (every inbound activity makes one): a read
	// answers them without taking the writer.
	var state sql.NullString
	if err := s.read.GetContext(ctx, &state, `SELECT state FROM federation_hosts WHERE host = ?`, host); err != nil &&
		!errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("host %s alive: %w", host, err)
	}
	if !state.Valid || state.String == string(federation.HostAvailable) {
		return nil
	}
	err := s.writeAlone(ctx, func(tx *Tx) error { return s.hostAlive(ctx, tx, host, sqlrow.Millis(now), false) })
	if err != nil {
		return fmt.Errorf("host %s alive: %w", host, err)
	}
	return nil
}

// hostAlive records host as answering at ms (delivered: a delivery succeeded, which also
// stamps last_success_at) and, if it was failing, releases what waited for it.
func (s *Store) hostAlive(ctx context.Context, tx *Tx, host string, at int64, delivered bool) error {
	var state sql.NullString
	if err := tx.GetContext(ctx, &state, `SELECT state FROM federation_hosts WHERE host = ?`, host); err != nil &&
		!errors.Is(err, sql.ErrNoRows) {
		return err
	}
	switch {
	case !state.Valid && delivered:
		_, err := tx.ExecContext(ctx, `INSERT INTO federation_hosts (host, state, failures, last_success_at)
			VALUES (?, 'available', 0, ?) ON CONFLICT (host) DO UPDATE SET last_success_at = excluded.last_success_at`, host, at)
		return err
	case !state.Valid:
		return nil
	}
	success := "last_success_at"
	if delivered {
		success = "?"
	}
	args := []any{}
	if delivered {
		args = append(args, at)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE federation_hosts SET state = 'available', failures = 0, failing_since = NULL,
			open_until = NULL, next_probe_at = NULL, last_success_at = `+success+` WHERE host = ?`, append(args, host)...); err != nil {
		return err
	}
	if state.String != string(federation.HostAvailable) {
		if _, err := tx.ExecContext(ctx, `UPDATE federation_deliveries SET status = 'pending', next_attempt_at = ?
			WHERE host = ? AND status = 'parked'`, at, host); err != nil {
			return err
		}
		// What waited out the circuit is due now too.
		if _, err := tx.ExecContext(ctx, `UPDATE federation_deliveries SET next_attempt_at = ?
			WHERE host = ? AND status = 'pending' AND next_attempt_at > ?`, at, host, at); err != nil {
			return err
		}
	}
	return nil
}

// DeliveryFailed counts the failure against the delivery's host, applies f.Decide to the host's
// record and the delivery, and parks every pending delivery of a host that became unavailable.
// A refused delivery (never attempted) is dead-lettered with the host's record left alone.
func (s *Store) DeliveryFailed(ctx context.Context, f federation.DeliveryFailure) (federation.HostHealth, error) {
	d, at := f.Delivery, sqlrow.Millis(f.Now)
	var out federation.HostHealth
	err := s.write(ctx, func(tx *Tx) error {
		if f.Refused {
			_, err := tx.ExecContext(ctx, `UPDATE federation_deliveries SET status = 'dead', finished_at = ?, claimed_until = NULL,
					last_error = ? WHERE id = ? AND status = 'sending' AND claimed_until = ?`,
				at, ErrorText(errors.New(f.Error)), d.ID, d.Token)
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO federation_hosts (host, state, failures, failing_since, last_failure_at, last_error)
			VALUES (?, 'available', 1, ?, ?, ?)
			ON CONFLICT (host) DO UPDATE SET failures = federation_hosts.failures + 1,
				failing_since = `+s.d.IfNull("federation_hosts.failing_since", "excluded.failing_since")+`,
				last_failure_at = excluded.last_failure_at, last_error = excluded.last_error`,
			d.Host, at, at, ErrorText(errors.New(f.Error))); err != nil {
			return err
		}
		h, err := readHost(ctx, tx, d.Host)
		if err != nil {
			return err
		}
		was := h.State
		h, step := f.Decide(h)
		out = h
		if _, err := tx.ExecContext(ctx, `UPDATE federation_hosts SET state = ?, open_until = ?, next_probe_at = ? WHERE host = ?`,
			string(h.State), millisOrNull(h.OpenUntil), millisOrNull(h.NextProbeAt), d.Host); err != nil {
			return err
		}
		set := `status = 'pending', next_attempt_at = ?`
		args := []any{sqlrow.Millis(f.Retry)}
		switch step {
		case federation.StepPark:
			set, args = `status = 'parked'`, nil
		case federation.StepDead:
			set, args = `status = 'dead', finished_at = ?`, []any{at}
		}
		args = append(args, at, ErrorText(errors.New(f.Error)), d.ID, d.Token)
		if _, err := tx.ExecContext(ctx, `UPDATE federation_deliveries SET `+set+`, claimed_until = NULL,
				attempts = attempts + 1, first_failure_at = `+s.d.IfNull("first_failure_at", "?")+`, last_error = ?
			WHERE id = ? AND status = 'sending' AND claimed_until = ?`, args...); err != nil {
			return err
		}
		if h.State == federation.HostUnavailable && was != federation.HostUnavailable {
			if _, err := tx.ExecContext(ctx, `UPDATE federation_deliveries SET status = 'parked'
				WHERE host = ? AND status = 'pending'`, d.Host); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return out, fmt.Errorf("record failed delivery %s: %w", d.DeliveryID, err)
	}
	return out, nil
}

// hostRow is a federation_hosts row.
type hostRow struct {
	Host          string         `db:"host"`
	State         string         `db:"state"`
	Failures      int            `db:"failures"`
	FailingSince  sql.NullInt64  `db:"failing_since"`
	OpenUntil     sql.NullInt64  `db:"open_until"`
	NextProbeAt   sql.NullInt64  `db:"next_probe_at"`
	LastSuccessAt sql.NullInt64  `db:"last_success_at"`
	LastFailureAt sql.NullInt64  `db:"last_failure_at"`
	LastError     sql.NullString `db:"last_error"`
	Waiting       int            `db:"waiting"`
}

const hostColumns = `host, state, failures, failing_since, open_until, next_probe_at, last_success_at, last_failure_at, last_error`

func (r hostRow) health() federation.HostHealth {
	t := func(n sql.NullInt64) time.Time {
		if !n.Valid {
			return time.Time{}
		}
		return time.UnixMilli(n.Int64)
	}
	return federation.HostHealth{Host: r.Host, State: federation.HostState(r.State), Failures: r.Failures,
		FailingSince: t(r.FailingSince), OpenUntil: t(r.OpenUntil), NextProbeAt: t(r.NextProbeAt),
		LastSuccessAt: t(r.LastSuccessAt), LastFailureAt: t(r.LastFailureAt), LastError: r.LastError.String, Waiting: r.Waiting}
}

func readHost(ctx context.Context, tx *Tx, host string) (federation.HostHealth, error) {
	var r hostRow
	if err := tx.GetContext(ctx, &r, `SELECT `+hostColumns+`, 0 AS waiting FROM federation_hosts WHERE host = ?`, host); err != nil {
		return federation.HostHealth{}, err
	}
	return r.health(), nil
}

// millisOrNull is t in Unix ms, or NULL when zero.
func millisOrNull(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return sqlrow.Millis(t)
}

// Housekeep probes each unavailable host whose probe is due: its circuit half-opens (the claim
// lets one delivery at a time through) and its oldest parked delivery becomes due now. It also
// dead-letters deliveries parked since parkedBefore and deletes those done before doneBefore
// and dead-lettered before deadBefore.
func (s *Store) Housekeep(ctx context.Context, now, nextProbe, parkedBefore, doneBefore, deadBefore time.Time) error {
	at := sqlrow.Millis(now)
	err := s.writeAlone(ctx, func(tx *Tx) error {
		var hosts []string
		if err := tx.SelectContext(ctx, &hosts, `SELECT host FROM federation_hosts
			WHERE state = 'unavailable' AND next_probe_at <= ?`, at); err != nil {
			return err
		}
		for _, h := range hosts {
			if _, err := tx.ExecContext(ctx, `UPDATE federation_hosts SET state = 'open', open_until = ?, next_probe_at = ?
				WHERE host = ?`, at, sqlrow.Millis(nextProbe), h); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `UPDATE federation_deliveries SET status = 'pending', next_attempt_at = ?
				WHERE id = (SELECT id FROM federation_deliveries WHERE host = ? AND status = 'parked' ORDER BY seq, id LIMIT 1)`,
				at, h); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE federation_deliveries SET status = 'dead', finished_at = ?,
				last_error = 'dead-lettered: parked for too long (its host stayed unavailable)'
			WHERE status = 'parked' AND created_at <= ?`, at, sqlrow.Millis(parkedBefore)); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM federation_deliveries
			WHERE (status = 'done' AND finished_at < ?) OR (status = 'dead' AND finished_at < ?)`,
			sqlrow.Millis(doneBefore), sqlrow.Millis(deadBefore))
		return err
	})
	if err != nil {
		return fmt.Errorf("federation housekeeping: %w", err)
	}
	return nil
}

// NextDue is when the earliest pending delivery is due.
func (s *Store) NextDue(ctx context.Context) (time.Time, bool, error) {
	var next sql.NullInt64
	if err := s.read.GetContext(ctx, &next, `SELECT min(next_attempt_at) FROM federation_deliveries WHERE status = 'pending'`); err != nil {
		return time.Time{}, false, fmt.Errorf("next due delivery: %w", err)
	}
	if !next.Valid {
		return time.Time{}, false, nil
	}
	return time.UnixMilli(next.Int64), true, nil
}

// DropGoneInbox ends the follows of local users by the remote actors whose own inbox is inbox
// (a shared inbox answering 410 says nothing of one actor).
func (s *Store) DropGoneInbox(ctx context.Context, inbox string) (int, error) {
	var n int64
	err := s.writeAlone(ctx, func(tx *Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM follows WHERE follower_kind = 'remote'
			AND follower_id IN (SELECT url FROM remote_actors WHERE inbox = ?)`, inbox)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("drop followers of gone inbox %s: %w", inbox, err)
	}
	return int(n), nil
}

// FederationHosts lists the hosts the lane keeps health for, failing ones first, each with its
// deliveries waiting (pending, sending or parked).
func (s *Store) FederationHosts(ctx context.Context) ([]federation.HostHealth, error) {
	var rows []hostRow
	if err := s.read.SelectContext(ctx, &rows, `SELECT `+hostColumns+`,
			(SELECT count(*) FROM federation_deliveries d WHERE d.host = h.host AND d.status IN ('pending', 'sending', 'parked')) AS waiting
		FROM federation_hosts h ORDER BY state = 'available', failures DESC, host`); err != nil {
		return nil, fmt.Errorf("list federation hosts: %w", err)
	}
	out := make([]federation.HostHealth, len(rows))
	for i, r := range rows {
		out[i] = r.health()
	}
	return out, nil
}

// DeliveryCounts counts the deliveries by status (done ones kept for a week), for metrics.
func (s *Store) DeliveryCounts(ctx context.Context) (map[string]int, error) {
	var rows []struct {
		Status string `db:"status"`
		N      int    `db:"n"`
	}
	if err := s.read.SelectContext(ctx, &rows, `SELECT status, count(*) AS n FROM federation_deliveries GROUP BY status`); err != nil {
		return nil, fmt.Errorf("count deliveries: %w", err)
	}
	out := map[string]int{}
	for _, r := range rows {
		out[r.Status] = r.N
	}
	return out, nil
}

// ForgetHost drops a host's health record and dead-letters its waiting deliveries (an operator
// gave up on it); it reports how many deliveries it ended. A host with neither is
// domain.ErrNotFound.
func (s *Store) ForgetHost(ctx context.Context, host string, now time.Time) (int, error) {
	var n int64
	err := s.writeAlone(ctx, func(tx *Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE federation_deliveries SET status = 'dead', finished_at = ?, claimed_until = NULL,
				last_error = 'dead-lettered: its host was forgotten by an operator'
			WHERE host = ? AND status IN ('pending', 'sending', 'parked')`, sqlrow.Millis(now), host)
		if err != nil {
			return err
		}
		if n, err = res.RowsAffected(); err != nil {
			return err
		}
		res, err = tx.ExecContext(ctx, `DELETE FROM federation_hosts WHERE host = ?`, host)
		if err != nil {
			return err
		}
		if known, _ := res.RowsAffected(); known == 0 && n == 0 {
			return domain.NotFound("no federation host %q (see worker federation hosts)", host)
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("forget host %s: %w", host, err)
	}
	return int(n), nil
}

// RetryHostNow makes every delivery waiting for host due now (an operator knows it is back):
// the host is marked available with its failures cleared, and its parked and pending
// deliveries go at once. It reports how many deliveries it made due; an unknown host is
// domain.ErrNotFound.
func (s *Store) RetryHostNow(ctx context.Context, host string, now time.Time) (int, error) {
	at := sqlrow.Millis(now)
	var n int64
	err := s.writeAlone(ctx, func(tx *Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE federation_hosts SET state = 'available', failures = 0, failing_since = NULL,
			open_until = NULL, next_probe_at = NULL WHERE host = ?`, host)
		if err != nil {
			return err
		}
		if found, _ := res.RowsAffected(); found == 0 {
			return domain.NotFound("no federation host %q (see worker federation hosts)", host)
		}
		res, err = tx.ExecContext(ctx, `UPDATE federation_deliveries SET status = 'pending', next_attempt_at = ?
			WHERE host = ? AND status IN ('pending', 'parked')`, at, host)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("retry host %s now: %w", host, err)
	}
	return int(n), nil
}

package sqlstore

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/integration"
)

func watchEventWhere(ctx context.Context, q Queryer, where string, args ...any) (domain.WatchEvent, error) {
	var row sqlrow.WatchEvent
	if err := sqlx.GetContext(ctx, q, &row, `SELECT `+sqlrow.WatchEventColumns+` FROM watch_events WHERE `+where, args...); err != nil {
		return domain.WatchEvent{}, sqlrow.NotFound(err, "Entity not found: watch event")
	}
	return row.WatchEvent()
}

// SaveWatch stores a watch event with WatchEventIngested, in one transaction, unless the user
// already has one of the same movie (its dedup key) watched at or after since. With confirm
// set, the event is stored confirmed and the review logged with it as LogReview logs one: its
// movie if new, the watchlist removal, and their events. The same watch reported to several
// servers at once is one event: the check and the insert run under a transaction-level
// advisory lock on the user and the dedup key.
func (s *Store) SaveWatch(ctx context.Context, ev domain.WatchEvent, since time.Time, confirm *integration.Confirmed) (bool, error) {
	saved := false
	err := s.write(ctx, func(tx *Tx) error {
		saved = false
		key := ev.DedupKey()
		if err := s.lock(ctx, tx, "watch", `SELECT pg_advisory_xact_lock(hashtextextended(?, 0))`,
			"watch "+ev.UserID.String()+" "+key); err != nil {
			return err
		}
		var dup bool
		err := tx.GetContext(ctx, &dup, `SELECT EXISTS (SELECT 1 FROM watch_events WHERE user_id = ? AND dedup_key = ?
			AND watched_at >= ?)`, ev.UserID.String(), key, sqlrow.Millis(since))
		if err != nil {
			return fmt.Errorf("find repeated watch: %w", err)
		}
		if dup {
			return nil
		}
		events := []domain.Event{domain.WatchEventIngested{UserID: ev.UserID, Title: ev.Title, Source: string(ev.Source)}}
		if confirm != nil {
			r := confirm.Review
			movie, logged, err := s.logReview(ctx, tx, &r, confirm.Movie)
			if err != nil {
				return err
			}
			ev.MovieID, ev.ReviewID = &movie.ID, &r.ID
			events = append(events, logged...)
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO watch_events (id, user_id, source, title, year, external_id, movie_id,
			dedup_key, status, review_id, watched_at, closed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			ev.ID.String(), ev.UserID.String(), string(ev.Source), ev.Title, sqlrow.NullOf(ev.Year), sqlrow.NullString(ev.ExternalID),
			sqlrow.UUIDValue(ev.MovieID), key, string(ev.Status), sqlrow.UUIDValue(ev.ReviewID), sqlrow.Millis(ev.WatchedAt), sqlrow.TimeValue(ev.ClosedAt))
		if err != nil {
			return fmt.Errorf("insert watch event: %w", err)
		}
		saved = true
		return s.enqueue(ctx, tx, events...)
	})
	if err != nil {
		return false, fmt.Errorf("save watch: %w", err)
	}
	return saved, nil
}

// WatchEvent returns a watch event.
func (s *Store) WatchEvent(ctx context.Context, id uuid.UUID) (domain.WatchEvent, error) {
	return watchEventWhere(ctx, s.read, `id = ?`, id.String())
}

// PendingWatches is a user's watch queue, oldest first.
func (s *Store) PendingWatches(ctx context.Context, userID uuid.UUID) ([]domain.WatchEvent, error) {
	var rows []sqlrow.WatchEvent
	err := s.read.SelectContext(ctx, &rows, `SELECT `+sqlrow.WatchEventColumns+` FROM watch_events
		WHERE user_id = ? AND status = 'pending' ORDER BY watched_at, id`, userID.String())
	if err != nil {
		return nil, fmt.Errorf("list watch queue: %w", err)
	}
	out, err := sqlrow.MapRows(rows, sqlrow.WatchEvent.WatchEvent)
	if out == nil {
		out = []domain.WatchEvent{}
	}
	return out, err
}

// PendingWatchCount is how many watches wait in a user's queue (idx_watch_events_queue).
func (s *Store) PendingWatchCount(ctx context.Context, userID uuid.UUID) (int, error) {
	var n int
	err := s.read.GetContext(ctx, &n, `SELECT COUNT(*) FROM watch_events WHERE user_id = ? AND status = 'pending'`, userID.String())
	if err != nil {
		return 0, fmt.Errorf("count watch queue: %w", err)
	}
	return n, nil
}

// ConfirmWatches logs each review and closes its watch event as confirmed, with every review's
// events, in one transaction. Each event is read FOR UPDATE and checked again inside it (still
// the user's, still pending), so two confirmations racing on any hosts cannot both log a review.
func (s *Store) ConfirmWatches(ctx context.Context, userID uuid.UUID, at time.Time, cs []integration.Confirmed) error {
	err := s.write(ctx, func(tx *Tx) error {
		var events []domain.Event
		for _, c := range cs {
			ev, err := watchEventWhere(ctx, tx, `id = ?`+s.forUpdate(), c.EventID.String())
			if err != nil {
				return err
			}
			if err := ev.OpenTo(userID); err != nil {
				return err
			}
			r := c.Review
			movie, logged, err := s.logReview(ctx, tx, &r, c.Movie)
			if err != nil {
				return err
			}
			_, err = tx.ExecContext(ctx, `UPDATE watch_events SET status = 'confirmed', review_id = ?, movie_id = ?,
				closed_at = ? WHERE id = ?`, r.ID.String(), movie.ID.String(), sqlrow.Millis(at), ev.ID.String())
			if err != nil {
				return fmt.Errorf("close watch event: %w", err)
			}
			events = append(events, logged...)
		}
		return s.enqueue(ctx, tx, events...)
	})
	if err != nil {
		return fmt.Errorf("confirm watches: %w", err)
	}
	return nil
}

// DismissWatches closes the user's pending events among ids as dismissed. Every id must exist
// and be the user's, else nothing changes. No event: nothing outside the database reacts to a
// dismissal.
func (s *Store) DismissWatches(ctx context.Context, userID uuid.UUID, ids []uuid.UUID, at time.Time) (int, error) {
	var n int64
	err := s.write(ctx, func(tx *Tx) error {
		args := make([]any, len(ids))
		for i, id := range ids {
			args[i] = id.String()
		}
		// The owners are read FOR UPDATE: a confirmation of the same events waits, or is waited for.
		var owners []sqlrow.WatchOwner
		if err := tx.SelectContext(ctx, &owners, `SELECT id, user_id FROM watch_events WHERE id IN (`+placeholders(len(ids))+`)`+
			s.forUpdate(), args...); err != nil {
			return fmt.Errorf("read watch events: %w", err)
		}
		if err := sqlrow.CheckWatchOwners(owners, userID, ids); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE watch_events SET status = 'dismissed', closed_at = ?
			WHERE status = 'pending' AND user_id = ? AND id IN (`+placeholders(len(ids))+`)`, append([]any{sqlrow.Millis(at), userID.String()}, args...)...)
		if err != nil {
			return fmt.Errorf("dismiss watch events: %w", err)
		}
		n, _ = res.RowsAffected()
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("dismiss watches: %w", err)
	}
	return int(n), nil
}

// PurgeWatchEvents deletes watch events closed before closedBefore and pending ones watched
// before pendingBefore, and returns how many it deleted. No event: nothing outside the database
// refers to a watch event (a confirmed one's review stays).
func (s *Store) PurgeWatchEvents(ctx context.Context, closedBefore, pendingBefore time.Time) (int64, error) {
	var n int64
	err := s.write(ctx, func(tx *Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM watch_events WHERE (closed_at IS NOT NULL AND closed_at < ?)
			OR (status = 'pending' AND watched_at < ?)`, sqlrow.Millis(closedBefore), sqlrow.Millis(pendingBefore))
		if err != nil {
			return fmt.Errorf("purge watch events: %w", err)
		}
		n, _ = res.RowsAffected()
		return nil
	})
	return n, err
}

// placeholders is n parameters: "?, ?, ?".
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/domain"
)

// AddRemoteFollower records a remote actor's request to follow a local user (pending until the
// user accepts) and the Follow's id, which the Accept or Reject will reference. A follow that
// exists is left as it is; a user who blocked the actor refuses (KindForbidden).
func (s *Store) AddRemoteFollower(ctx context.Context, user uuid.UUID, actorURL, followID, userActorURL string) error {
	return s.writeWithEvents(ctx, "remote follow", func(tx *sqlx.Tx) ([]domain.Event, error) {
		var blocked bool
		err := tx.GetContext(ctx, &blocked, `SELECT EXISTS (SELECT 1 FROM blocks WHERE blocker_id = ? AND target_kind = 'remote'
			AND target_id = ?)`, user.String(), actorURL)
		if err != nil {
			return nil, err
		}
		if blocked {
			return nil, domain.Forbidden("the user blocked this actor")
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO follows (follower_kind, follower_id, target_kind, target_id, status)
			VALUES ('remote', ?, 'local', ?, 'pending') ON CONFLICT DO NOTHING`, actorURL, user.String()); err != nil {
			return nil, err
		}
		return nil, saveRelation(ctx, tx, domain.Relation{Type: "Follow", Actor: actorURL, Object: userActorURL, ActivityID: followID})
	})
}

// RemoveRemoteFollower deletes a remote actor's follow of a local user (the actor sent
// Undo(Follow)); a missing one is no error.
func (s *Store) RemoveRemoteFollower(ctx context.Context, user uuid.UUID, actorURL string) error {
	return s.writeWithEvents(ctx, "undo remote follow", func(tx *sqlx.Tx) ([]domain.Event, error) {
		_, err := tx.ExecContext(ctx, `DELETE FROM follows WHERE follower_kind = 'remote' AND follower_id = ?
			AND target_kind = 'local' AND target_id = ?`, actorURL, user.String())
		return nil, err
	})
}

// FollowAnswered applies a remote actor's answer to a local user's follow: accepted, the follow
// becomes accepted with an outgoing FollowAccepted (owner: the local follower, requester: the
// remote actor; the worker then imports the actor's outbox); rejected, the follow is deleted. A follow that is
// not pending (already answered, or gone) changes nothing.
func (s *Store) FollowAnswered(ctx context.Context, user uuid.UUID, actorURL string, accepted bool) error {
	return s.writeWithEvents(ctx, "follow answered", func(tx *sqlx.Tx) ([]domain.Event, error) {
		query := `DELETE FROM follows`
		if accepted {
			query = `UPDATE follows SET status = 'accepted'`
		}
		res, err := tx.ExecContext(ctx, query+` WHERE follower_kind = 'local' AND follower_id = ? AND target_kind = 'remote'
			AND target_id = ? AND status = 'pending'`, user.String(), actorURL)
		if err != nil {
			return nil, err
		}
		if n, _ := res.RowsAffected(); n == 0 || !accepted {
			return nil, nil
		}
		return []domain.Event{domain.FollowAccepted{OwnerID: user, Requester: domain.RemoteIdentity(actorURL),
			Direction: domain.FollowOutgoing}}, nil
	})
}

// SaveRemoteReview stores a remote review, or updates it when its object id is known already
// (only its author can change it), with its movie if new and that movie's events.
func (s *Store) SaveRemoteReview(ctx context.Context, r domain.RemoteReview) error {
	err := s.writeGrouped(ctx, func(tx *sqlx.Tx) error {
		movie, events, err := ensureMovie(ctx, tx, r.Movie)
		if err != nil {
			return err
		}
		if movie.PosterPath == nil && r.Movie.PosterPath != nil {
			if _, err := tx.ExecContext(ctx, `UPDATE movies SET poster_path = ? WHERE id = ? AND poster_path IS NULL`,
				*r.Movie.PosterPath, movie.ID.String()); err != nil {
				return fmt.Errorf("set remote poster: %w", err)
			}
		}
		_, err = tx.NamedExecContext(ctx, `INSERT INTO reviews (id, user_id, movie_id, rating, comment, watch_medium,
			watched_at, created_at, updated_at, remote_actor_url, ap_id) VALUES (:id, :user_id, :movie_id, :rating,
			:comment, :watch_medium, :watched_at, :created_at, :updated_at, :remote_actor_url, :ap_id)
			ON CONFLICT (id) DO UPDATE SET rating = excluded.rating, comment = excluded.comment,
			watch_medium = excluded.watch_medium, watched_at = excluded.watched_at, updated_at = excluded.updated_at
			WHERE reviews.remote_actor_url = excluded.remote_actor_url`, remoteReviewRow{
			reviewRow: reviewRow{
				ID: r.ID, UserID: r.UserID, MovieID: movie.ID, Rating: r.Rating, Comment: nullOf(r.Comment),
				WatchMedium: nullOf((*string)(r.WatchMedium)), WatchedAt: formatTime(r.WatchedAt),
				CreatedAt: formatTime(r.Published), UpdatedAt: formatTime(s.now()),
				RemoteActorURL: sql.Null[string]{V: r.ActorURL, Valid: true},
			},
			APID: r.APID,
		})
		if err != nil {
			return fmt.Errorf("upsert remote review: %w", err)
		}
		return s.enqueue(ctx, tx, events...)
	})
	if err != nil {
		return fmt.Errorf("save remote review: %w", err)
	}
	return nil
}

// DeleteRemoteReviews deletes the remote reviews of actorURL, the one with object id apID or,
// with apID empty, all of them (the actor was deleted), and their movies if nothing else refers
// to them.
func (s *Store) DeleteRemoteReviews(ctx context.Context, actorURL, apID string) error {
	err := s.writeGrouped(ctx, func(tx *sqlx.Tx) error {
		var movies []uuid.UUID
		err := tx.SelectContext(ctx, &movies, `DELETE FROM reviews WHERE remote_actor_url = ? AND (? = '' OR ap_id = ?)
			RETURNING movie_id`, actorURL, apID, apID)
		if err != nil {
			return err
		}
		var events []domain.Event
		for _, m := range movies {
			if events, err = deleteMovieIfOrphan(ctx, tx, m, events); err != nil {
				return err
			}
		}
		if apID == "" {
			if _, err := tx.ExecContext(ctx, `DELETE FROM follows WHERE (follower_kind = 'remote' AND follower_id = ?1)
				OR (target_kind = 'remote' AND target_id = ?1)`, actorURL); err != nil {
				return err
			}
		}
		return s.enqueue(ctx, tx, events...)
	})
	if err != nil {
		return fmt.Errorf("delete remote reviews: %w", err)
	}
	return nil
}

// remoteReviewRow is a reviews row of a remote review, with its object id.
type remoteReviewRow struct {
	reviewRow
	APID string `db:"ap_id"`
}

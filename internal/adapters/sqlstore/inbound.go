package sqlstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/domain"
)

// AddRemoteFollower records a remote actor's request to follow a local user (pending until the
// user accepts) and the Follow's id, which the Accept or Reject will reference. A follow that
// exists is left as it is; a user who blocked the actor refuses (KindForbidden). The check and
// the insert hold the pair's lock, as Follow and Block do.
func (s *Store) AddRemoteFollower(ctx context.Context, user uuid.UUID, actorURL, followID, userActorURL string) error {
	return s.writeWithEvents(ctx, "remote follow", func(tx *Tx) ([]domain.Event, error) {
		if err := s.lockPair(ctx, tx, domain.LocalIdentity(user), domain.RemoteIdentity(actorURL)); err != nil {
			return nil, err
		}
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
	return s.writeWithEvents(ctx, "undo remote follow", func(tx *Tx) ([]domain.Event, error) {
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
	return s.writeWithEvents(ctx, "follow answered", func(tx *Tx) ([]domain.Event, error) {
		query := `DELETE FROM follows WHERE status IN ('pending', 'accepted') AND`
		if accepted {
			query = `UPDATE follows SET status = 'accepted' WHERE status = 'pending' AND`
		}
		res, err := tx.ExecContext(ctx, query+` follower_kind = 'local' AND follower_id = ? AND target_kind = 'remote'
			AND target_id = ?`, user.String(), actorURL)
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
	err := s.write(ctx, func(tx *Tx) error {
		movie, events, err := s.ensureMovie(ctx, tx, r.Movie)
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
			WHERE reviews.remote_actor_url = excluded.remote_actor_url`, sqlrow.RemoteReview{
			Review: sqlrow.Review{
				ID: r.ID, UserID: r.UserID, MovieID: movie.ID, Rating: r.Rating, Comment: sqlrow.NullOf(r.Comment),
				WatchMedium: sqlrow.NullOf((*string)(r.WatchMedium)), WatchedAt: sqlrow.FormatTime(r.WatchedAt),
				CreatedAt: sqlrow.FormatTime(r.Published), UpdatedAt: sqlrow.FormatTime(s.now()),
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
// with apID empty, all of them (the actor was deleted: with its follows and its likes and
// boosts, and its cached document), and their movies if nothing else refers to them.
func (s *Store) DeleteRemoteReviews(ctx context.Context, actorURL, apID string) error {
	err := s.write(ctx, func(tx *Tx) error {
		// The reviews' movies are locked first, in one order, as DeleteReview does: a review of one
		// of them being logged meanwhile is waited for, and the two never deadlock.
		var movies []uuid.UUID
		err := tx.SelectContext(ctx, &movies, `SELECT id FROM movies WHERE id IN (SELECT movie_id FROM reviews
			WHERE remote_actor_url = ? AND (? = '' OR ap_id = ?)) ORDER BY id`+s.forUpdate(), actorURL, apID, apID)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM reviews WHERE remote_actor_url = ? AND (? = '' OR ap_id = ?)`,
			actorURL, apID, apID); err != nil {
			return err
		}
		var events []domain.Event
		for _, m := range movies {
			if events, err = s.deleteMovieIfOrphan(ctx, tx, m, events); err != nil {
				return err
			}
		}
		if apID == "" {
			if _, err := tx.ExecContext(ctx, `DELETE FROM follows WHERE (follower_kind = 'remote' AND follower_id = ?)
				OR (target_kind = 'remote' AND target_id = ?)`, actorURL, actorURL); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM review_reactions WHERE actor_url = ?`, actorURL); err != nil {
				return err
			}
			// The cached document goes too: its key went with the account, and a redelivered
			// Delete is then one of an actor never met (acknowledged, not stored).
			if _, err := tx.ExecContext(ctx, `DELETE FROM remote_actors WHERE url = ?`, actorURL); err != nil {
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

// SaveReaction records a remote actor's Like or boost of a local review; the same reaction again
// keeps one row with the latest activity id. A review deleted meanwhile, or a reaction its actor
// has already undone (its Undo was processed first), records nothing.
func (s *Store) SaveReaction(ctx context.Context, r domain.Reaction) error {
	return s.write(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO review_reactions (review_id, kind, actor_url, activity_id, created_at)
			SELECT id, CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS BIGINT) FROM reviews WHERE id = ? AND remote_actor_url IS NULL
				AND NOT EXISTS (SELECT 1 FROM undone_reactions WHERE actor_url = ? AND activity_id = ?)
			ON CONFLICT (review_id, kind, actor_url) DO UPDATE SET activity_id = excluded.activity_id`,
			r.Kind, r.ActorURL, r.ActivityID, sqlrow.Millis(s.now()), r.ReviewID.String(), r.ActorURL, r.ActivityID)
		if err != nil {
			return fmt.Errorf("save reaction: %w", err)
		}
		return nil
	})
}

// RemoveReaction deletes r.ActorURL's reaction with activity id r.ActivityID, or of kind r.Kind
// on review r.ReviewID; a missing one is no error. The activity id is remembered as undone, so
// the reaction is not recorded if it is processed after its Undo.
func (s *Store) RemoveReaction(ctx context.Context, r domain.Reaction) error {
	return s.write(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM review_reactions WHERE actor_url = ?
			AND ((? <> '' AND activity_id = ?) OR (kind = ? AND review_id = ?))`,
			r.ActorURL, r.ActivityID, r.ActivityID, r.Kind, r.ReviewID.String())
		if err == nil && r.ActivityID != "" {
			_, err = tx.ExecContext(ctx, `INSERT INTO undone_reactions (actor_url, activity_id, undone_at) VALUES (?, ?, ?)
				ON CONFLICT DO NOTHING`, r.ActorURL, r.ActivityID, sqlrow.Millis(s.now()))
		}
		if err != nil {
			return fmt.Errorf("remove reaction: %w", err)
		}
		return nil
	})
}

// ReactionCounts counts a review's likes and boosts.
func (s *Store) ReactionCounts(ctx context.Context, review uuid.UUID) (domain.ReactionCounts, error) {
	var c domain.ReactionCounts
	err := s.read.QueryRowContext(ctx, `SELECT count(*) FILTER (WHERE kind = 'Like'), count(*) FILTER (WHERE kind = 'Announce')
		FROM review_reactions WHERE review_id = ?`, review.String()).Scan(&c.Likes, &c.Boosts)
	if err != nil {
		return c, fmt.Errorf("count reactions: %w", err)
	}
	return c, nil
}

// BlockedByRemote drops the follows both ways between a local user and a remote actor who
// blocked them (as Mastodon does on a Block). No event: the blocker dropped them already.
func (s *Store) BlockedByRemote(ctx context.Context, user uuid.UUID, actorURL string) error {
	return s.write(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM follows WHERE
			(follower_kind = 'remote' AND follower_id = ? AND target_kind = 'local' AND target_id = ?) OR
			(follower_kind = 'local' AND follower_id = ? AND target_kind = 'remote' AND target_id = ?)`, actorURL, user.String(), user.String(), actorURL)
		if err != nil {
			return fmt.Errorf("blocked by remote: %w", err)
		}
		return nil
	})
}

// MoveFollows turns the local users' follows of oldActor (pending or accepted) into pending
// follows of newActor, each with a FollowRequested, so the Follow is sent to the new actor. A
// user who already follows the new actor, or blocked it, only loses the old follow.
func (s *Store) MoveFollows(ctx context.Context, oldActor, newActor string) error {
	return s.writeWithEvents(ctx, "move follows", func(tx *Tx) ([]domain.Event, error) {
		var users []uuid.UUID
		err := tx.SelectContext(ctx, &users, `DELETE FROM follows WHERE follower_kind = 'local' AND target_kind = 'remote'
			AND target_id = ? RETURNING follower_id`, oldActor)
		if err != nil {
			return nil, err
		}
		var events []domain.Event
		for _, u := range users {
			res, err := tx.ExecContext(ctx, `INSERT INTO follows (follower_kind, follower_id, target_kind, target_id, status)
				SELECT 'local', CAST(? AS TEXT), 'remote', CAST(? AS TEXT), 'pending' WHERE NOT EXISTS (SELECT 1 FROM blocks
				WHERE blocker_id = CAST(? AS TEXT) AND target_kind = 'remote' AND target_id = CAST(? AS TEXT)) ON CONFLICT DO NOTHING`,
				u.String(), newActor, u.String(), newActor)
			if err != nil {
				return nil, err
			}
			if n, _ := res.RowsAffected(); n == 1 {
				events = append(events, domain.FollowRequested{FollowerID: u, Target: domain.RemoteIdentity(newActor)})
			}
		}
		return events, nil
	})
}

package sqlstore

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/domain"
)

// Follow records a pending follow of target by a local user, with FollowRequested. A follow that
// exists already (pending or accepted) is left alone and causes no event; a target that blocked
// the follower refuses.
func (s *Store) Follow(ctx context.Context, follower uuid.UUID, target domain.SocialIdentity) error {
	return s.writeWithEvents(ctx, "follow", func(tx *Tx) ([]domain.Event, error) {
		if tid, ok := target.UserID(); ok {
			if err := s.lockPair(ctx, tx, domain.LocalIdentity(follower), target); err != nil {
				return nil, err
			}
			var blocked bool
			err := tx.GetContext(ctx, &blocked, `SELECT EXISTS (SELECT 1 FROM blocks WHERE blocker_id = ? AND target_kind = 'local'
				AND target_id = ?)`, tid.String(), follower.String())
			if err != nil {
				return nil, err
			}
			if blocked {
				return nil, domain.Forbidden("Forbidden: this user does not accept your follows")
			}
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO follows (follower_kind, follower_id, target_kind, target_id, status)
			VALUES ('local', ?, ?, ?, 'pending') ON CONFLICT DO NOTHING`, follower.String(), target.Kind, target.ID)
		if err != nil {
			return nil, err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil, nil
		}
		return []domain.Event{domain.FollowRequested{FollowerID: follower, Target: target}}, nil
	})
}

// Unfollow deletes a local user's follow of target (pending or accepted), with Unfollowed.
func (s *Store) Unfollow(ctx context.Context, follower uuid.UUID, target domain.SocialIdentity) error {
	return s.writeWithEvents(ctx, "unfollow", func(tx *Tx) ([]domain.Event, error) {
		err := s.deleteFollow(ctx, tx, domain.LocalIdentity(follower), target, "", "You do not follow this actor")
		return []domain.Event{domain.Unfollowed{FollowerID: follower, Target: target}}, err
	})
}

// AcceptFollower accepts follower's pending follow of owner, with an incoming FollowAccepted.
func (s *Store) AcceptFollower(ctx context.Context, owner uuid.UUID, follower domain.SocialIdentity) error {
	return s.writeWithEvents(ctx, "accept follower", func(tx *Tx) ([]domain.Event, error) {
		if err := s.lockFollowerCount(ctx, tx, follower, domain.LocalIdentity(owner)); err != nil {
			return nil, err
		}
		res, err := tx.ExecContext(ctx, `UPDATE follows SET status = 'accepted' WHERE follower_kind = ? AND follower_id = ?
			AND target_kind = 'local' AND target_id = ? AND status = 'pending'`, follower.Kind, follower.ID, owner.String())
		if err != nil {
			return nil, err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil, domain.NotFound("No pending follow request from this actor")
		}
		return []domain.Event{domain.FollowAccepted{OwnerID: owner, Requester: follower, Direction: domain.FollowIncoming}}, nil
	})
}

// RejectFollower deletes follower's pending follow of owner, with FollowRejected.
func (s *Store) RejectFollower(ctx context.Context, owner uuid.UUID, follower domain.SocialIdentity) error {
	return s.writeWithEvents(ctx, "reject follower", func(tx *Tx) ([]domain.Event, error) {
		err := s.deleteFollow(ctx, tx, follower, domain.LocalIdentity(owner), "pending", "No pending follow request from this actor")
		return []domain.Event{domain.FollowRejected{OwnerID: owner, Requester: follower}}, err
	})
}

// RemoveFollower deletes follower's accepted follow of owner, with FollowerRemoved.
func (s *Store) RemoveFollower(ctx context.Context, owner uuid.UUID, follower domain.SocialIdentity) error {
	return s.writeWithEvents(ctx, "remove follower", func(tx *Tx) ([]domain.Event, error) {
		err := s.deleteFollow(ctx, tx, follower, domain.LocalIdentity(owner), "accepted", "This actor does not follow you")
		return []domain.Event{domain.FollowerRemoved{OwnerID: owner, Follower: follower}}, err
	})
}

// Block records a block and deletes the follows between the two, with ActorBlocked; blocking an
// actor already blocked changes nothing.
func (s *Store) Block(ctx context.Context, blocker uuid.UUID, target domain.SocialIdentity) error {
	return s.writeWithEvents(ctx, "block", func(tx *Tx) ([]domain.Event, error) {
		if err := s.lockPair(ctx, tx, domain.LocalIdentity(blocker), target); err != nil {
			return nil, err
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO blocks (blocker_id, target_kind, target_id) VALUES (?, ?, ?)
			ON CONFLICT DO NOTHING`, blocker.String(), target.Kind, target.ID)
		if err != nil {
			return nil, err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil, nil
		}
		if err := s.lockFollowsBetween(ctx, tx, domain.LocalIdentity(blocker), target); err != nil {
			return nil, err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM follows WHERE
			(follower_kind = 'local' AND follower_id = ? AND target_kind = ? AND target_id = ?) OR
			(follower_kind = ? AND follower_id = ? AND target_kind = 'local' AND target_id = ?)`,
			blocker.String(), target.Kind, target.ID, target.Kind, target.ID, blocker.String())
		return []domain.Event{domain.ActorBlocked{BlockerID: blocker, Target: target}}, err
	})
}

// Unblock deletes a block, with ActorUnblocked.
func (s *Store) Unblock(ctx context.Context, blocker uuid.UUID, target domain.SocialIdentity) error {
	return s.writeWithEvents(ctx, "unblock", func(tx *Tx) ([]domain.Event, error) {
		res, err := tx.ExecContext(ctx, `DELETE FROM blocks WHERE blocker_id = ? AND target_kind = ? AND target_id = ?`,
			blocker.String(), target.Kind, target.ID)
		if err != nil {
			return nil, err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil, domain.NotFound("You have not blocked this actor")
		}
		return []domain.Event{domain.ActorUnblocked{BlockerID: blocker, Target: target}}, nil
	})
}

// writeWithEvents runs write in a transaction and enqueues the events it returns there; a
// transaction the engine aborts to break a deadlock runs again (againOnDeadlock).
func (s *Store) writeWithEvents(ctx context.Context, what string, write func(*Tx) ([]domain.Event, error)) error {
	err := s.againOnDeadlock(func() error {
		return s.write(ctx, func(tx *Tx) error {
			events, err := write(tx)
			if err != nil {
				return err
			}
			return s.enqueue(ctx, tx, events...)
		})
	})
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// deleteFollow deletes the follow of target by follower, of the given status ("" for any), and
// reports a missing one as KindNotFound with missing.
func (s *Store) deleteFollow(ctx context.Context, tx *Tx, follower, target domain.SocialIdentity, status, missing string) error {
	if err := s.lockFollowerCount(ctx, tx, follower, target); err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, `DELETE FROM follows WHERE follower_kind = ? AND follower_id = ? AND target_kind = ?
		AND target_id = ? AND (? = '' OR status = ?)`, follower.Kind, follower.ID, target.Kind, target.ID, status, status)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return domain.NotFound("%s", missing)
	}
	return nil
}

// Following lists the actors a user follows (accepted only), in the order followed.
func (s *Store) Following(ctx context.Context, user uuid.UUID) ([]domain.Actor, error) {
	return s.actors(ctx, `SELECT f.target_kind AS kind, f.target_id AS id, u.username, u.display_name FROM follows f
		LEFT JOIN users u ON f.target_kind = 'local' AND u.id = f.target_id
		WHERE f.follower_kind = 'local' AND f.follower_id = ? AND f.status = 'accepted' ORDER BY f.created_at`, user.String())
}

// Followers lists a user's followers: the accepted ones, or the pending requests.
func (s *Store) Followers(ctx context.Context, user uuid.UUID, pending bool) ([]domain.Actor, error) {
	status := "accepted"
	if pending {
		status = "pending"
	}
	return s.actors(ctx, `SELECT f.follower_kind AS kind, f.follower_id AS id, u.username, u.display_name FROM follows f
		LEFT JOIN users u ON f.follower_kind = 'local' AND u.id = f.follower_id
		WHERE f.target_kind = 'local' AND f.target_id = ? AND f.status = ? ORDER BY f.created_at`, user.String(), status)
}

// Blocked lists the actors a user blocked.
func (s *Store) Blocked(ctx context.Context, user uuid.UUID) ([]domain.Actor, error) {
	return s.actors(ctx, `SELECT b.target_kind AS kind, b.target_id AS id, u.username, u.display_name FROM blocks b
		LEFT JOIN users u ON b.target_kind = 'local' AND u.id = b.target_id
		WHERE b.blocker_id = ? ORDER BY b.created_at`, user.String())
}

// actors runs a query selecting actorRows.
func (s *Store) actors(ctx context.Context, query string, args ...any) ([]domain.Actor, error) {
	var rows []sqlrow.Actor
	if err := s.read.SelectContext(ctx, &rows, query, args...); err != nil {
		return nil, fmt.Errorf("list actors: %w", err)
	}
	return sqlrow.CastRows(rows, sqlrow.Actor.Actor), nil
}

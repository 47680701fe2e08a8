package postgres

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/domain"
)

// lockFeedCounts locks, in key order, the following-feed counts a write of the local review id
// by author moves: its author's local followers' and those of the feeds holding it. The
// triggers of migration 0202 move them one follower at a time in the order the follows come,
// which differs per author, so without this two reviews of authors with followers in common
// could each hold a count the other wants (make chaos with -store postgres saw such deadlocks
// as 500s). Taken after the movie's lock and before the review row is written.
func lockFeedCounts(ctx context.Context, tx *sqlx.Tx, id, author uuid.UUID) error {
	if _, err := tx.ExecContext(ctx, `SELECT 1 FROM review_counts WHERE scope = 'following' AND key IN (
			SELECT follower_id FROM follows WHERE target_kind = 'local' AND target_id = $2 AND status = 'accepted'
				AND follower_kind = 'local'
			UNION SELECT owner_id FROM following_feed WHERE review_id = $1)
		ORDER BY key FOR UPDATE`, id.String(), author.String()); err != nil {
		return fmt.Errorf("lock feed counts: %w", err)
	}
	return nil
}

// lockFollowerCount locks a local follower's following-feed count before its follow is
// accepted or deleted, which moves that count row by row of the feed: taken first, as
// lockFeedCounts takes it, so a review written meanwhile waits for it (or this for the review)
// before either touches the other's feed rows.
func lockFollowerCount(ctx context.Context, tx *sqlx.Tx, follower domain.SocialIdentity) error {
	if follower.Kind != domain.IdentityLocal {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `SELECT 1 FROM review_counts WHERE scope = 'following' AND key = $1 FOR UPDATE`,
		follower.ID); err != nil {
		return fmt.Errorf("lock feed count: %w", err)
	}
	return nil
}

// deadlockAttempts bounds how often againOnDeadlock runs a transaction PostgreSQL aborted.
const deadlockAttempts = 5

// againOnDeadlock runs fn, a whole write transaction, and runs it again while PostgreSQL aborts
// it to break a deadlock, up to deadlockAttempts times in all: lockFeedCounts cannot lock a
// follower's count that does not exist yet, which two first reviews in their feeds may then
// create in opposite orders. The aborted one committed nothing.
func againOnDeadlock(fn func() error) error {
	var err error
	for range deadlockAttempts {
		if err = fn(); !isDeadlock(err) {
			break
		}
	}
	return err
}

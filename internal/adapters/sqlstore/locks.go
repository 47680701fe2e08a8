package sqlstore

import (
	"context"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// The locks a write takes where writers run concurrently (PostgreSQL: several servers and
// workers on one database). SQLite's one writer serialises every write transaction, so there
// they take nothing (Store.lock); their statements are PostgreSQL's.

// lockPair serialises the follow and block writes between two parties for the rest of tx: a
// transaction-level advisory lock on the pair (in either order), so a follow checked against
// the blocks cannot be inserted beside a block committed meanwhile.
func (s *Store) lockPair(ctx context.Context, tx *Tx, a, b domain.SocialIdentity) error {
	x, y := a.Kind+":"+a.ID, b.Kind+":"+b.ID
	if x > y {
		x, y = y, x
	}
	return s.lock(ctx, tx, "follow pair", `SELECT pg_advisory_xact_lock(hashtextextended(?, 0))`, "follows "+x+" "+y)
}

// lockFeedCounts locks, in key order, the following-feed counts a write of the local review id
// by author moves: its author's local followers' and those of the feeds holding it. The
// triggers of migration 0202 move them one follower at a time in the order the follows come,
// which differs per author, so without this two reviews of authors with followers in common
// could each hold a count the other wants (make chaos with -store postgres saw such deadlocks
// as 500s). Taken after the movie's lock and before the review row is written.
//
// A follower whose count is zero has no row (the trigger deletes it), and SELECT … FOR UPDATE
// cannot lock a row that is not there: the trigger would then insert it later, out of order,
// and a loaded CI run saw five deadlocks in a row. So the counts are locked by an upsert that
// creates a missing one at zero, in key order; a row left at zero is read as zero.
func (s *Store) lockFeedCounts(ctx context.Context, tx *Tx, id, author uuid.UUID) error {
	// One round trip for both locks: lock_feed_counts (migration 0420) takes lockFollowers'
	// shared lock, then upserts the counts in a statement of its own, whose snapshot is taken
	// after the lock (a PL/pgSQL function's statements each take one), as the two statements
	// from here did.
	return s.lock(ctx, tx, "feed counts", `SELECT lock_feed_counts(?, ?, ?)`,
		followersKey(domain.LocalIdentity(author)), author.String(), id.String())
}

// lockFollowerCount locks a local follower's following-feed count before its follow is
// accepted or deleted, which moves that count row by row of the feed: taken first, as
// lockFeedCounts takes it (an upsert, so a missing count is locked too), so a review written
// meanwhile waits for it (or this for the review) before either touches the other's feed rows.
func (s *Store) lockFollowerCount(ctx context.Context, tx *Tx, follower, target domain.SocialIdentity) error {
	if follower.Kind != domain.IdentityLocal {
		return nil
	}
	if err := s.lockFollowers(ctx, tx, target, true); err != nil {
		return err
	}
	return s.lock(ctx, tx, "feed count", `INSERT INTO review_counts (scope, key, n) VALUES ('following', ?, 0)
		ON CONFLICT (scope, key, slot) DO UPDATE SET n = review_counts.n`, follower.ID)
}

// lockFollowers fixes target's set of followers for the rest of tx: shared by the review writes
// of target, whose triggers fan out to the followers lockFeedCounts locked, and exclusive for a
// follow of target that is accepted or ends. Without it a follow accepted between a review's
// lockFeedCounts and its insert adds a follower whose count the review's trigger then takes out
// of key order, and two such reviews deadlock (a loaded CI run saw it five times in a row).
func (s *Store) lockFollowers(ctx context.Context, tx *Tx, target domain.SocialIdentity, exclusive bool) error {
	fn := "pg_advisory_xact_lock_shared"
	if exclusive {
		fn = "pg_advisory_xact_lock"
	}
	return s.lock(ctx, tx, "followers", `SELECT `+fn+`(hashtextextended(?, 0))`, followersKey(target))
}

// followersKey is the key of target's followers' advisory lock.
func followersKey(target domain.SocialIdentity) string {
	return "followers " + target.Kind + ":" + target.ID
}

// lockFollowsBetween takes, for a write that may end the follows both ways between a and b (a
// block), what lockFollowerCount takes for each direction: both follower sets, then both
// parties' counts, each in key order.
func (s *Store) lockFollowsBetween(ctx context.Context, tx *Tx, a, b domain.SocialIdentity) error {
	if a.Kind+":"+a.ID > b.Kind+":"+b.ID {
		a, b = b, a
	}
	for _, p := range []domain.SocialIdentity{a, b} {
		if err := s.lockFollowers(ctx, tx, p, true); err != nil {
			return err
		}
	}
	for _, p := range []domain.SocialIdentity{a, b} {
		if p.Kind != domain.IdentityLocal {
			continue
		}
		if err := s.lock(ctx, tx, "feed count", `INSERT INTO review_counts (scope, key, n) VALUES ('following', ?, 0)
			ON CONFLICT (scope, key, slot) DO UPDATE SET n = review_counts.n`, p.ID); err != nil {
			return err
		}
	}
	return nil
}

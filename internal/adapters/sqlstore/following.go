package sqlstore

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/review"
)

// followingPage is the statement that selects a page of a follower's feed, newest viewing first, its parameters the
// follower's id, then limit and offset. The page is chosen from following_feed's primary key
// alone (owner, watched_at, review id: migration 0202 keeps it), and only the page's reviews are
// then read with their movie and author.
func (s *Store) followingPage() string {
	return entrySelect + ` FROM (SELECT f.review_id AS rid FROM following_feed f WHERE f.owner_id = ?
	ORDER BY f.watched_at DESC, f.review_id DESC LIMIT CAST(? AS INTEGER) OFFSET CAST(? AS INTEGER)
	) page ` + s.d.FixedJoin() + ` reviews r ON r.id = page.rid JOIN movies m ON m.id = r.movie_id LEFT JOIN users u ON u.id = r.user_id
	ORDER BY r.watched_at DESC, r.id DESC`
}

// FollowingFeed returns a page of the reviews by the people owner follows (accepted follows:
// local users' local reviews, remote actors' stored reviews), newest viewing first.
func (s *Store) FollowingFeed(ctx context.Context, owner uuid.UUID, p domain.Page) (domain.Paged[review.Entry], error) {
	out := domain.Paged[review.Entry]{Page: p}
	var err error
	if out.Total, err = s.reviewCount(ctx, counted{scope: "following", key: owner.String()}); err != nil {
		return out, fmt.Errorf("count following feed: %w", err)
	}
	rows := sqlrow.PageOf[sqlrow.Entry](p, out.Total)
	if err := s.read.SelectContext(ctx, &rows, s.followingPage(), owner.String(), p.Limit, p.Offset); err != nil {
		return out, fmt.Errorf("following feed: %w", err)
	}
	if out.Items, err = sqlrow.MapRows(rows, sqlrow.Entry.Entry); err != nil {
		return out, fmt.Errorf("following feed: %w", err)
	}
	return out, nil
}

// ReviewEntry returns one review with its movie and author's name.
func (s *Store) ReviewEntry(ctx context.Context, id uuid.UUID) (review.Entry, error) {
	var row sqlrow.Entry
	err := s.read.GetContext(ctx, &row, entrySelect+entryFrom+` WHERE r.id = ?`, id.String())
	if err != nil {
		return review.Entry{}, sqlrow.NotFound(err, "Entity not found: review "+id.String())
	}
	return row.Entry()
}

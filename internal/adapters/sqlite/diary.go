package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/review"
)

// entryFrom is the FROM clause of diary entries: a review, its movie, its local author if any.
const entryFrom = ` FROM reviews r JOIN movies m ON m.id = r.movie_id LEFT JOIN users u ON u.id = r.user_id`

// entrySelect selects what scanEntry reads.
const entrySelect = `SELECT ` + reviewColumns + `, ` + movieColumns + `, COALESCE(u.username, r.remote_actor_url, '')`

func scanEntry(rows *sql.Rows) (review.Entry, error) {
	var (
		rr reviewRow
		mr movieRow
		e  review.Entry
	)
	if err := rows.Scan(append(append(rr.dest(), mr.dest()...), &e.UserDisplayName)...); err != nil {
		return review.Entry{}, err
	}
	var err error
	if e.Review, err = rr.review(); err != nil {
		return review.Entry{}, err
	}
	if e.Movie, err = mr.movie(); err != nil {
		return review.Entry{}, err
	}
	return e, nil
}

func orderBy(sort review.Sort) string {
	switch sort {
	case review.SortDateAsc:
		return ` ORDER BY r.watched_at ASC, r.id ASC`
	case review.SortRatingDesc:
		return ` ORDER BY r.rating DESC, r.watched_at DESC, r.id DESC`
	case review.SortRatingAsc:
		return ` ORDER BY r.rating ASC, r.watched_at DESC, r.id DESC`
	}
	return ` ORDER BY r.watched_at DESC, r.id DESC`
}

// Diary returns a page of entries: one user's reviews (local and remote) or, without a user,
// every local review; optionally of one movie.
func (s *Store) Diary(ctx context.Context, f review.DiaryFilter, p domain.Page) (domain.Paged[review.Entry], error) {
	var where []string
	var args []any
	if f.UserID != nil {
		where, args = append(where, `r.user_id = ?`), append(args, f.UserID.String())
	} else {
		where = append(where, `r.remote_actor_url IS NULL`)
	}
	if f.MovieID != nil {
		where, args = append(where, `r.movie_id = ?`), append(args, f.MovieID.String())
	}
	return s.entries(ctx, ` WHERE `+strings.Join(where, ` AND `), args, f.Sort, p)
}

// Feed returns a page of every review, local and remote.
func (s *Store) Feed(ctx context.Context, sort review.Sort, p domain.Page) (domain.Paged[review.Entry], error) {
	return s.entries(ctx, ``, nil, sort, p)
}

func (s *Store) entries(ctx context.Context, where string, args []any, sort review.Sort, p domain.Page) (domain.Paged[review.Entry], error) {
	out := domain.Paged[review.Entry]{Page: p}
	if err := s.read.QueryRowContext(ctx, `SELECT count(*)`+entryFrom+where, args...).Scan(&out.Total); err != nil {
		return out, fmt.Errorf("count entries: %w", err)
	}
	rows, err := s.read.QueryContext(ctx, entrySelect+entryFrom+where+orderBy(sort)+` LIMIT CAST(? AS INTEGER) OFFSET CAST(? AS INTEGER)`,
		append(args, p.Limit, p.Offset)...)
	if err != nil {
		return out, fmt.Errorf("list entries: %w", err)
	}
	if out.Items, err = scanAll(rows, scanEntry); err != nil {
		return out, fmt.Errorf("list entries: %w", err)
	}
	return out, nil
}

// History returns every review of a movie, oldest viewing first.
func (s *Store) History(ctx context.Context, movieID uuid.UUID) ([]domain.Review, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT `+reviewColumns+` FROM reviews r WHERE r.movie_id = ?
		ORDER BY r.watched_at, r.id`, movieID.String())
	if err != nil {
		return nil, fmt.Errorf("movie history: %w", err)
	}
	return scanAll(rows, scanReview)
}

func scanReview(rows *sql.Rows) (domain.Review, error) {
	var rr reviewRow
	if err := rows.Scan(rr.dest()...); err != nil {
		return domain.Review{}, err
	}
	return rr.review()
}

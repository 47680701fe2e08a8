package sqlstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/review"
)

// entryFrom is the FROM clause of diary entries: a review, its movie, its local author if any.
const entryFrom = ` FROM reviews r JOIN movies m ON m.id = r.movie_id LEFT JOIN users u ON u.id = r.user_id`

// entrySelect selects an sqlrow.Entry.
const entrySelect = `SELECT ` + sqlrow.ReviewColumns + `, ` + sqlrow.MovieColumnsAsMovie + `, COALESCE(CAST(u.username AS TEXT), r.remote_actor_url, '') AS user_display`

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
	c := counted{scope: "local"}
	if f.UserID != nil {
		where, args = append(where, `r.user_id = ?`), append(args, f.UserID.String())
		c = counted{scope: "user", key: f.UserID.String()}
	} else {
		where = append(where, `r.remote_actor_url IS NULL`)
	}
	if f.MovieID != nil {
		where, args = append(where, `r.movie_id = ?`), append(args, f.MovieID.String())
		// Two filters have no maintained count: the movie's index bounds the count to the
		// movie's reviews.
		c = counted{}
	}
	return s.entries(ctx, ` WHERE `+strings.Join(where, ` AND `), args, c, f.Sort, p)
}

// Feed returns a page of every review, local and remote.
func (s *Store) Feed(ctx context.Context, sort review.Sort, p domain.Page) (domain.Paged[review.Entry], error) {
	return s.entries(ctx, ``, nil, counted{scope: "all"}, sort, p)
}

// entries returns a page of entries matching where, their total read from the maintained count
// c when it names one and counted otherwise.
func (s *Store) entries(ctx context.Context, where string, args []any, c counted, sort review.Sort, p domain.Page) (domain.Paged[review.Entry], error) {
	out := domain.Paged[review.Entry]{Page: p}
	var err error
	if c.scope != "" {
		out.Total, err = s.reviewCount(ctx, c)
	} else {
		err = s.read.GetContext(ctx, &out.Total, `SELECT count(*)`+entryFrom+where, args...)
	}
	if err != nil {
		return out, fmt.Errorf("count entries: %w", err)
	}
	rows := sqlrow.PageOf[sqlrow.Entry](p, out.Total)
	err = s.read.SelectContext(ctx, &rows, s.entriesPage(where, sort), append(args, p.Limit, p.Offset)...)
	if err != nil {
		return out, fmt.Errorf("list entries: %w", err)
	}
	if out.Items, err = sqlrow.MapRows(rows, sqlrow.Entry.Entry); err != nil {
		return out, fmt.Errorf("list entries: %w", err)
	}
	return out, nil
}

// entriesPage selects a page of entries matching where (over reviews r) in sort order, its
// parameters where's, then limit and offset. The page is chosen from the sort order's index
// alone, which covers the choice (every index holds the rowid): the offset is skipped there, in
// consecutive index entries, and only the page's own rows are then read with their movie and
// author. Joined first, every skipped row cost a read of its row, its movie and its author, from
// pages scattered over the table: the cost that grew with the table.
func (s *Store) entriesPage(where string, sort review.Sort) string {
	return entrySelect + ` FROM (SELECT r.` + s.d.RowID() + ` AS rid FROM reviews r` + where + orderBy(sort) +
		` LIMIT CAST(? AS INTEGER) OFFSET CAST(? AS INTEGER)) page ` + s.d.FixedJoin() + ` reviews r ON r.` + s.d.RowID() + ` = page.rid
		JOIN movies m ON m.id = r.movie_id LEFT JOIN users u ON u.id = r.user_id` + orderBy(sort)
}

// History returns every review of a movie, oldest viewing first.
func (s *Store) History(ctx context.Context, movieID uuid.UUID) ([]domain.Review, error) {
	var rows []sqlrow.Review
	if err := s.read.SelectContext(ctx, &rows, `SELECT `+sqlrow.ReviewColumns+` FROM reviews r WHERE r.movie_id = ?
		ORDER BY r.watched_at, r.id`, movieID.String()); err != nil {
		return nil, fmt.Errorf("movie history: %w", err)
	}
	return sqlrow.MapRows(rows, sqlrow.Review.Review)
}

// DiaryExportBatch returns up to limit of the user's reviews after the cursor, in (watched_at,
// id) order, and the cursor of the last one. Each batch is its own short query, so a slow
// download never holds a read transaction (and the WAL) open.
func (s *Store) DiaryExportBatch(ctx context.Context, user uuid.UUID, after *review.ExportCursor, limit int) ([]review.Entry, *review.ExportCursor, error) {
	where, args := ` WHERE r.user_id = ?`, []any{user.String()}
	if after != nil {
		where, args = where+` AND (r.watched_at, r.id) > (?, ?)`, append(args, after.WatchedAt, after.ID.String())
	}
	rows := make([]sqlrow.Entry, 0, limit)
	err := s.read.SelectContext(ctx, &rows, entrySelect+entryFrom+where+
		` ORDER BY r.watched_at, r.id LIMIT CAST(? AS INTEGER)`, append(args, limit)...)
	if err != nil {
		return nil, nil, fmt.Errorf("export batch: %w", err)
	}
	if len(rows) == 0 {
		return nil, nil, nil
	}
	out := make([]review.Entry, 0, len(rows))
	for _, r := range rows {
		e, err := r.Entry()
		if err != nil {
			return nil, nil, fmt.Errorf("export batch: %w", err)
		}
		out = append(out, e)
	}
	last := rows[len(rows)-1]
	// The stored watched_at text, not a re-formatted time: the cursor compares as stored.
	return out, &review.ExportCursor{WatchedAt: last.WatchedAt, ID: last.ID}, nil
}

// RecentReviews returns the newest local reviews, of one user or of everyone, the most recently
// logged first (a feed reader sees a new review of an old viewing at the top).
func (s *Store) RecentReviews(ctx context.Context, user *uuid.UUID, limit int) ([]review.Entry, error) {
	where, args := ` WHERE r.remote_actor_url IS NULL`, []any{}
	if user != nil {
		where, args = where+` AND r.user_id = ?`, append(args, user.String())
	}
	rows := make([]sqlrow.Entry, 0, limit)
	if err := s.read.SelectContext(ctx, &rows, entrySelect+entryFrom+where+` ORDER BY r.created_at DESC, r.id DESC LIMIT CAST(? AS INTEGER)`,
		append(args, limit)...); err != nil {
		return nil, fmt.Errorf("recent reviews: %w", err)
	}
	return sqlrow.MapRows(rows, sqlrow.Entry.Entry)
}

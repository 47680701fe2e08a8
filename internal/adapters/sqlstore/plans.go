package sqlstore

import (
	"fmt"

	"moviesdiary/internal/usecase/review"
)

// PagedRead is one of the paged reads the API and pages serve, as the store runs it, with
// sample arguments.
type PagedRead struct {
	Name  string
	Query string
	Args  []any
}

// PagedReads lists the diary and feed reads whose page must be chosen from an index, so each
// engine's tests can hold them against its query planner (SQLite's EXPLAIN QUERY PLAN).
func (s *Store) PagedReads() []PagedRead {
	var out []PagedRead
	for _, sort := range []review.Sort{review.SortDateDesc, review.SortDateAsc, review.SortRatingDesc, review.SortRatingAsc} {
		out = append(out,
			PagedRead{fmt.Sprint("diary of a user, sort ", sort), s.entriesPage(` WHERE r.user_id = ?`, sort), []any{"u", 20, 0}},
			PagedRead{fmt.Sprint("local diary, sort ", sort), s.entriesPage(` WHERE r.remote_actor_url IS NULL`, sort), []any{20, 0}},
			PagedRead{fmt.Sprint("feed, sort ", sort), s.entriesPage(``, sort), []any{20, 0}},
		)
	}
	return append(out,
		PagedRead{"recent local reviews", entrySelect + entryFrom + ` WHERE r.remote_actor_url IS NULL ORDER BY r.created_at DESC, r.id DESC LIMIT CAST(? AS INTEGER)`, []any{50}},
		PagedRead{"following feed", s.followingPage(), []any{"u", 20, 0}},
		PagedRead{"a review by id", entrySelect + entryFrom + ` WHERE r.id = ?`, []any{"r"}},
	)
}

package sqlrow

import (
	"database/sql"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// WatchEventColumns are the columns of WatchEvent.
const WatchEventColumns = `id, user_id, source, title, year, external_id, movie_id, status, review_id, watched_at, closed_at`

// WatchEvent is a watch_events row.
type WatchEvent struct {
	ID         uuid.UUID           `db:"id"`
	UserID     uuid.UUID           `db:"user_id"`
	Source     string              `db:"source"`
	Title      string              `db:"title"`
	Year       sql.Null[int]       `db:"year"`
	ExternalID sql.Null[string]    `db:"external_id"`
	MovieID    sql.Null[uuid.UUID] `db:"movie_id"`
	Status     string              `db:"status"`
	ReviewID   sql.Null[uuid.UUID] `db:"review_id"`
	WatchedAt  int64               `db:"watched_at"`
	ClosedAt   sql.Null[int64]     `db:"closed_at"`
}

// WatchEvent maps the row to its domain value.
func (r WatchEvent) WatchEvent() (domain.WatchEvent, error) {
	e := domain.WatchEvent{
		ID: r.ID, UserID: r.UserID, Source: domain.WatchSource(r.Source), Title: r.Title, Year: Ptr(r.Year),
		ExternalID: Ptr(r.ExternalID), MovieID: Ptr(r.MovieID), Status: domain.WatchStatus(r.Status),
		ReviewID: Ptr(r.ReviewID), WatchedAt: time.UnixMilli(r.WatchedAt).UTC(),
	}
	if r.ClosedAt.Valid {
		e.ClosedAt = Ref(time.UnixMilli(r.ClosedAt.V).UTC())
	}
	return e, nil
}

// WatchOwner is a watch event's id and owner, as a dismissal reads them before it writes.
type WatchOwner struct {
	ID     uuid.UUID `db:"id"`
	UserID uuid.UUID `db:"user_id"`
}

// CheckWatchOwners is a dismissal's check of the events it read for ids: every one must be
// userID's (else KindForbidden) and every id must have been found (else KindNotFound).
func CheckWatchOwners(owners []WatchOwner, userID uuid.UUID, ids []uuid.UUID) error {
	found := make(map[uuid.UUID]bool, len(owners))
	for _, o := range owners {
		if o.UserID != userID {
			return domain.Forbidden("Forbidden: not your watch event")
		}
		found[o.ID] = true
	}
	for _, id := range ids {
		if !found[id] {
			return domain.NotFound("Entity not found: watch event %s", id)
		}
	}
	return nil
}

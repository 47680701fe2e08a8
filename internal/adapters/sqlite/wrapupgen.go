package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/wrapup"
)

// StartWrapUp moves a wrap-up to Generating: a Pending one, a Failed one being retried, and a
// Generating one left by a crash (resumed). Gone, Ready, or a Failed one superseded by a newer
// live request of the same range (the live-range index refuses it) is nothing to do.
func (s *Store) StartWrapUp(ctx context.Context, id uuid.UUID) (domain.WrapUp, bool, error) {
	var (
		w  domain.WrapUp
		ok bool
	)
	err := s.writeGrouped(ctx, func(tx *sqlx.Tx) error {
		var err error
		w, err = wrapUpWhere(ctx, tx, `id = ?`, id.String())
		if errors.Is(err, domain.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		switch w.Status {
		case domain.WrapUpReady:
			return nil
		case domain.WrapUpGenerating:
			ok = true
			return nil
		}
		_, err = tx.ExecContext(ctx, `UPDATE wrapups SET status = 'Generating', error_message = NULL WHERE id = ?`, id.String())
		if isUnique(err) {
			return nil
		}
		if err != nil {
			return err
		}
		w.Status, w.ErrorMessage, ok = domain.WrapUpGenerating, nil, true
		return nil
	})
	if err != nil {
		return domain.WrapUp{}, false, fmt.Errorf("start wrap-up: %w", err)
	}
	return w, ok, nil
}

// wrapUpViewingRow is a local review in a wrap-up's range with what the report needs of its
// movie (and the enriched profile's budget and keywords) and of its author.
type wrapUpViewingRow struct {
	WatchedAt   string              `db:"watched_at"`
	Rating      int                 `db:"rating"`
	WatchMedium sql.Null[string]    `db:"watch_medium"`
	UserID      uuid.UUID           `db:"user_id"`
	UserName    string              `db:"user_name"`
	MovieID     uuid.UUID           `db:"id"`
	Title       string              `db:"title"`
	Year        sql.Null[int]       `db:"release_year"`
	Poster      sql.Null[string]    `db:"poster_path"`
	Director    sql.Null[string]    `db:"director"`
	DirectorID  sql.Null[uuid.UUID] `db:"director_id"`
	Genres      string              `db:"genres"` // a JSON array
	Runtime     sql.Null[int]       `db:"runtime_minutes"`
	Budget      sql.Null[int64]     `db:"budget"`
	Language    sql.Null[string]    `db:"original_language"`
	Keywords    string              `db:"keywords"` // a JSON array of names
	TopCast     string              `db:"top_cast"` // a JSON array of {id, name, profile}
}

func (r wrapUpViewingRow) viewing() (wrapup.Viewing, error) {
	watched, err := sqlrow.ParseTime(r.WatchedAt)
	if err != nil {
		return wrapup.Viewing{}, err
	}
	v := wrapup.Viewing{WatchedAt: watched, Rating: r.Rating, Medium: sqlrow.Ptr(r.WatchMedium), UserID: r.UserID,
		UserName: r.UserName, MovieID: r.MovieID, Title: r.Title, Year: r.Year.V, Poster: sqlrow.Ptr(r.Poster),
		Director: sqlrow.Ptr(r.Director), DirectorID: sqlrow.Ptr(r.DirectorID), Runtime: sqlrow.Ptr(r.Runtime), Budget: sqlrow.Ptr(r.Budget),
		Language: sqlrow.Ptr(r.Language)}
	_ = json.Unmarshal([]byte(r.Genres), &v.Genres)
	_ = json.Unmarshal([]byte(r.Keywords), &v.Keywords)
	var cast []struct {
		ID      uuid.UUID `json:"id"`
		Name    string    `json:"name"`
		Profile *string   `json:"profile"`
	}
	_ = json.Unmarshal([]byte(r.TopCast), &cast)
	for _, c := range cast {
		v.Cast = append(v.Cast, wrapup.CastMember{PersonID: c.ID, Name: c.Name, ProfilePath: c.Profile})
	}
	return v, nil
}

// WrapUpViewings returns the local reviews watched in [start, end] (of one user, or of everyone
// when user is nil), oldest first, with their movies, top-billed cast and authors.
func (s *Store) WrapUpViewings(ctx context.Context, user *uuid.UUID, start, end domain.Date) ([]wrapup.Viewing, error) {
	var uid any
	if user != nil {
		uid = user.String()
	}
	var rows []wrapUpViewingRow
	err := s.read.SelectContext(ctx, &rows, `SELECT r.watched_at, r.rating, r.watch_medium, r.user_id,
			COALESCE(NULLIF(u.display_name, ''), u.username) AS user_name,
			m.id, m.title, m.release_year, m.poster_path, m.director, m.genres, m.runtime_minutes, m.original_language,
			(SELECT p.id FROM movie_credits c JOIN people p ON p.id = c.person_id
				WHERE c.movie_id = m.id AND c.kind = 'crew' AND c.role = 'Director' AND p.name = m.director LIMIT 1) AS director_id,
			json_extract(mp.profile, '$.budget_usd') AS budget,
			ifnull((SELECT json_group_array(json_extract(k.value, '$.name')) FROM json_each(mp.profile, '$.keywords') k
				WHERE json_extract(k.value, '$.name') IS NOT NULL), '[]') AS keywords,
			ifnull((SELECT json_group_array(json_object('id', id, 'name', name, 'profile', profile_path)) FROM (
				SELECT p.id, p.name, p.profile_path FROM movie_credits c JOIN people p ON p.id = c.person_id
				WHERE c.movie_id = m.id AND c.kind = 'cast' AND ifnull(c.billing_order, 99) < ?4
				ORDER BY c.billing_order, p.name)), '[]') AS top_cast
		FROM reviews r JOIN movies m ON m.id = r.movie_id JOIN users u ON u.id = r.user_id
			LEFT JOIN movie_profiles mp ON mp.movie_id = m.id AND json_valid(mp.profile)
		WHERE r.remote_actor_url IS NULL AND (?1 IS NULL OR r.user_id = ?1)
			AND r.watched_at >= ?2 AND r.watched_at < ?3
		ORDER BY r.watched_at, r.id`, uid, start.String(), end.Time().AddDate(0, 0, 1).Format("2006-01-02"), wrapup.TopBilling)
	if err != nil {
		return nil, fmt.Errorf("wrap-up viewings: %w", err)
	}
	return sqlrow.MapRows(rows, wrapUpViewingRow.viewing)
}

// RegenerateWrapUp sends a Ready wrap-up whose report predates the current schema (it lacks
// wrapup.CurrentSchemaKey) back to Pending with a new WrapUpRequested, in one transaction, so
// the worker writes the report again; ok reports whether it did. A report of the current
// schema, or a wrap-up that is not Ready, is left alone, so concurrent readers request it once.
func (s *Store) RegenerateWrapUp(ctx context.Context, id uuid.UUID) (bool, error) {
	ok := false
	err := s.writeGrouped(ctx, func(tx *sqlx.Tx) error {
		w, err := wrapUpWhere(ctx, tx, `id = ?`, id.String())
		if err != nil {
			return err
		}
		// Requested again now: the reaper of stuck wrap-ups measures a Pending one from created_at.
		res, err := tx.ExecContext(ctx, `UPDATE wrapups SET status = 'Pending', report = NULL, completed_at = NULL, created_at = ?
			WHERE id = ? AND status = 'Ready'
				AND (CASE WHEN json_valid(report) THEN json_type(report, '$.`+wrapup.CurrentSchemaKey+`') END) IS NULL`,
			sqlrow.FormatTime(s.now()), id.String())
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		ok = true
		return s.enqueue(ctx, tx, domain.WrapUpRequested{WrapUpID: w.ID, UserID: w.UserID, StartDate: w.StartDate, EndDate: w.EndDate})
	})
	if err != nil {
		return false, fmt.Errorf("regenerate wrap-up: %w", err)
	}
	return ok, nil
}

// CompleteWrapUp stores the report, marks the wrap-up Ready and enqueues WrapUpCompleted in one
// transaction, only if it is Generating: a second completion changes nothing and emits nothing.
func (s *Store) CompleteWrapUp(ctx context.Context, id uuid.UUID, report json.RawMessage, at time.Time) (bool, error) {
	done := false
	err := s.writeGrouped(ctx, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE wrapups SET status = 'Ready', report = ?, completed_at = ?, error_message = NULL
			WHERE id = ? AND status = 'Generating'`, string(report), sqlrow.FormatTime(at), id.String())
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		done = true
		return s.enqueue(ctx, tx, domain.WrapUpCompleted{WrapUpID: id})
	})
	if err != nil {
		return false, fmt.Errorf("complete wrap-up: %w", err)
	}
	return done, nil
}

// FailWrapUp marks a Generating wrap-up Failed with msg.
func (s *Store) FailWrapUp(ctx context.Context, id uuid.UUID, msg string) error {
	return s.writeGrouped(ctx, func(tx *sqlx.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE wrapups SET status = 'Failed', error_message = ? WHERE id = ? AND status = 'Generating'`,
			msg, id.String())
		return err
	})
}

// CleanupWrapUps deletes Failed wrap-ups created before failedBefore, and fails the Pending or
// Generating ones created before stuckBefore (their event was dead-lettered or their generation
// never finished), so the range can be requested again. It returns both counts.
func (s *Store) CleanupWrapUps(ctx context.Context, failedBefore, stuckBefore time.Time) (deleted, failed int64, err error) {
	err = s.writeGrouped(ctx, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM wrapups WHERE status = 'Failed' AND created_at < ?`, sqlrow.FormatTime(failedBefore))
		if err != nil {
			return err
		}
		deleted, _ = res.RowsAffected()
		res, err = tx.ExecContext(ctx, `UPDATE wrapups SET status = 'Failed', error_message = 'generation did not finish'
			WHERE status IN ('Pending', 'Generating') AND created_at < ?`, sqlrow.FormatTime(stuckBefore))
		if err != nil {
			return err
		}
		failed, _ = res.RowsAffected()
		return nil
	})
	if err != nil {
		return 0, 0, fmt.Errorf("clean up wrap-ups: %w", err)
	}
	return deleted, failed, nil
}

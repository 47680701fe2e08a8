package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/wrapup"
)

// StartWrapUp moves a wrap-up to Generating: a Pending one, a Failed one being retried, and a
// Generating one left by a crash (resumed). Gone, Ready, or a Failed one superseded by a newer
// live request of the same range (the live-range index refuses it) is nothing to do. The
// wrap-up is read FOR UPDATE; the update runs under a savepoint, because a unique violation
// aborts a PostgreSQL transaction and rolling back to the savepoint keeps it usable.
func (s *Store) StartWrapUp(ctx context.Context, id uuid.UUID) (domain.WrapUp, bool, error) {
	var (
		w  domain.WrapUp
		ok bool
	)
	err := s.write(ctx, func(tx *Tx) error {
		var err error
		w, err = wrapUpWhere(ctx, tx, `id = ?`+s.forUpdate(), id.String())
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
		if _, err := tx.ExecContext(ctx, `SAVEPOINT start_wrapup`); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE wrapups SET status = 'Generating', error_message = NULL WHERE id = ?`, id.String())
		if s.isUnique(err) {
			_, err = tx.ExecContext(ctx, `ROLLBACK TO SAVEPOINT start_wrapup`)
			return err
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
// movie and of its author, and the movie's enrichment profile, whose budget and keywords are
// read in Go (PostgreSQL 15 cannot skip a malformed JSON document in SQL without a
// function, so both engines read it here).
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
	Language    sql.Null[string]    `db:"original_language"`
	Profile     sql.Null[string]    `db:"profile"`  // the enrichment document
	TopCast     string              `db:"top_cast"` // a JSON array of {id, name, profile}
}

func (r wrapUpViewingRow) viewing() (wrapup.Viewing, error) {
	watched, err := sqlrow.ParseTime(r.WatchedAt)
	if err != nil {
		return wrapup.Viewing{}, err
	}
	v := wrapup.Viewing{WatchedAt: watched, Rating: r.Rating, Medium: sqlrow.Ptr(r.WatchMedium), UserID: r.UserID,
		UserName: r.UserName, MovieID: r.MovieID, Title: r.Title, Year: r.Year.V, Poster: sqlrow.Ptr(r.Poster),
		Director: sqlrow.Ptr(r.Director), DirectorID: sqlrow.Ptr(r.DirectorID), Runtime: sqlrow.Ptr(r.Runtime), Language: sqlrow.Ptr(r.Language)}
	_ = json.Unmarshal([]byte(r.Genres), &v.Genres)
	v.Budget, v.Keywords = profileFacts(r.Profile)
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

// profileFacts reads a movie's budget (a whole number of USD) and keyword names from its
// enrichment document; a missing, malformed or differently shaped document has neither, and
// keywords without a name are skipped, as the SQLite store's json_extract reads them.
func profileFacts(profile sql.Null[string]) (budget *int64, keywords []string) {
	keywords = []string{}
	if !profile.Valid {
		return nil, keywords
	}
	var doc struct {
		Budget   json.RawMessage   `json:"budget_usd"`
		Keywords []json.RawMessage `json:"keywords"`
	}
	if json.Unmarshal([]byte(profile.V), &doc) != nil {
		return nil, keywords
	}
	var b int64
	if json.Unmarshal(doc.Budget, &b) == nil {
		budget = &b
	}
	for _, k := range doc.Keywords {
		var kw struct {
			Name *string `json:"name"`
		}
		if json.Unmarshal(k, &kw) == nil && kw.Name != nil {
			keywords = append(keywords, *kw.Name)
		}
	}
	return budget, keywords
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
			COALESCE(NULLIF(u.display_name, ''), CAST(u.username AS TEXT)) AS user_name,
			m.id, m.title, m.release_year, m.poster_path, m.director, m.genres, m.runtime_minutes, m.original_language,
			(SELECT p.id FROM movie_credits c JOIN people p ON p.id = c.person_id
				WHERE c.movie_id = m.id AND c.kind = 'crew' AND c.role = 'Director' AND p.name = m.director LIMIT 1) AS director_id,
			mp.profile,
			`+s.d.JSONArrayOf([][2]string{{"id", "p.id"}, {"name", "p.name"}, {"profile", "p.profile_path"}},
		`movie_credits c JOIN people p ON p.id = c.person_id
				WHERE c.movie_id = m.id AND c.kind = 'cast' AND COALESCE(c.billing_order, 99) < ?`,
		`c.billing_order NULLS FIRST, `+s.d.Binary("p.name"))+` AS top_cast
		FROM reviews r JOIN movies m ON m.id = r.movie_id JOIN users u ON u.id = r.user_id
			LEFT JOIN movie_profiles mp ON mp.movie_id = m.id
		WHERE r.remote_actor_url IS NULL AND (CAST(? AS TEXT) IS NULL OR r.user_id = ?)
			AND r.watched_at >= ? AND r.watched_at < ?
		ORDER BY r.watched_at, r.id`, wrapup.TopBilling, uid, uid, start.String(), end.Time().AddDate(0, 0, 1).Format("2006-01-02"))
	if err != nil {
		return nil, fmt.Errorf("wrap-up viewings: %w", err)
	}
	return sqlrow.MapRows(rows, wrapUpViewingRow.viewing)
}

// RegenerateWrapUp sends a Ready wrap-up whose report predates the current schema (it lacks
// wrapup.CurrentSchemaKey) back to Pending with a new WrapUpRequested, in one transaction, so
// the worker writes the report again; ok reports whether it did. A report of the current
// schema, or a wrap-up that is not Ready, is left alone. The wrap-up is read FOR UPDATE, so of
// concurrent readers one requests it and the others then see it Pending.
func (s *Store) RegenerateWrapUp(ctx context.Context, id uuid.UUID) (bool, error) {
	ok := false
	err := s.write(ctx, func(tx *Tx) error {
		w, err := wrapUpWhere(ctx, tx, `id = ?`+s.forUpdate(), id.String())
		if err != nil {
			return err
		}
		if w.Status != domain.WrapUpReady || hasSchemaKey(w.Report) {
			return nil
		}
		// Requested again now: the reaper of stuck wrap-ups measures a Pending one from created_at.
		if _, err := tx.ExecContext(ctx, `UPDATE wrapups SET status = 'Pending', report = NULL, completed_at = NULL,
			created_at = ? WHERE id = ?`, sqlrow.FormatTime(s.now()), id.String()); err != nil {
			return err
		}
		ok = true
		return s.enqueue(ctx, tx, domain.WrapUpRequested{WrapUpID: w.ID, UserID: w.UserID, StartDate: w.StartDate, EndDate: w.EndDate})
	})
	if err != nil {
		return false, fmt.Errorf("regenerate wrap-up: %w", err)
	}
	return ok, nil
}

// hasSchemaKey reports whether report is a JSON object with wrapup.CurrentSchemaKey (of any
// value, null included), as the SQLite store's json_type test: anything else, malformed JSON
// included, is an old report. (PostgreSQL 15 cannot test JSON validity in SQL without a
// function, so the test is here.)
func hasSchemaKey(report json.RawMessage) bool {
	var keys map[string]json.RawMessage
	if json.Unmarshal(report, &keys) != nil {
		return false
	}
	_, ok := keys[wrapup.CurrentSchemaKey]
	return ok
}

// CompleteWrapUp stores the report, marks the wrap-up Ready and enqueues WrapUpCompleted in one
// transaction, only if it is Generating: a second completion changes nothing and emits nothing
// (its update waits for the first's row lock, then finds the wrap-up Ready).
func (s *Store) CompleteWrapUp(ctx context.Context, id uuid.UUID, report json.RawMessage, at time.Time) (bool, error) {
	done := false
	err := s.write(ctx, func(tx *Tx) error {
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
	return s.write(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE wrapups SET status = 'Failed', error_message = ? WHERE id = ? AND status = 'Generating'`,
			msg, id.String())
		return err
	})
}

// CleanupWrapUps deletes Failed wrap-ups created before failedBefore, and fails the Pending or
// Generating ones created before stuckBefore (their event was dead-lettered or their generation
// never finished), so the range can be requested again. It returns both counts. A wrap-up
// carried from movies-diary counts from its adoption (adopted_at) instead of its creation: the
// first run after the adoption neither deletes its history nor fails what the original's
// requests still owe.
func (s *Store) CleanupWrapUps(ctx context.Context, failedBefore, stuckBefore time.Time) (deleted, failed int64, err error) {
	err = s.write(ctx, func(tx *Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM wrapups WHERE status = 'Failed' AND COALESCE(adopted_at, created_at) < ?`, sqlrow.FormatTime(failedBefore))
		if err != nil {
			return err
		}
		deleted, _ = res.RowsAffected()
		res, err = tx.ExecContext(ctx, `UPDATE wrapups SET status = 'Failed', error_message = 'generation did not finish'
			WHERE status IN ('Pending', 'Generating') AND COALESCE(adopted_at, created_at) < ?`, sqlrow.FormatTime(stuckBefore))
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

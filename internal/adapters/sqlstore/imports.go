package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/importer"
)

// CreateImportSession stores a new session, invisible until CompleteImportSession.
func (s *Store) CreateImportSession(ctx context.Context, is importer.Session) error {
	cols, _ := json.Marshal(is.Columns)
	var mappings any
	if is.Mappings != nil {
		mappings = sqlrow.EncodeMappings(is.Mappings)
	}
	err := s.writeAlone(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO import_sessions (id, user_id, format, kind, target, columns, mappings,
			created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, is.ID.String(), is.UserID.String(), is.Format,
			string(is.Kind), string(is.Target), string(cols), mappings, sqlrow.Millis(is.CreatedAt), sqlrow.Millis(is.ExpiresAt))
		return err
	})
	if err != nil {
		return fmt.Errorf("create import session: %w", err)
	}
	return nil
}

// AppendImportRows stores a chunk of an upload's rows in one transaction.
func (s *Store) AppendImportRows(ctx context.Context, sessionID uuid.UUID, rows []importer.Row) error {
	err := s.writeAlone(ctx, func(tx *Tx) error {
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO import_rows (session_id, idx, cells, read_error) VALUES (?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		id := sessionID.String()
		for _, r := range rows {
			cells, _ := json.Marshal(r.Cells)
			var readErr any
			if r.ReadErr != "" {
				readErr = r.ReadErr
			}
			if _, err := stmt.ExecContext(ctx, id, r.Index, string(cells), readErr); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store import rows: %w", err)
	}
	return nil
}

// CompleteImportSession marks an upload stored in full.
func (s *Store) CompleteImportSession(ctx context.Context, sessionID uuid.UUID, rowCount int) error {
	return s.execImport(ctx, "complete import session", `UPDATE import_sessions SET complete = true, row_count = ? WHERE id = ?`,
		rowCount, sessionID.String())
}

// ImportDeleteBatch bounds the rows one transaction of DeleteImportRows removes. Deleting a
// session's rows all at once held SQLite's one writer for as long as they took (17 s for 2,000
// rows of 20 MB cells, minutes for 50,000): in batches, every other write gets its turn between
// two of them.
const ImportDeleteBatch = 500

// DeleteImportRows deletes up to limit of a session's rows, lowest index first, in one
// transaction, and says how many it deleted.
func (s *Store) DeleteImportRows(ctx context.Context, sessionID uuid.UUID, limit int) (int64, error) {
	return s.deleteImportRows(ctx, sessionID.String(), limit)
}

func (s *Store) deleteImportRows(ctx context.Context, sessionID string, limit int) (int64, error) {
	var n int64
	err := s.writeAlone(ctx, func(tx *Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM import_rows WHERE session_id = ? AND idx IN (
			SELECT idx FROM import_rows WHERE session_id = ? ORDER BY idx LIMIT ?)`, sessionID, sessionID, limit)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("delete import rows: %w", err)
	}
	return n, nil
}

// DeleteImportSession deletes a session's rows in batches of ImportDeleteBatch, each its own
// transaction, then the session.
func (s *Store) DeleteImportSession(ctx context.Context, sessionID uuid.UUID) error {
	return s.deleteImportSession(ctx, sessionID.String())
}

func (s *Store) deleteImportSession(ctx context.Context, sessionID string) error {
	for {
		n, err := s.deleteImportRows(ctx, sessionID, ImportDeleteBatch)
		if err != nil {
			return err
		}
		if n < ImportDeleteBatch {
			break
		}
	}
	return s.execImport(ctx, "delete import session", `DELETE FROM import_sessions WHERE id = ?`, sessionID)
}

// DeleteExpiredImportSessions deletes the sessions expired at now, with their rows (in batches,
// as DeleteImportSession does), and says how many there were. Uploads that never completed
// (their request died) expire like the others.
func (s *Store) DeleteExpiredImportSessions(ctx context.Context, now time.Time) (int64, error) {
	var n int64
	for {
		var ids []string
		if err := s.read.SelectContext(ctx, &ids, `SELECT id FROM import_sessions WHERE expires_at <= ? ORDER BY id LIMIT 100`,
			sqlrow.Millis(now)); err != nil {
			return n, fmt.Errorf("delete expired import sessions: %w", err)
		}
		for _, id := range ids {
			if err := s.deleteImportSession(ctx, id); err != nil {
				return n, fmt.Errorf("delete expired import sessions: %w", err)
			}
			n++
		}
		if len(ids) < 100 {
			return n, nil
		}
	}
}

// SetImportMappings replaces a session's mappings.
func (s *Store) SetImportMappings(ctx context.Context, sessionID uuid.UUID, ms []importer.Mapping) error {
	return s.execImport(ctx, "set import mappings", `UPDATE import_sessions SET mappings = ? WHERE id = ?`,
		sqlrow.EncodeMappings(ms), sessionID.String())
}

func (s *Store) execImport(ctx context.Context, what, query string, args ...any) error {
	err := s.writeAlone(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, query, args...)
		return err
	})
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// ImportSession returns the user's complete, unexpired session id, with its progress.
func (s *Store) ImportSession(ctx context.Context, userID, id uuid.UUID, now time.Time) (importer.Session, error) {
	var row sqlrow.ImportSession
	err := s.read.GetContext(ctx, &row, `SELECT s.id, s.user_id, s.format, s.kind, s.target, s.columns, s.mappings,
		s.row_count, s.federate, s.created_at, s.expires_at,
		count(*) FILTER (WHERE r.selected = true) AS confirmed,
		count(*) FILTER (WHERE r.selected = true AND r.outcome IS NOT NULL) AS processed,
		count(*) FILTER (WHERE r.selected = true AND r.outcome = 'imported') AS imported,
		count(*) FILTER (WHERE r.selected = true AND r.outcome = 'duplicate') AS duplicates,
		count(*) FILTER (WHERE r.selected = true AND r.outcome = 'failed') AS failed
		FROM import_sessions s LEFT JOIN import_rows r ON r.session_id = s.id AND r.selected = true
		WHERE s.id = ? AND s.user_id = ? AND s.complete = true AND s.expires_at > ?
		GROUP BY s.id`, id.String(), userID.String(), sqlrow.Millis(now))
	if err != nil {
		return importer.Session{}, sqlrow.NotFound(err, "Entity not found: import session")
	}
	var cols []string
	if err := json.Unmarshal([]byte(row.Columns), &cols); err != nil {
		return importer.Session{}, fmt.Errorf("stored import columns: %w", err)
	}
	out := importer.Session{
		ID: row.ID, UserID: row.UserID, Format: row.Format, Kind: importer.Kind(row.Kind), Target: importer.Target(row.Target),
		Columns: cols, RowCount: row.RowCount, Federate: row.Federate,
		CreatedAt: time.UnixMilli(row.CreatedAt).UTC(), ExpiresAt: time.UnixMilli(row.ExpiresAt).UTC(),
		Progress: importer.Progress{Confirmed: row.Confirmed, Processed: row.Processed, Imported: row.Imported,
			Duplicates: row.Duplicates, Failed: row.Failed},
	}
	if row.Mappings.Valid {
		if out.Mappings, err = sqlrow.DecodeMappings(row.Mappings.V); err != nil {
			return importer.Session{}, err
		}
	}
	return out, nil
}

// ImportRows returns up to limit rows of a session after index after.
func (s *Store) ImportRows(ctx context.Context, sessionID uuid.UUID, after, limit int) ([]importer.Row, error) {
	return s.importRows(ctx, `idx > ?`, sessionID, after, limit)
}

// PendingImportRows returns up to limit confirmed rows without an outcome.
func (s *Store) PendingImportRows(ctx context.Context, sessionID uuid.UUID, limit int) ([]importer.Row, error) {
	return s.importRows(ctx, `selected = true AND outcome IS NULL AND idx > ?`, sessionID, -1, limit)
}

func (s *Store) importRows(ctx context.Context, where string, sessionID uuid.UUID, after, limit int) ([]importer.Row, error) {
	var rows []sqlrow.ImportRow
	err := s.read.SelectContext(ctx, &rows, `SELECT idx, cells, read_error FROM import_rows
		WHERE session_id = ? AND `+where+` ORDER BY idx LIMIT ?`, sessionID.String(), after, limit)
	if err != nil {
		return nil, fmt.Errorf("read import rows: %w", err)
	}
	return sqlrow.MapRows(rows, sqlrow.ImportRow.Row)
}

// SelectImportRows marks the rows at indices confirmed, with the federate choice and a new
// expiry, in one transaction.
func (s *Store) SelectImportRows(ctx context.Context, sessionID uuid.UUID, indices []int, federate bool, expires time.Time) error {
	raw, _ := json.Marshal(indices)
	err := s.writeAlone(ctx, func(tx *Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE import_rows SET selected = true WHERE session_id = ? AND selected = false
			AND idx IN (`+s.d.IntsFromJSON()+`)`, sessionID.String(), string(raw)); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE import_sessions SET federate = ?, expires_at = `+s.d.Greatest()+`(expires_at, ?) WHERE id = ?`,
			federate, sqlrow.Millis(expires), sessionID.String())
		return err
	})
	if err != nil {
		return fmt.Errorf("select import rows: %w", err)
	}
	return nil
}

// WriteImportBatch writes a confirm batch in one transaction: for each row its review (or
// watchlist entry), its movie when new, their events, and the row's outcome. A review of a movie
// the user already reviewed that day, or an entry already on the watchlist, is a duplicate and
// writes nothing but the outcome. A row another batch wrote already is a conflict, and the whole
// batch is rolled back: a batch run again after a crash, or twice at once, logs its reviews once.
//
// Where writers run concurrently a batch stores many movies and reviews in its own order, so
// beside another writer (a batch of another user naming the same new movies in another order, or
// a review logged meanwhile) it can wait for a movie the other is storing while the other waits
// for the review counter rows this one holds. PostgreSQL then aborts one of them
// (deadlock_detected); nothing of it was committed, so it is run again (againOnDeadlock).
func (s *Store) WriteImportBatch(ctx context.Context, b importer.Batch) error {
	err := s.againOnDeadlock(func() error { return s.writeImportBatch(ctx, b) })
	if err != nil {
		return fmt.Errorf("write import batch: %w", err)
	}
	return nil
}

func (s *Store) writeImportBatch(ctx context.Context, b importer.Batch) error {
	return s.writeAlone(ctx, func(tx *Tx) error {
		if err := s.lockUserImports(ctx, tx, b.UserID); err != nil {
			return err
		}
		st, err := s.prepareBatch(ctx, tx)
		if err != nil {
			return err
		}
		defer st.close()
		var events []domain.Event
		for _, it := range inLockOrder(b.Items) {
			outcome, errText := importer.OutcomeFailed, it.Err
			if it.Err == "" {
				var evs []domain.Event
				var err error
				if b.Target == importer.TargetWatchlist {
					outcome, evs, err = st.importWatchlistEntry(ctx, tx, b, it)
				} else {
					outcome, evs, err = st.importReview(ctx, tx, b, it)
				}
				if err != nil {
					return fmt.Errorf("row %d: %w", it.Index, err)
				}
				events = append(events, evs...)
			}
			res, err := st.outcome.ExecContext(ctx, outcome, nullIfEmpty(errText), b.SessionID.String(), it.Index)
			if err != nil {
				return fmt.Errorf("row %d outcome: %w", it.Index, err)
			}
			if n, _ := res.RowsAffected(); n != 1 {
				return domain.Errorf(domain.KindConflict, "import row %d was written by another confirm", it.Index)
			}
		}
		return s.enqueue(ctx, tx, events...)
	})
}

// lockUserImports serialises the confirm batches of one user for the rest of tx. On SQLite the
// single writer makes a batch's reads and writes one step; where writers run concurrently two batches of the user (the
// same session resumed on two hosts, or two sessions) would both find a movie not yet reviewed
// that day and both log it, or both find a row without its outcome. A transaction-level
// advisory lock on the user makes the second batch wait for the first to commit, and its reads
// (READ COMMITTED, each statement sees the commits before it) then see the first's reviews
// and outcomes: its rows are a conflict, and nothing is logged twice.
func (s *Store) lockUserImports(ctx context.Context, tx *Tx, userID uuid.UUID) error {
	return s.lock(ctx, tx, "the user's imports", `SELECT pg_advisory_xact_lock(hashtextextended(?, 0))`, "imports "+userID.String())
}

// inLockOrder is the batch's items sorted by their movie (stably: a user's rows of one movie keep
// their order, so the first of two reviews on one day is the one imported). Writing a new movie
// holds its key, and a review holds its movie's counts, until commit: batches of different users
// naming the same movies in different orders would wait for each other in a cycle (PostgreSQL
// then aborts one, and its retry, starting over from its first row, meets the other again), while
// in one order the second batch only waits behind the first.
func inLockOrder(items []importer.Item) []importer.Item {
	sorted := slices.Clone(items)
	slices.SortStableFunc(sorted, func(a, b importer.Item) int { return strings.Compare(movieKey(a.Movie), movieKey(b.Movie)) })
	return sorted
}

// movieKey names the movie an item writes as findMovie looks it up.
func movieKey(m domain.Movie) string {
	switch {
	case m.ExternalID != nil:
		return "e\x00" + *m.ExternalID
	case m.ID != uuid.Nil:
		return "i\x00" + m.ID.String()
	}
	director := ""
	if m.Director != nil {
		director = strings.ToLower(*m.Director)
	}
	return fmt.Sprintf("t\x00%s\x00%d\x00%s", strings.ToLower(m.Title), m.ReleaseYear, director)
}

// batchStmts are a confirm batch's per-row statements, prepared once per batch: parsing them
// again for each of 500 rows cost more than running them.
type batchStmts struct {
	s                                  *Store // s stores the movies a batch names first
	insert, reviewed, unwatch, outcome *sql.Stmt
}

func (s *Store) prepareBatch(ctx context.Context, tx *Tx) (*batchStmts, error) {
	st := &batchStmts{s: s}
	for _, p := range []struct {
		to    **sql.Stmt
		query string
	}{
		{&st.insert, `INSERT INTO reviews (id, user_id, movie_id, rating, rating_precise, rewatch, comment, watch_medium,
			watched_at, created_at, updated_at, quiet) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`},
		{&st.reviewed, reviewedOnQuery},
		{&st.unwatch, `DELETE FROM watchlist WHERE user_id = ? AND movie_id = ?`},
		{&st.outcome, `UPDATE import_rows SET outcome = ?, error = ? WHERE session_id = ? AND idx = ? AND outcome IS NULL`},
	} {
		stmt, err := tx.PrepareContext(ctx, p.query)
		if err != nil {
			st.close()
			return nil, fmt.Errorf("prepare import batch: %w", err)
		}
		*p.to = stmt
	}
	return st, nil
}

func (st *batchStmts) close() {
	for _, s := range []*sql.Stmt{st.insert, st.reviewed, st.unwatch, st.outcome} {
		if s != nil {
			_ = s.Close()
		}
	}
}

// importReview stores one imported review like LogReview does (its movie if new, off the
// watchlist), quiet when asked, unless the user reviewed that movie on that day already.
func (st *batchStmts) importReview(ctx context.Context, tx *Tx, b importer.Batch, it importer.Item) (string, []domain.Event, error) {
	mv, events, err := st.s.ensureMovie(ctx, tx, it.Movie)
	if err != nil {
		return "", nil, err
	}
	r := it.Review
	r.MovieID = mv.ID
	var dup bool
	if err := st.reviewed.QueryRowContext(ctx, r.UserID.String(), mv.ID.String(), day(r.WatchedAt)).Scan(&dup); err != nil {
		return "", nil, fmt.Errorf("find duplicate review: %w", err)
	}
	if dup {
		return importer.OutcomeDuplicate, events, nil
	}
	_, err = st.insert.ExecContext(ctx, r.ID.String(), r.UserID.String(), r.MovieID.String(), r.Rating,
		sqlrow.NullOf(r.RatingPrecise), r.Rewatch, sqlrow.NullString(r.Comment),
		sqlrow.MediumValue(r.WatchMedium), sqlrow.FormatTime(r.WatchedAt), sqlrow.FormatTime(r.CreatedAt), sqlrow.FormatTime(r.UpdatedAt), b.Quiet)
	if err != nil {
		return "", nil, fmt.Errorf("insert review: %w", err)
	}
	removed, err := st.unwatch.ExecContext(ctx, r.UserID.String(), mv.ID.String())
	if err != nil {
		return "", nil, fmt.Errorf("remove from watchlist: %w", err)
	}
	if n, _ := removed.RowsAffected(); n > 0 {
		events = append(events, domain.WatchlistEntryRemoved{UserID: r.UserID, MovieID: mv.ID})
	}
	events = append(events, domain.ReviewLogged{ReviewID: r.ID, MovieID: mv.ID, UserID: r.UserID, Rating: uint8(r.Rating),
		WatchedAt: domain.NewUnixTime(r.WatchedAt), Quiet: b.Quiet})
	return importer.OutcomeImported, events, nil
}

// importWatchlistEntry puts one imported movie on the watchlist unless it is there already.
func (st *batchStmts) importWatchlistEntry(ctx context.Context, tx *Tx, b importer.Batch, it importer.Item) (string, []domain.Event, error) {
	mv, events, err := st.s.ensureMovie(ctx, tx, it.Movie)
	if err != nil {
		return "", nil, err
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO watchlist (user_id, movie_id, added_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`,
		b.UserID.String(), mv.ID.String(), sqlrow.FormatTime(b.Now))
	if err != nil {
		return "", nil, fmt.Errorf("insert watchlist entry: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return importer.OutcomeDuplicate, events, nil
	}
	return importer.OutcomeImported, append(events, domain.WatchlistEntryAdded{
		UserID: b.UserID, MovieID: mv.ID, MovieTitle: mv.Title, ReleaseYear: uint16(mv.ReleaseYear),
		ExternalMetadataID: mv.ExternalID, AddedAt: domain.NewUnixTime(b.Now), Quiet: b.Quiet,
	}), nil
}

// reviewedOnQuery finds a user's review of a movie watched on a day (YYYY-MM-DD).
const reviewedOnQuery = `SELECT EXISTS (SELECT 1 FROM reviews WHERE user_id = ? AND movie_id = ?
	AND substr(watched_at, 1, 10) = ?)`

// day is the calendar day (UTC) of t as stored watched_at values begin.
func day(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// reviewedOn reports whether the user has a review of the movie watched on the day of t.
func reviewedOn(ctx context.Context, q Queryer, userID, movieID uuid.UUID, t time.Time) (bool, error) {
	var found bool
	if err := sqlx.GetContext(ctx, q, &found, reviewedOnQuery, userID.String(), movieID.String(), day(t)); err != nil {
		return false, fmt.Errorf("find duplicate review: %w", err)
	}
	return found, nil
}

// ImportDuplicate reports whether the user already has a review of m on the day of watched, or,
// with a zero watched, m on the watchlist. A movie not stored yet has neither.
func (s *Store) ImportDuplicate(ctx context.Context, userID uuid.UUID, m domain.Movie, watched time.Time) (bool, error) {
	found, err := s.findMovie(ctx, s.read, m, "")
	if errors.Is(err, domain.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if !watched.IsZero() {
		return reviewedOn(ctx, s.read, userID, found.ID, watched)
	}
	var on bool
	err = s.read.GetContext(ctx, &on, `SELECT EXISTS (SELECT 1 FROM watchlist WHERE user_id = ? AND movie_id = ?)`,
		userID.String(), found.ID.String())
	if err != nil {
		return false, fmt.Errorf("find watchlist entry: %w", err)
	}
	return on, nil
}

// InterruptedImportSessions lists the complete, unexpired sessions that have confirmed rows
// without an outcome.
func (s *Store) InterruptedImportSessions(ctx context.Context, now time.Time) ([]importer.SessionRef, error) {
	var rows []struct {
		ID     uuid.UUID `db:"id"`
		UserID uuid.UUID `db:"user_id"`
	}
	err := s.read.SelectContext(ctx, &rows, `SELECT s.id, s.user_id FROM import_sessions s
		WHERE s.complete = true AND s.expires_at > ? AND EXISTS (SELECT 1 FROM import_rows r
			WHERE r.session_id = s.id AND r.selected = true AND r.outcome IS NULL)
		ORDER BY s.created_at`, sqlrow.Millis(now))
	if err != nil {
		return nil, fmt.Errorf("interrupted import sessions: %w", err)
	}
	out := make([]importer.SessionRef, len(rows))
	for i, r := range rows {
		out[i] = importer.SessionRef{ID: r.ID, UserID: r.UserID}
	}
	return out, nil
}

// ImportFailures lists a session's confirmed rows that failed, in order.
func (s *Store) ImportFailures(ctx context.Context, sessionID uuid.UUID) ([]importer.Failure, error) {
	var rows []struct {
		Idx   int              `db:"idx"`
		Error sql.Null[string] `db:"error"`
	}
	err := s.read.SelectContext(ctx, &rows, `SELECT idx, error FROM import_rows WHERE session_id = ? AND selected = true
		AND outcome = 'failed' ORDER BY idx`, sessionID.String())
	if err != nil {
		return nil, fmt.Errorf("import failures: %w", err)
	}
	out := make([]importer.Failure, len(rows))
	for i, r := range rows {
		out[i] = importer.Failure{Index: r.Idx, Error: r.Error.V}
	}
	return out, nil
}

// SaveImportProfile stores a mapping profile.
func (s *Store) SaveImportProfile(ctx context.Context, p importer.Profile) error {
	return s.execImport(ctx, "save import profile", `INSERT INTO import_profiles (id, user_id, name, mappings, created_at)
		VALUES (?, ?, ?, ?, ?)`, p.ID.String(), p.UserID.String(), p.Name, sqlrow.EncodeMappings(p.Mappings), sqlrow.FormatTime(p.CreatedAt))
}

// ImportProfiles lists the user's profiles, oldest first.
func (s *Store) ImportProfiles(ctx context.Context, userID uuid.UUID) ([]importer.Profile, error) {
	var rows []sqlrow.ImportProfile
	if err := s.read.SelectContext(ctx, &rows, `SELECT id, user_id, name, mappings, created_at FROM import_profiles
		WHERE user_id = ? ORDER BY created_at, id`, userID.String()); err != nil {
		return nil, fmt.Errorf("import profiles: %w", err)
	}
	return sqlrow.MapRows(rows, sqlrow.ImportProfile.Profile)
}

// ImportProfile returns one of the user's profiles.
func (s *Store) ImportProfile(ctx context.Context, userID, id uuid.UUID) (importer.Profile, error) {
	var row sqlrow.ImportProfile
	if err := s.read.GetContext(ctx, &row, `SELECT id, user_id, name, mappings, created_at FROM import_profiles
		WHERE id = ? AND user_id = ?`, id.String(), userID.String()); err != nil {
		return importer.Profile{}, sqlrow.NotFound(err, "Entity not found: import profile")
	}
	return row.Profile()
}

// DeleteImportProfile deletes one of the user's profiles.
func (s *Store) DeleteImportProfile(ctx context.Context, userID, id uuid.UUID) error {
	var n int64
	err := s.writeAlone(ctx, func(tx *Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM import_profiles WHERE id = ? AND user_id = ?`, id.String(), userID.String())
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return fmt.Errorf("delete import profile: %w", err)
	}
	if n == 0 {
		return domain.NotFound("Entity not found: import profile")
	}
	return nil
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

package importer

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/movie"
)

// ConfirmResult is what a session's confirmed rows became: the original's answer. It counts
// every row confirmed in the session so far, so a confirm repeated after a crash reports the
// whole import, not only what the second call wrote.
type ConfirmResult struct {
	Imported   int
	Duplicates int
	Failed     []Failure
}

// Confirm writes the rows at indices (0-based, as in the preview) in batches of BatchSize, one
// transaction each with every review's events; rows a confirm already wrote are not written
// again, so calling it again after a crash finishes the import without doubling anything.
// Movies are resolved like POST /reviews (the same resolver: external id, stored movie, TMDb,
// manual fields). Unless federate is set, the reviews are quiet: federation does not announce
// them. The work goes on if the client disconnects; progress is visible on the session.
func (s *Service) Confirm(ctx context.Context, userID, id uuid.UUID, indices []int, federate bool) (ConfirmResult, error) {
	sess, err := s.Get(ctx, userID, id)
	if err != nil {
		return ConfirmResult{}, err
	}
	if sess.Mappings == nil {
		return ConfirmResult{}, domain.Invalid("the session has no mapping yet: PUT …/mapping first")
	}
	m, err := compile(sess.Columns, sess.Mappings, sess.Target)
	if err != nil {
		return ConfirmResult{}, err
	}
	if !s.claim(id) {
		return ConfirmResult{}, domain.Errorf(domain.KindConflict, "the import is already being confirmed; GET the session for its progress")
	}
	defer s.release(id)
	ctx = context.WithoutCancel(ctx)

	var outside []Failure
	valid := make([]int, 0, len(indices))
	for _, i := range indices {
		if i < 0 || i >= sess.RowCount {
			outside = append(outside, Failure{Index: i, Error: fmt.Sprintf("no row %d: the file has %d rows", i, sess.RowCount)})
			continue
		}
		valid = append(valid, i)
	}
	if err := s.store.SelectImportRows(ctx, id, valid, federate, s.now().Add(SessionTTL)); err != nil {
		return ConfirmResult{}, err
	}
	if err := s.write(ctx, sess, m, federate); err != nil {
		return ConfirmResult{}, err
	}
	done, err := s.store.ImportSession(ctx, userID, id, s.now())
	if err != nil {
		return ConfirmResult{}, err
	}
	failed, err := s.store.ImportFailures(ctx, id)
	if err != nil {
		return ConfirmResult{}, err
	}
	failed = append(failed, outside...)
	sort.SliceStable(failed, func(i, j int) bool { return failed[i].Index < failed[j].Index })
	return ConfirmResult{Imported: done.Progress.Imported, Duplicates: done.Progress.Duplicates, Failed: failed}, nil
}

// write writes a session's confirmed rows that have no outcome yet, batch by batch, until none
// is left or ctx ends (between batches, or inside one, which then rolls back).
func (s *Service) write(ctx context.Context, sess Session, m mapper, federate bool) error {
	res := resolver{r: s.resolver, movies: map[string]domain.Movie{}}
	for ctx.Err() == nil {
		rows, err := s.store.PendingImportRows(ctx, sess.ID, BatchSize)
		if err != nil {
			return err
		}
		if len(rows) == 0 {
			return nil
		}
		b := Batch{SessionID: sess.ID, UserID: sess.UserID, Target: sess.Target, Quiet: !federate, Now: s.now().UTC()}
		for _, r := range rows {
			it, err := s.item(ctx, &res, m, sess, r, b.Now)
			if err != nil {
				// Ours, not the row's (the database, a bug): stop; the rows stay pending and a
				// later confirm picks them up.
				return fmt.Errorf("import row %d: %w", r.Index, err)
			}
			// A row's error may quote what the row holds; it is stored as text like any other.
			it.Err = domain.StripControl(it.Err, true)
			b.Items = append(b.Items, it)
		}
		if err := s.store.WriteImportBatch(ctx, b); err != nil {
			return fmt.Errorf("import batch at row %d: %w", rows[0].Index, err)
		}
	}
	return ctx.Err()
}

// Resume finishes the confirms a crash interrupted: every unexpired session with confirmed
// rows still unwritten and no confirm running in this process, with the federate choice of its
// last confirm. It returns how many rows it wrote. The server runs it at start-up and hourly;
// it stops between batches when ctx ends.
func (s *Service) Resume(ctx context.Context) (int64, error) {
	ids, err := s.store.InterruptedImportSessions(ctx, s.now())
	if err != nil {
		return 0, err
	}
	var written int64
	for _, ref := range ids {
		n, err := s.resume(ctx, ref.UserID, ref.ID)
		written += n
		if err != nil {
			return written, fmt.Errorf("resume import %s: %w", ref.ID, err)
		}
	}
	return written, nil
}

func (s *Service) resume(ctx context.Context, userID, id uuid.UUID) (int64, error) {
	sess, err := s.Get(ctx, userID, id)
	if errors.Is(err, domain.ErrNotFound) {
		return 0, nil // expired or deleted since
	}
	if err != nil || sess.Running || sess.Mappings == nil {
		return 0, err
	}
	m, err := compile(sess.Columns, sess.Mappings, sess.Target)
	if err != nil {
		return 0, err
	}
	if !s.claim(id) {
		return 0, nil
	}
	defer s.release(id)
	s.log.InfoContext(ctx, "import: resuming an interrupted confirm", "session_id", id,
		"confirmed", sess.Progress.Confirmed, "processed", sess.Progress.Processed)
	err = s.write(ctx, sess, m, sess.Federate)
	after, gerr := s.store.ImportSession(context.WithoutCancel(ctx), userID, id, s.now())
	if gerr != nil {
		return 0, errors.Join(err, gerr)
	}
	return int64(after.Progress.Processed - sess.Progress.Processed), err
}

// item turns a stored row into what the batch writes: a row's own problem (a missing field,
// a movie that cannot be resolved) is its failure; an internal error is returned.
func (s *Service) item(ctx context.Context, res *resolver, m mapper, sess Session, r Row, now time.Time) (Item, error) {
	it := Item{Index: r.Index}
	if r.ReadErr != "" {
		it.Err = r.ReadErr
		return it, nil
	}
	c, errs := m.row(r.Cells)
	if len(errs) > 0 {
		it.Err = strings.Join(errs, "; ")
		return it, nil
	}
	mv, err := res.resolve(ctx, c)
	if err != nil {
		if domain.KindOf(err) == domain.KindInternal {
			return it, err
		}
		it.Err = err.Error()
		return it, nil
	}
	it.Movie = mv
	if sess.Target == TargetWatchlist {
		return it, nil
	}
	rid, err := uuid.NewV7()
	if err != nil {
		return it, err
	}
	rv := domain.Review{ID: rid, UserID: sess.UserID, Rating: c.Rating, RatingPrecise: c.RatingPrecise, Rewatch: c.Rewatch,
		Comment: optional(c.Comment), WatchedAt: c.WatchedAt, WatchMedium: c.WatchMedium, CreatedAt: now, UpdatedAt: now}
	if err := rv.Validate(); err != nil {
		it.Err = err.Error()
		return it, nil
	}
	it.Review = rv
	return it, nil
}

// resolver resolves rows' movies through the review resolver, once per external id in a
// confirm: a file names the same movie many times (rewatches), and TMDb is asked once.
type resolver struct {
	r      *movie.Resolver
	movies map[string]domain.Movie
}

func (r *resolver) resolve(ctx context.Context, c Candidate) (domain.Movie, error) {
	if m, ok := r.movies[c.ExternalID]; ok && c.ExternalID != "" {
		return m, nil
	}
	m, err := r.r.Resolve(ctx, movie.Request{ExternalID: c.ExternalID, ManualTitle: optional(c.Title),
		ManualYear: c.Year, ManualDirector: optional(c.Director)})
	if err == nil && c.ExternalID != "" {
		r.movies[c.ExternalID] = m
	}
	return m, err
}

func (s *Service) claim(id uuid.UUID) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running[id] {
		return false
	}
	s.running[id] = true
	return true
}

func (s *Service) release(id uuid.UUID) {
	s.mu.Lock()
	delete(s.running, id)
	s.mu.Unlock()
}

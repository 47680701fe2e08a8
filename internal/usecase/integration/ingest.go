package integration

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/movie"
)

// Outcome is what an ingest did with a report.
type Outcome string

// The outcomes of an ingest.
const (
	// Queued: a new pending watch event.
	Queued Outcome = "queued"
	// Duplicate: the same movie was reported for the user within WatchDedupWindow.
	Duplicate Outcome = "duplicate"
	// AutoConfirmed: the token's auto-confirm rating logged it as a review at once.
	AutoConfirmed Outcome = "auto_confirmed"
)

// Ingest puts a reported movie in the token owner's watch queue: one watch event with its
// WatchEventIngested, unless the same movie was reported for the user within WatchDedupWindow.
// A token with an auto-confirm rating logs the review in the same transaction instead; when
// the movie cannot be resolved (no external id and no year), the watch is queued for the user
// to decide.
func (s *Service) Ingest(ctx context.Context, tok domain.WebhookToken, rep Report) (Outcome, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return "", err
	}
	now := s.now().UTC()
	ev := domain.WatchEvent{
		ID: id, UserID: tok.UserID, Source: tok.Provider, Title: rep.Title, Year: plausibleYear(rep.Year),
		Status: domain.WatchPending, WatchedAt: now.Truncate(time.Second),
	}
	if len(ev.Title) > domain.MaxTitleBytes {
		ev.Title = strings.ToValidUTF8(ev.Title[:domain.MaxTitleBytes], "")
	}
	if rep.ExternalID != "" {
		ext := rep.ExternalID
		ev.ExternalID = &ext
		m, err := s.store.MovieByExternalID(ctx, ext)
		switch {
		case err == nil:
			ev.MovieID = &m.ID
		case !errors.Is(err, domain.ErrNotFound):
			return "", fmt.Errorf("ingest watch: %w", err)
		}
	}
	var confirm *Confirmed
	if tok.AutoConfirmRating != nil {
		c, err := s.confirmed(ctx, ev, *tok.AutoConfirmRating, nil)
		switch {
		case err == nil:
			confirm = &c
			ev.Status, ev.ReviewID, ev.ClosedAt = domain.WatchConfirmed, &c.Review.ID, &now
		case domain.KindOf(err) != domain.KindInvalid:
			return "", err
		}
	}
	saved, err := s.store.SaveWatch(ctx, ev, now.Add(-domain.WatchDedupWindow), confirm)
	switch {
	case err != nil:
		return "", err
	case !saved:
		return Duplicate, nil
	case confirm != nil:
		return AutoConfirmed, nil
	}
	return Queued, nil
}

// confirmed turns a watch event into a review rated rating, with watch_medium media_server,
// of the movie the event names, resolved as POST /reviews resolves one.
func (s *Service) confirmed(ctx context.Context, ev domain.WatchEvent, rating int, comment *string) (Confirmed, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return Confirmed{}, err
	}
	now := s.now().UTC()
	medium := domain.MediumMediaServer
	r := domain.Review{
		ID: id, UserID: ev.UserID, Rating: rating, Comment: comment, WatchedAt: ev.WatchedAt,
		WatchMedium: &medium, CreatedAt: now, UpdatedAt: now,
	}
	if err := r.Validate(); err != nil {
		return Confirmed{}, err
	}
	req := movie.Request{ManualTitle: &ev.Title, ManualYear: ev.Year}
	if ev.ExternalID != nil {
		req.ExternalID = *ev.ExternalID
	}
	m, err := s.resolver.Resolve(ctx, req)
	if err != nil {
		return Confirmed{}, err
	}
	return Confirmed{EventID: ev.ID, Review: r, Movie: m}, nil
}

// plausibleYear is a media server's year when a film can have it (MinReleaseYear up to
// MaxReleaseYear), else unknown: a scrobble with a garbled year is still a watch of its title,
// and the year never reaches a column it overflows.
func plausibleYear(y *int) *int {
	if y == nil || *y < domain.MinReleaseYear || *y > domain.MaxReleaseYear {
		return nil
	}
	return y
}

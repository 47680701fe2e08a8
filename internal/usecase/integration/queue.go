package integration

import (
	"context"
	"slices"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// Queue is the user's pending watch events, oldest first.
func (s *Service) Queue(ctx context.Context, userID uuid.UUID) ([]domain.WatchEvent, error) {
	return s.store.PendingWatches(ctx, userID)
}

// Waiting is how many watches wait in the user's queue (the pages' navigation shows it).
func (s *Service) Waiting(ctx context.Context, userID uuid.UUID) (int, error) {
	return s.store.PendingWatchCount(ctx, userID)
}

// Confirmation is a user's rating of one queued watch.
type Confirmation struct {
	WatchEventID uuid.UUID
	Rating       int
	Comment      *string
}

// Confirm logs a review (watch_medium media_server) for each confirmation and closes its watch
// event, all in one transaction with each review's ReviewLogged and its movie's events. Every
// item is checked before anything is written: a bad rating is KindInvalid, an unknown event
// KindNotFound, another user's KindForbidden, one already confirmed or dismissed KindConflict,
// and then nothing is confirmed. A watch event named twice counts once.
func (s *Service) Confirm(ctx context.Context, userID uuid.UUID, cs []Confirmation) (int, error) {
	for _, c := range cs {
		if err := domain.ValidateRating(c.Rating); err != nil {
			return 0, err
		}
	}
	seen := map[uuid.UUID]bool{}
	out := make([]Confirmed, 0, len(cs))
	for _, c := range cs {
		if seen[c.WatchEventID] {
			continue
		}
		seen[c.WatchEventID] = true
		ev, err := s.store.WatchEvent(ctx, c.WatchEventID)
		if err != nil {
			return 0, err
		}
		if err := ev.OpenTo(userID); err != nil {
			return 0, err
		}
		conf, err := s.confirmed(ctx, ev, c.Rating, c.Comment)
		if err != nil {
			return 0, err
		}
		out = append(out, conf)
	}
	if len(out) == 0 {
		return 0, nil
	}
	if err := s.store.ConfirmWatches(ctx, userID, s.now().UTC(), out); err != nil {
		return 0, err
	}
	return len(out), nil
}

// Dismiss closes the user's pending watch events among ids without a review and returns how
// many it closed; events already closed are left as they are. An unknown id is KindNotFound
// and another user's event KindForbidden, and then nothing is dismissed.
func (s *Service) Dismiss(ctx context.Context, userID uuid.UUID, ids []uuid.UUID) (int, error) {
	ids = slices.Compact(slices.SortedFunc(slices.Values(ids), func(a, b uuid.UUID) int {
		return slices.Compare(a[:], b[:])
	}))
	if len(ids) == 0 {
		return 0, nil
	}
	return s.store.DismissWatches(ctx, userID, ids, s.now().UTC())
}

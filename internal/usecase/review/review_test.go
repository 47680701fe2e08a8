package review

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// fakeStore holds one review and runs UpdateReview's and DeleteReview's closures on it; the
// methods the tests do not reach panic.
type fakeStore struct {
	Store
	review  domain.Review
	deleted bool
}

func (f *fakeStore) UpdateReview(_ context.Context, _ uuid.UUID, update func(*domain.Review) error) (domain.Review, error) {
	r := f.review
	if err := update(&r); err != nil {
		return domain.Review{}, err
	}
	f.review = r
	return r, nil
}

func (f *fakeStore) DeleteReview(_ context.Context, _ uuid.UUID, check func(domain.Review) error) error {
	if err := check(f.review); err != nil {
		return err
	}
	f.deleted = true
	return nil
}

func TestEditRules(t *testing.T) {
	author, other := uuid.New(), uuid.New()
	comment := "kept"
	medium := domain.MediumCinema
	newStore := func() *fakeStore {
		return &fakeStore{review: domain.Review{ID: uuid.New(), UserID: author, Rating: 3, Comment: &comment,
			WatchMedium: &medium, WatchedAt: time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)}}
	}
	five, six := 5, 6
	t.Run("author edits; absent fields stay, cleared ones go", func(t *testing.T) {
		f := newStore()
		s := NewService(f, nil, nil)
		r, err := s.Edit(context.Background(), author, f.review.ID, Patch{Rating: &five, ClearWatchMedium: true})
		if err != nil || r.Rating != 5 || r.Comment == nil || *r.Comment != "kept" || r.WatchMedium != nil {
			t.Errorf("edit = %+v, %v", r, err)
		}
	})
	t.Run("another user is forbidden", func(t *testing.T) {
		f := newStore()
		s := NewService(f, nil, nil)
		if _, err := s.Edit(context.Background(), other, f.review.ID, Patch{Rating: &five}); !errors.Is(err, domain.ErrForbidden) {
			t.Errorf("edit by another user: %v", err)
		}
		if err := s.Delete(context.Background(), other, f.review.ID); !errors.Is(err, domain.ErrForbidden) || f.deleted {
			t.Errorf("delete by another user: %v, deleted %v", err, f.deleted)
		}
	})
	t.Run("federated review is read-only, even for its user id", func(t *testing.T) {
		f := newStore()
		actor := "https://elsewhere.test/users/x"
		f.review.RemoteActorURL = &actor
		s := NewService(f, nil, nil)
		if _, err := s.Edit(context.Background(), author, f.review.ID, Patch{Rating: &five}); !errors.Is(err, domain.ErrForbidden) {
			t.Errorf("edit of a federated review: %v", err)
		}
	})
	t.Run("invalid values are refused before anything is saved", func(t *testing.T) {
		f := newStore()
		s := NewService(f, nil, nil)
		bad := "2024-13-01"
		if _, err := s.Edit(context.Background(), author, f.review.ID, Patch{Rating: &six}); !errors.Is(err, domain.ErrInvalid) {
			t.Errorf("rating 6: %v", err)
		}
		if _, err := s.Edit(context.Background(), author, f.review.ID, Patch{WatchedAt: &bad}); !errors.Is(err, domain.ErrInvalid) {
			t.Errorf("bad date: %v", err)
		}
		if f.review.Rating != 3 {
			t.Errorf("rating after refused edits = %d, want 3", f.review.Rating)
		}
	})
}

func TestMovieHistoryTrend(t *testing.T) {
	for _, c := range []struct {
		ratings []int
		want    Trend
	}{{nil, TrendNeutral}, {[]int{4}, TrendNeutral}, {[]int{2, 5, 3}, TrendImproved}, {[]int{5, 1}, TrendDeclined}, {[]int{3, 1, 3}, TrendNeutral}} {
		var v []domain.Review
		for _, r := range c.ratings {
			v = append(v, domain.Review{Rating: r})
		}
		s := NewService(nil, historyReader{v}, nil)
		h, err := s.MovieHistory(context.Background(), uuid.New())
		if err != nil || h.Trend != c.want {
			t.Errorf("ratings %v: trend %q, %v; want %q", c.ratings, h.Trend, err, c.want)
		}
	}
}

type historyReader struct{ viewings []domain.Review }

func (historyReader) Diary(context.Context, DiaryFilter, domain.Page) (domain.Paged[Entry], error) {
	panic("not called")
}
func (historyReader) Feed(context.Context, Sort, domain.Page) (domain.Paged[Entry], error) {
	panic("not called")
}
func (h historyReader) History(context.Context, uuid.UUID) ([]domain.Review, error) {
	return h.viewings, nil
}
func (historyReader) MovieByID(context.Context, uuid.UUID) (domain.Movie, error) {
	return domain.Movie{Title: "Heat"}, nil
}
func (historyReader) FollowingFeed(context.Context, uuid.UUID, domain.Page) (domain.Paged[Entry], error) {
	panic("not called")
}
func (historyReader) ReviewEntry(context.Context, uuid.UUID) (Entry, error) { panic("not called") }

// entryReader holds one review for Editable.
type entryReader struct {
	historyReader
	entry Entry
}

func (e entryReader) ReviewEntry(_ context.Context, id uuid.UUID) (Entry, error) {
	if id != e.entry.Review.ID {
		return Entry{}, domain.NotFound("no review")
	}
	return e.entry, nil
}

// TestEditable: the edit form gets the author's own local review; someone else's, a federated
// one and an unknown id are all NotFound alike.
func TestEditable(t *testing.T) {
	author, other := uuid.New(), uuid.New()
	rv := domain.Review{ID: uuid.New(), UserID: author, Rating: 4}
	s := NewService(nil, entryReader{entry: Entry{Review: rv, Movie: domain.Movie{Title: "Heat"}}}, nil)
	if e, err := s.Editable(context.Background(), author, rv.ID); err != nil || e.Movie.Title != "Heat" {
		t.Errorf("author: %+v, %v", e, err)
	}
	if _, err := s.Editable(context.Background(), other, rv.ID); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("another user: %v, want NotFound", err)
	}
	if _, err := s.Editable(context.Background(), author, uuid.New()); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("unknown id: %v, want NotFound", err)
	}
	actor := "https://elsewhere.test/users/x"
	rv.RemoteActorURL = &actor
	s = NewService(nil, entryReader{entry: Entry{Review: rv}}, nil)
	if _, err := s.Editable(context.Background(), author, rv.ID); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("federated review: %v, want NotFound", err)
	}
}

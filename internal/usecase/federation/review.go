package federation

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// remoteReview reads a review Note (review: true, or a rating) sent by actor; ok is false for
// any other object, and an error says why a review Note is refused. The review is keyed by its
// object id, which must be on the actor's host and attributed to the actor; its movie id is
// UUIDv5 of the external id, so instances agree, or of "title:year" without one.
func (s *Service) remoteReview(n Note, actor string) (domain.RemoteReview, bool, error) {
	if (n.Type != "Note" && n.Type != "Article") || (!n.Review && !n.HasRating) {
		return domain.RemoteReview{}, false, nil
	}
	id := n.ID
	switch {
	case id == "" || HostOf(id) != HostOf(actor):
		return domain.RemoteReview{}, false, fmt.Errorf("review id %q is not on its actor's host", id)
	case n.AttributedTo != actor:
		return domain.RemoteReview{}, false, fmt.Errorf("review %s is attributed to %q, not its sender", id, n.AttributedTo)
	}
	if n.Rating < 1 || math.IsNaN(n.Rating) {
		return domain.RemoteReview{}, false, fmt.Errorf("review %s: rating %v", id, n.Rating)
	}
	title := PlainText(n.MovieTitle)
	if title == "" || len(title) > 255 {
		return domain.RemoteReview{}, false, fmt.Errorf("review %s: bad movieTitle", id)
	}
	watched, err := time.Parse(time.RFC3339, n.WatchedAt)
	if err != nil {
		return domain.RemoteReview{}, false, fmt.Errorf("review %s: watchedAt: %w", id, err)
	}
	published, err := time.Parse(time.RFC3339, n.Published)
	if err != nil {
		published = s.now()
	}
	m := domain.Movie{Title: title, ReleaseYear: int(n.ReleaseYear)}
	if ext, err := domain.NormalizeExternalID(n.ExternalID); err == nil && ext != "" {
		m.ID, m.ExternalID = domain.MovieIDFor(ext), &ext
	} else {
		m.ID = uuid.NewSHA1(uuid.NameSpaceURL, []byte(title+":"+strconv.Itoa(m.ReleaseYear)))
	}
	if p := n.PosterURL; strings.HasPrefix(p, "https://") || strings.HasPrefix(p, "http://") {
		m.PosterPath = &p
	}
	r := domain.RemoteReview{
		ID: uuid.NewSHA1(idSpace, []byte("review "+id)), APID: id, ActorURL: actor, UserID: RemoteUserID(actor),
		Movie: m, Rating: int(min(n.Rating, domain.MaxRating)), WatchedAt: watched.UTC(), Published: published.UTC(),
	}
	if n.Comment != nil {
		c := PlainText(*n.Comment)
		if len(c) > domain.MaxCommentBytes {
			c = c[:domain.MaxCommentBytes]
		}
		if c != "" {
			r.Comment = &c
		}
	}
	var wm domain.WatchMedium
	if n.WatchMedium != "" && wm.UnmarshalText([]byte(n.WatchMedium)) == nil {
		r.WatchMedium = &wm
	}
	return r, true, nil
}

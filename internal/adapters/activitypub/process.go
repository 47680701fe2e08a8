package activitypub

import (
	"context"
	"errors"
	"fmt"
	"html"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/delivery"
	"moviesdiary/internal/domain"
)

// inbound processes an activity an inbox stored. Every branch is idempotent (upserts, deletes,
// status changes guarded by the current status), so a redelivery is harmless. Activities we do
// not handle are ignored.
func (f *Federation) inbound(ctx context.Context, env delivery.Envelope) error {
	e, ok := env.Event.(domain.ActivityReceived)
	if !ok {
		return nil
	}
	a, err := decodeObject(e.Activity)
	if err != nil {
		return domain.Permanent(fmt.Errorf("inbound activity: %w", err))
	}
	actor := e.ActorURL
	if str(a, "actor") != actor {
		return domain.Permanent(fmt.Errorf("inbound activity %s: actor is not its signer %s", e.ActivityID, actor))
	}
	if err := f.refuseHost(ctx, actor); err != nil {
		if errors.Is(err, ErrDomainBlocked) {
			return nil // blocked since it arrived
		}
		return err
	}
	switch str(a, "type") {
	case "Follow":
		user, ok := f.localUser(str(a, "object"))
		if !ok {
			return nil
		}
		if _, err := f.store.UserByID(ctx, user); errors.Is(err, domain.ErrNotFound) {
			return nil
		} else if err != nil {
			return err
		}
		if _, err := f.Actor(ctx, actor, false); err != nil {
			return err
		}
		err := f.store.AddRemoteFollower(ctx, user, actor, e.ActivityID, f.urls.Actor(user))
		if errors.Is(err, domain.ErrForbidden) || errors.Is(err, domain.ErrNotFound) {
			return nil
		}
		return err
	case "Undo":
		inner, err := f.innerActivity(ctx, a)
		if err != nil || inner == nil {
			return err
		}
		if str(inner, "type") == "Follow" && str(inner, "actor") == actor {
			if user, ok := f.localUser(str(inner, "object")); ok {
				return f.store.RemoveRemoteFollower(ctx, user, actor)
			}
		}
		return nil
	case "Accept", "Reject":
		inner, err := f.innerActivity(ctx, a)
		if err != nil || inner == nil {
			return err
		}
		user, ok := f.localUser(str(inner, "actor"))
		if str(inner, "type") != "Follow" || !ok || str(inner, "object") != actor {
			return nil
		}
		return f.store.FollowAnswered(ctx, user, actor, str(a, "type") == "Accept")
	case "Create", "Update":
		note := obj(a, "object")
		if note == nil {
			return nil
		}
		r, ok, err := f.parseReview(note, actor)
		if err != nil || !ok {
			if err != nil {
				f.log.InfoContext(ctx, "inbound object ignored", "activity_id", e.ActivityID, "reason", err)
			}
			return nil
		}
		return f.store.SaveRemoteReview(ctx, r)
	case "Delete":
		object := str(a, "object")
		if object == actor {
			return f.store.DeleteRemoteReviews(ctx, actor, "")
		}
		if object == "" {
			return nil
		}
		return f.store.DeleteRemoteReviews(ctx, actor, object)
	case "Block":
		if user, ok := f.localUser(str(a, "object")); ok {
			return f.store.RemoveRemoteFollower(ctx, user, actor)
		}
	}
	return nil
}

// innerActivity is the object of an Undo, Accept or Reject: embedded, or only its id, which
// must then be one of the relations we recorded.
func (f *Federation) innerActivity(ctx context.Context, a Object) (Object, error) {
	if inner := obj(a, "object"); inner != nil {
		return inner, nil
	}
	rel, err := f.store.RelationByID(ctx, str(a, "object"))
	if errors.Is(err, domain.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return Object{"type": rel.Type, "id": rel.ActivityID, "actor": rel.Actor, "object": rel.Object}, nil
}

var tags = regexp.MustCompile(`<[^>]*>`)

// plainText strips markup from a remote string and unescapes its entities.
func plainText(s string) string {
	return strings.TrimSpace(html.UnescapeString(tags.ReplaceAllString(s, "")))
}

// parseReview reads a review Note (review: true, or a rating); ok is false for any other
// object. The review is keyed by its object id; its movie id is UUIDv5 of the external id, so
// instances agree, or of "title:year" without one.
func (f *Federation) parseReview(o Object, actor string) (domain.RemoteReview, bool, error) {
	typ := str(o, "type")
	_, hasRating := o["rating"]
	isReview, _ := o["review"].(bool)
	if (typ != "Note" && typ != "Article") || (!isReview && !hasRating) {
		return domain.RemoteReview{}, false, nil
	}
	id := str(o, "id")
	switch {
	case id == "" || hostOf(id) != hostOf(actor):
		return domain.RemoteReview{}, false, fmt.Errorf("review id %q is not on its actor's host", id)
	case str(o, "attributedTo") != actor:
		return domain.RemoteReview{}, false, fmt.Errorf("review %s is attributed to %q, not its sender", id, str(o, "attributedTo"))
	}
	rating, _ := o["rating"].(float64)
	if rating < 1 || math.IsNaN(rating) {
		return domain.RemoteReview{}, false, fmt.Errorf("review %s: rating %v", id, o["rating"])
	}
	title := plainText(str(o, "movieTitle"))
	if title == "" || len(title) > 255 {
		return domain.RemoteReview{}, false, fmt.Errorf("review %s: bad movieTitle", id)
	}
	watched, err := time.Parse(time.RFC3339, str(o, "watchedAt"))
	if err != nil {
		return domain.RemoteReview{}, false, fmt.Errorf("review %s: watchedAt: %w", id, err)
	}
	published, err := time.Parse(time.RFC3339, str(o, "published"))
	if err != nil {
		published = f.now()
	}
	year, _ := o["releaseYear"].(float64)
	m := domain.Movie{Title: title, ReleaseYear: int(year)}
	if ext, err := domain.NormalizeExternalID(str(o, "externalMetadataId")); err == nil && ext != "" {
		m.ID, m.ExternalID = domain.MovieIDFor(ext), &ext
	} else {
		m.ID = uuid.NewSHA1(uuid.NameSpaceURL, []byte(title+":"+strconv.Itoa(m.ReleaseYear)))
	}
	if p := str(o, "posterUrl"); strings.HasPrefix(p, "https://") || strings.HasPrefix(p, "http://") {
		m.PosterPath = &p
	}
	r := domain.RemoteReview{
		ID: uuid.NewSHA1(idSpace, []byte("review "+id)), APID: id, ActorURL: actor, UserID: RemoteUserID(actor),
		Movie: m, Rating: int(min(rating, domain.MaxRating)), WatchedAt: watched.UTC(), Published: published.UTC(),
	}
	if c, ok := o["comment"].(string); ok {
		c = plainText(c)
		if len(c) > domain.MaxCommentBytes {
			c = c[:domain.MaxCommentBytes]
		}
		if c != "" {
			r.Comment = &c
		}
	}
	var wm domain.WatchMedium
	if s := str(o, "watchMedium"); s != "" && wm.UnmarshalText([]byte(s)) == nil {
		r.WatchMedium = &wm
	}
	return r, true, nil
}

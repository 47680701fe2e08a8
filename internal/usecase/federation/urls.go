package federation

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/google/uuid"
)

// InstanceActorID is the instance actor's id: it signs the fetches made on nobody's behalf
// (verifying an inbound signature needs the sender's actor document).
var InstanceActorID = uuid.MustParse("00000000-0000-4000-8000-000000000000")

// InstanceUsername is the instance actor's preferredUsername, which WebFinger answers (a remote
// server checks that the signer of a fetch WebFingers back to it, and refuses it otherwise). It
// is reserved by construction: usernames are [a-z0-9_-] and this one has a dot, so no user can
// register it.
const InstanceUsername = "instance.actor"

// URLs names our actors and objects under the public base URL; the names are what remote
// servers store, so they never change.
type URLs struct{ Base string }

// Actor is a local user's actor URL.
func (u URLs) Actor(id uuid.UUID) string { return u.Base + "/users/" + id.String() }

// Review is a review's object id.
func (u URLs) Review(id uuid.UUID) string { return u.Base + "/reviews/" + id.String() }

// WatchlistEntry is the object id of a movie on a user's watchlist.
func (u URLs) WatchlistEntry(user, movie uuid.UUID) string {
	return u.Actor(user) + "/watchlist/" + movie.String()
}

// Goal is the object id of a user's goal for a year (a user has one goal a year, so the year
// names it, as the original's ids did).
func (u URLs) Goal(user uuid.UUID, year int) string {
	return u.Actor(user) + "/goals/" + strconv.Itoa(year)
}

// LocalUser returns the local user an actor URL of ours names.
func (u URLs) LocalUser(actorURL string) (uuid.UUID, bool) {
	rest, ok := strings.CutPrefix(actorURL, u.Base+"/users/")
	if !ok {
		return uuid.Nil, false
	}
	id, err := uuid.Parse(rest)
	return id, err == nil
}

// LocalReview returns the local review an object id of ours names.
func (u URLs) LocalReview(objectID string) (uuid.UUID, bool) {
	rest, ok := strings.CutPrefix(objectID, u.Base+"/reviews/")
	if !ok {
		return uuid.Nil, false
	}
	id, err := uuid.Parse(rest)
	return id, err == nil
}

// HostOf is the host of a URL, lowercased ("" for a malformed one).
func HostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Hostname())
}

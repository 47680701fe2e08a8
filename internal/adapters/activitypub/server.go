package activitypub

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// Route is one federation route, for the router and the OpenAPI document.
type Route struct {
	Method, Pattern, Summary string
	Handler                  http.HandlerFunc
	Status                   int   // Status is the success status.
	Errors                   []int // Errors are the documented failure statuses besides 500.
}

// MaxInboxBody bounds an inbound activity.
const MaxInboxBody = 1 << 20

// pageSize is the number of items in a collection page.
const pageSize = 20

// Routes are the federation routes: discovery, actors, inboxes, collections and every object id
// we publish.
func (f *Federation) Routes() []Route {
	get, post := http.MethodGet, http.MethodPost
	return []Route{
		{get, "/.well-known/webfinger", "WebFinger: the actor of acct:user@host", f.webFinger, 200, []int{400, 404}},
		{get, "/.well-known/nodeinfo", "NodeInfo discovery", f.nodeInfoLinks, 200, nil},
		{get, "/nodeinfo/2.0", "NodeInfo 2.0", f.nodeInfo, 200, nil},
		{get, "/users/{id}", "A user's ActivityPub actor (browsers are redirected to the app)", f.actor, 200, []int{303, 400, 404}},
		{post, "/inbox", "Shared inbox: a signed activity, processed asynchronously", f.inbox, 202, []int{400, 401, 403, 413}},
		{post, "/users/{id}/inbox", "A user's inbox: a signed activity, processed asynchronously", f.inbox, 202,
			[]int{400, 401, 403, 404, 413}},
		{get, "/users/{id}/outbox", "A user's outbox: their reviews as Create activities (paged)", f.outbox, 200, []int{400, 404}},
		{get, "/users/{id}/followers", "A user's followers (paged)", f.followCollection(true), 200, []int{400, 404}},
		{get, "/users/{id}/following", "Whom a user follows (paged)", f.followCollection(false), 200, []int{400, 404}},
		{get, "/users/{id}/watchlist/{movie_id}", "A watchlist entry Note", f.publishedObject, 200, []int{400, 404, 410}},
		{get, "/reviews/{id}", "A review Note", f.review, 200, []int{400, 404}},
		{get, "/activities/{id}", "An activity we published", f.activity, 200, []int{400, 404}},
	}
}

// writeAP writes an ActivityPub document.
func writeAP(w http.ResponseWriter, status int, doc any) {
	w.Header().Set("Content-Type", ContentType+"; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(doc)
}

// writeJSON writes a plain JSON document of contentType.
func writeJSON(w http.ResponseWriter, contentType string, doc any) {
	w.Header().Set("Content-Type", contentType)
	_ = json.NewEncoder(w).Encode(doc)
}

// fail writes the error envelope.
func fail(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

// failErr maps a store or use-case error to a status; internal errors are logged, not shown.
func (f *Federation) failErr(w http.ResponseWriter, r *http.Request, err error) {
	switch domain.KindOf(err) {
	case domain.KindNotFound:
		fail(w, http.StatusNotFound, err.Error())
	case domain.KindInvalid:
		fail(w, http.StatusBadRequest, err.Error())
	case domain.KindForbidden:
		fail(w, http.StatusForbidden, err.Error())
	default:
		f.log.ErrorContext(r.Context(), "federation request failed", "path", r.URL.Path, "error", err)
		fail(w, http.StatusInternalServerError, "internal server error")
	}
}

// pathUser reads the {id} of a /users/{id}… path as an existing local user (or the instance
// actor).
func (f *Federation) pathUser(w http.ResponseWriter, r *http.Request) (domain.User, bool) {
	id, err := uuid.Parse(r.PathValue("id"))
	if err != nil {
		fail(w, http.StatusBadRequest, "id must be a UUID")
		return domain.User{}, false
	}
	if id == InstanceActorID {
		return domain.User{ID: id, Username: "instance"}, true
	}
	u, err := f.store.UserByID(r.Context(), id)
	if err != nil {
		f.failErr(w, r, err)
		return domain.User{}, false
	}
	return u, true
}

// wantsAP reports whether the client asked for ActivityPub JSON.
func wantsAP(r *http.Request) bool {
	a := r.Header.Get("Accept")
	return strings.Contains(a, "application/activity+json") || strings.Contains(a, "application/ld+json")
}

func (f *Federation) webFinger(w http.ResponseWriter, r *http.Request) {
	res := r.URL.Query().Get("resource")
	var (
		u   domain.User
		err error
	)
	switch {
	case strings.HasPrefix(res, "acct:"):
		name, host, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(res, "acct:"), "@"), "@")
		if host != "" && !strings.EqualFold(host, f.host) {
			fail(w, http.StatusNotFound, "not an account of this instance")
			return
		}
		u, err = f.store.UserByUsername(r.Context(), name)
	case strings.HasPrefix(res, f.urls.Base+"/users/"):
		id, ok := f.localUser(res)
		if !ok {
			fail(w, http.StatusNotFound, "not an actor of this instance")
			return
		}
		u, err = f.store.UserByID(r.Context(), id)
	default:
		fail(w, http.StatusBadRequest, "resource must be acct:user@host or an actor URL")
		return
	}
	if err != nil {
		f.failErr(w, r, err)
		return
	}
	actor := f.urls.Actor(u.ID)
	writeJSON(w, "application/jrd+json", map[string]any{
		"subject": "acct:" + u.Username + "@" + f.host,
		"aliases": []string{actor},
		"links": []map[string]string{
			{"rel": "self", "type": ContentType, "href": actor},
			{"rel": "http://webfinger.net/rel/profile-page", "type": "text/html", "href": actor},
		},
	})
}

func (f *Federation) nodeInfoLinks(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, "application/json", map[string]any{"links": []map[string]string{
		{"rel": "http://nodeinfo.diaspora.software/ns/schema/2.0", "href": f.urls.Base + "/nodeinfo/2.0"},
	}})
}

func (f *Federation) nodeInfo(w http.ResponseWriter, r *http.Request) {
	users, reviews, err := f.store.NodeStats(r.Context())
	if err != nil {
		f.failErr(w, r, err)
		return
	}
	writeJSON(w, `application/json; profile="http://nodeinfo.diaspora.software/ns/schema/2.0#"`, map[string]any{
		"version":           "2.0",
		"software":          map[string]string{"name": "moviesdiary", "version": "1"},
		"protocols":         []string{"activitypub"},
		"services":          map[string][]string{"inbound": {}, "outbound": {}},
		"openRegistrations": f.openReg,
		"usage":             map[string]any{"users": map[string]int{"total": users}, "localPosts": reviews},
		"metadata":          map[string]string{"nodeName": "moviesdiary", "nodeDescription": "A federated movie diary"},
	})
}

func (f *Federation) actor(w http.ResponseWriter, r *http.Request) {
	u, ok := f.pathUser(w, r)
	if !ok {
		return
	}
	if !wantsAP(r) {
		http.Redirect(w, r, "/app/users/"+u.ID.String(), http.StatusSeeOther)
		return
	}
	_, pub, err := f.store.ActorKey(r.Context(), u.ID)
	if err != nil {
		f.failErr(w, r, err)
		return
	}
	writeAP(w, http.StatusOK, f.urls.ActorDocument(u, nil, pub))
}

// userPage reads the user of a collection path and ?page=N (0 when absent: the collection
// itself); false when it wrote an error.
func (f *Federation) userPage(w http.ResponseWriter, r *http.Request) (domain.User, int, bool) {
	u, ok := f.pathUser(w, r)
	if !ok {
		return u, 0, false
	}
	p := r.URL.Query().Get("page")
	if p == "" {
		return u, 0, true
	}
	n, err := strconv.Atoi(p)
	if err != nil || n < 1 {
		fail(w, http.StatusBadRequest, "page must be a positive integer")
		return u, 0, false
	}
	return u, n, true
}

// collection writes an OrderedCollection (n == 0, with its first page) or its page n.
func collection(w http.ResponseWriter, id string, n, total int, items []any) {
	if n == 0 {
		doc := Object{"@context": contextAS, "id": id, "type": "OrderedCollection", "totalItems": total}
		if total > 0 {
			doc["first"] = id + "?page=1"
			doc["last"] = id + "?page=" + strconv.Itoa((total+pageSize-1)/pageSize)
		}
		writeAP(w, http.StatusOK, doc)
		return
	}
	doc := Object{
		"@context": contextAS, "id": id + "?page=" + strconv.Itoa(n), "type": "OrderedCollectionPage",
		"partOf": id, "totalItems": total, "orderedItems": items,
	}
	if n*pageSize < total {
		doc["next"] = id + "?page=" + strconv.Itoa(n+1)
	}
	if n > 1 {
		doc["prev"] = id + "?page=" + strconv.Itoa(n-1)
	}
	writeAP(w, http.StatusOK, doc)
}

func (f *Federation) outbox(w http.ResponseWriter, r *http.Request) {
	u, n, ok := f.userPage(w, r)
	if !ok {
		return
	}
	settings, err := f.store.Settings(r.Context(), u.ID)
	if err != nil {
		f.failErr(w, r, err)
		return
	}
	id := f.urls.Actor(u.ID) + "/outbox"
	if !settings.Reviews || u.ID == InstanceActorID {
		collection(w, id, n, 0, []any{})
		return
	}
	reviews, movies, total, err := f.store.OutboxReviews(r.Context(), u.ID, max(n-1, 0)*pageSize, pageSize)
	if err != nil {
		f.failErr(w, r, err)
		return
	}
	objects := make([]string, len(reviews))
	for i, rv := range reviews {
		objects[i] = f.urls.Review(rv.ID)
	}
	created, err := f.store.ActivityIDs(r.Context(), "Create", objects)
	if err != nil {
		f.failErr(w, r, err)
		return
	}
	items := make([]any, 0, len(reviews))
	for i, rv := range reviews {
		// The Create we sent, when there was one; a review from before federation gets an id
		// derived from the review (stable, but not stored).
		id, ok := created[objects[i]]
		if !ok {
			id = ActivityID(f.urls.Base, rv.ID.String(), "Create")
		}
		items = append(items, Activity(id, "Create", f.urls.Actor(u.ID), f.urls.ReviewNote(rv, movies[i])))
	}
	collection(w, id, n, total, items)
}

func (f *Federation) followCollection(followers bool) http.HandlerFunc {
	name := "/following"
	if followers {
		name = "/followers"
	}
	return func(w http.ResponseWriter, r *http.Request) {
		u, n, ok := f.userPage(w, r)
		if !ok {
			return
		}
		ids, total, err := f.store.FollowCollection(r.Context(), u.ID, followers, max(n-1, 0)*pageSize, pageSize)
		if err != nil {
			f.failErr(w, r, err)
			return
		}
		items := make([]any, 0, len(ids))
		for _, id := range ids {
			if uid, ok := id.UserID(); ok {
				items = append(items, f.urls.Actor(uid))
			} else {
				items = append(items, id.ID)
			}
		}
		collection(w, f.urls.Actor(u.ID)+name, n, total, items)
	}
}

func (f *Federation) review(w http.ResponseWriter, r *http.Request) {
	id, err := uuid.Parse(r.PathValue("id"))
	if err != nil {
		fail(w, http.StatusBadRequest, "id must be a UUID")
		return
	}
	rv, m, err := f.store.FederatedReview(r.Context(), id)
	if err != nil {
		f.failErr(w, r, err)
		return
	}
	settings, err := f.store.Settings(r.Context(), rv.UserID)
	if err != nil {
		f.failErr(w, r, err)
		return
	}
	if !settings.Reviews {
		fail(w, http.StatusNotFound, "Entity not found: review")
		return
	}
	note := f.urls.ReviewNote(rv, m)
	note["@context"] = contextAS
	writeAP(w, http.StatusOK, note)
}

// publishedObject serves an object we published only inside activities (a watchlist entry):
// the object of the latest Create or Update of it, or a Tombstone (410) after its Delete.
func (f *Federation) publishedObject(w http.ResponseWriter, r *http.Request) {
	objectID := f.urls.Base + r.URL.Path
	doc, err := f.store.LatestActivity(r.Context(), objectID)
	if err != nil {
		f.failErr(w, r, err)
		return
	}
	a, err := decodeObject(doc)
	if err != nil {
		f.failErr(w, r, err)
		return
	}
	if str(a, "type") == "Delete" {
		writeAP(w, http.StatusGone, Tombstone(objectID))
		return
	}
	o := obj(a, "object")
	o["@context"] = contextAS
	writeAP(w, http.StatusOK, o)
}

func (f *Federation) activity(w http.ResponseWriter, r *http.Request) {
	if _, err := uuid.Parse(r.PathValue("id")); err != nil {
		fail(w, http.StatusBadRequest, "id must be a UUID")
		return
	}
	doc, err := f.store.PublishedActivity(r.Context(), f.urls.Base+r.URL.Path)
	if err != nil {
		f.failErr(w, r, err)
		return
	}
	w.Header().Set("Content-Type", ContentType+"; charset=utf-8")
	_, _ = w.Write(doc)
}

// readBody reads at most MaxInboxBody bytes; false (413 written) when there are more.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxInboxBody+1))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) || len(body) > MaxInboxBody {
		fail(w, http.StatusRequestEntityTooLarge, "body over 1 MiB")
		return nil, false
	}
	if err != nil {
		fail(w, http.StatusBadRequest, "cannot read body")
		return nil, false
	}
	return body, true
}

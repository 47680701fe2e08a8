package activitypub

import (
	"cmp"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/endpoint"
)

// MaxInboxBody bounds an inbound activity.
const MaxInboxBody = 1 << 20

// pageSize is the number of items in a collection page.
const pageSize = 20

// Routes are the federation routes: discovery, actors, inboxes, collections and every object id
// we publish. Their failures are answered by the router's one error mapping (endpoint.StatusOf).
func (f *Federation) Routes() []endpoint.Route {
	get, post := http.MethodGet, http.MethodPost
	return []endpoint.Route{
		route(get, "/.well-known/webfinger", "WebFinger: the actor of acct:user@host", f.webFinger, 200, 400, 404),
		route(get, "/.well-known/nodeinfo", "NodeInfo discovery", f.nodeInfoLinks, 200),
		route(get, "/nodeinfo/2.0", "NodeInfo 2.0", f.nodeInfo, 200),
		route(get, "/users/{id}", "A user's ActivityPub actor (browsers get the user's page)", f.actor, 200, 303, 400, 404),
		route(post, "/inbox", "Shared inbox: a signed activity, processed asynchronously", f.inbox, 202, 400, 401, 403, 413),
		route(post, "/users/{id}/inbox", "A user's inbox: a signed activity, processed asynchronously", f.inbox, 202,
			400, 401, 403, 404, 413),
		route(get, "/users/{id}/outbox", "A user's outbox: their reviews as Create activities (paged)", f.signedFetch(f.outbox), 200, 400, 401, 403, 404),
		route(get, "/users/{id}/followers", "A user's followers (paged)", f.signedFetch(f.followCollection(true)), 200, 400, 401, 403, 404),
		route(get, "/users/{id}/following", "Whom a user follows (paged)", f.signedFetch(f.followCollection(false)), 200, 400, 401, 403, 404),
		route(get, "/users/{id}/featured", "A user's featured (pinned) objects: none", f.signedFetch(f.featured), 200, 400, 401, 403, 404),
		route(get, "/users/{id}/watchlist/{movie_id}", "A watchlist entry Note", f.signedFetch(f.publishedObject), 200, 400, 401, 403, 404, 410),
		route(get, "/reviews/{id}", "A review Note (browsers are redirected to its movie in the app)", f.signedFetch(f.review), 200, 303, 400, 401, 403, 404),
		route(get, "/activities/{id}", "An activity we published", f.signedFetch(f.activity), 200, 400, 401, 403, 404),
	}
}

// route is one federation route; errs are its documented failure statuses besides 500.
func route(method, pattern, summary string, h endpoint.Func, status int, errs ...int) endpoint.Route {
	return endpoint.Route{Method: method, Pattern: pattern, Summary: summary, Handle: h, Status: status, Errors: errs}
}

// signedFetch guards a GET of our collections and objects: in secure mode (authorized fetch) it
// needs a valid HTTP signature of a remote actor, checked as an inbox checks one (a blocked
// instance is 403). Otherwise a signature is accepted and not needed: public objects are
// public.
func (f *Federation) signedFetch(h endpoint.Func) endpoint.Func {
	if !f.secure {
		return h
	}
	return func(w http.ResponseWriter, r *http.Request) error {
		if _, err := f.verify(r, nil); err != nil {
			return f.refused(r, err)
		}
		return h(w, r)
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

// badRequest is a client mistake the HTTP layer finds (a malformed path, query or body).
func badRequest(msg string) error { return endpoint.Fail(http.StatusBadRequest, msg) }

// pathUser reads the {id} of a /users/{id}… path as an existing local user (or the instance
// actor).
func (f *Federation) pathUser(r *http.Request) (domain.User, error) {
	id, err := uuid.Parse(r.PathValue("id"))
	if err != nil {
		return domain.User{}, badRequest("id must be a UUID")
	}
	return f.fed.LocalActor(r.Context(), id)
}

// wantsAP reports whether the client asked for ActivityPub JSON.
func wantsAP(r *http.Request) bool {
	a := r.Header.Get("Accept")
	return strings.Contains(a, "application/activity+json") || strings.Contains(a, "application/ld+json")
}

func (f *Federation) webFinger(w http.ResponseWriter, r *http.Request) error {
	res := r.URL.Query().Get("resource")
	var (
		u   domain.User
		err error
	)
	switch {
	case strings.HasPrefix(res, "acct:"):
		name, host, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(res, "acct:"), "@"), "@")
		if host != "" && !strings.EqualFold(host, f.host) {
			return domain.NotFound("not an account of this instance")
		}
		u, err = f.fed.AccountByName(r.Context(), name)
	case strings.HasPrefix(res, f.urls.Base+"/users/"):
		id, ok := f.urls.LocalUser(res)
		if !ok {
			return domain.NotFound("not an actor of this instance")
		}
		u, err = f.fed.Account(r.Context(), id)
	default:
		return badRequest("resource must be acct:user@host or an actor URL")
	}
	if err != nil {
		return err
	}
	actor := f.urls.Actor(u.ID)
	writeJSON(w, "application/jrd+json", map[string]any{
		"subject": "acct:" + u.Username + "@" + f.host,
		"aliases": []string{actor},
		"links": []map[string]string{
			{"rel": "self", "type": ContentType, "href": actor},
			{"rel": "http://webfinger.net/rel/profile-page", "type": "text/html", "href": f.urls.ProfilePage(u.ID)},
		},
	})
	return nil
}

func (f *Federation) nodeInfoLinks(w http.ResponseWriter, _ *http.Request) error {
	writeJSON(w, "application/json", map[string]any{"links": []map[string]string{
		{"rel": "http://nodeinfo.diaspora.software/ns/schema/2.0", "href": f.urls.Base + "/nodeinfo/2.0"},
	}})
	return nil
}

func (f *Federation) nodeInfo(w http.ResponseWriter, r *http.Request) error {
	users, reviews, err := f.fed.NodeStats(r.Context())
	if err != nil {
		return err
	}
	writeJSON(w, `application/json; profile="http://nodeinfo.diaspora.software/ns/schema/2.0#"`, map[string]any{
		"version":           "2.0",
		"software":          map[string]string{"name": "moviesdiary", "version": cmp.Or(f.version, "unknown")},
		"protocols":         []string{"activitypub"},
		"services":          map[string][]string{"inbound": {}, "outbound": {}},
		"openRegistrations": f.openReg,
		"usage":             map[string]any{"users": map[string]int{"total": users}, "localPosts": reviews},
		"metadata":          map[string]string{"nodeName": "moviesdiary", "nodeDescription": "A federated movie diary"},
	})
	return nil
}

func (f *Federation) actor(w http.ResponseWriter, r *http.Request) error {
	u, err := f.pathUser(r)
	if err != nil {
		return err
	}
	if !wantsAP(r) {
		if f.browserPage != nil {
			f.browserPage.ServeHTTP(w, r)
			return nil
		}
		http.Redirect(w, r, "/u/"+u.ID.String(), http.StatusSeeOther)
		return nil
	}
	_, pub, err := f.keys.ActorKey(r.Context(), u.ID)
	if err != nil {
		return err
	}
	p, err := f.fed.Profile(r.Context(), u.ID)
	if err != nil {
		return err
	}
	writeAP(w, http.StatusOK, f.urls.ActorDocument(u, p, pub))
	return nil
}

// featured is a user's featured (pinned) collection, which Mastodon fetches for every actor it
// meets: empty, since nothing is pinned.
func (f *Federation) featured(w http.ResponseWriter, r *http.Request) error {
	u, err := f.pathUser(r)
	if err != nil {
		return err
	}
	writeAP(w, http.StatusOK, Object{"@context": contextAS, "id": f.urls.Actor(u.ID) + "/featured",
		"type": "OrderedCollection", "totalItems": 0, "orderedItems": []any{}})
	return nil
}

// userPage reads the user of a collection path and ?page=N (0 when absent: the collection
// itself).
func (f *Federation) userPage(r *http.Request) (domain.User, int, error) {
	u, err := f.pathUser(r)
	if err != nil {
		return u, 0, err
	}
	p := r.URL.Query().Get("page")
	if p == "" {
		return u, 0, nil
	}
	n, err := strconv.Atoi(p)
	if err != nil || n < 1 {
		return u, 0, badRequest("page must be a positive integer")
	}
	return u, n, nil
}

// collection writes an OrderedCollection (n == 0, with its first and last pages, page 1 even
// when it is empty, as Mastodon and GoToSocial serve theirs) or its page n.
func collection(w http.ResponseWriter, id string, n, total int, items []any) {
	if n == 0 {
		writeAP(w, http.StatusOK, Object{"@context": contextAS, "id": id, "type": "OrderedCollection", "totalItems": total,
			"first": id + "?page=1", "last": id + "?page=" + strconv.Itoa(max(1, (total+pageSize-1)/pageSize))})
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

func (f *Federation) outbox(w http.ResponseWriter, r *http.Request) error {
	u, n, err := f.userPage(r)
	if err != nil {
		return err
	}
	reviews, total, err := f.fed.Outbox(r.Context(), u.ID, max(n-1, 0)*pageSize, pageSize)
	if err != nil {
		return err
	}
	actor := f.urls.Actor(u.ID)
	items := make([]any, 0, len(reviews))
	for _, it := range reviews {
		items = append(items, Activity(it.CreateID, "Create", actor, f.urls.ReviewNote(it.Review, it.Movie)))
	}
	collection(w, actor+"/outbox", n, total, items)
	return nil
}

func (f *Federation) followCollection(followers bool) endpoint.Func {
	name := "/following"
	if followers {
		name = "/followers"
	}
	return func(w http.ResponseWriter, r *http.Request) error {
		u, n, err := f.userPage(r)
		if err != nil {
			return err
		}
		actors, total, err := f.fed.FollowCollection(r.Context(), u.ID, followers, max(n-1, 0)*pageSize, pageSize)
		if err != nil {
			return err
		}
		items := make([]any, len(actors))
		for i, a := range actors {
			items[i] = a
		}
		collection(w, f.urls.Actor(u.ID)+name, n, total, items)
		return nil
	}
}

func (f *Federation) review(w http.ResponseWriter, r *http.Request) error {
	id, err := uuid.Parse(r.PathValue("id"))
	if err != nil {
		return badRequest("id must be a UUID")
	}
	rv, m, err := f.fed.Review(r.Context(), id)
	if err != nil {
		return err
	}
	if !wantsAP(r) {
		// A person following the link of a federated post lands on the movie in the web client.
		http.Redirect(w, r, "/movie/"+m.ID.String(), http.StatusSeeOther)
		return nil
	}
	counts, err := f.fed.Reactions(r.Context(), id)
	if err != nil {
		return err
	}
	note := f.urls.ReviewNote(rv, m)
	note["@context"] = contextAS
	// The likes and boosts remote servers sent us, as the collections Mastodon counts.
	note["likes"] = Object{"type": "Collection", "totalItems": counts.Likes}
	note["shares"] = Object{"type": "Collection", "totalItems": counts.Boosts}
	writeAP(w, http.StatusOK, note)
	return nil
}

// publishedObject serves an object we published only inside activities (a watchlist entry):
// the object of the latest Create or Update of it, or a Tombstone (410) after its Delete.
func (f *Federation) publishedObject(w http.ResponseWriter, r *http.Request) error {
	objectID := f.urls.Base + r.URL.Path
	doc, err := f.fed.LatestActivity(r.Context(), objectID)
	if err != nil {
		return err
	}
	a, err := decodeObject(doc)
	if err != nil {
		return err
	}
	if str(a, "type") == "Delete" {
		writeAP(w, http.StatusGone, Tombstone(objectID))
		return nil
	}
	o := obj(a, "object")
	o["@context"] = contextAS
	writeAP(w, http.StatusOK, o)
	return nil
}

func (f *Federation) activity(w http.ResponseWriter, r *http.Request) error {
	if _, err := uuid.Parse(r.PathValue("id")); err != nil {
		return badRequest("id must be a UUID")
	}
	doc, err := f.fed.PublishedActivity(r.Context(), f.urls.Base+r.URL.Path)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", ContentType+"; charset=utf-8")
	_, _ = w.Write(doc)
	return nil
}

// readBody reads at most MaxInboxBody bytes.
func readBody(r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxInboxBody+1))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) || len(body) > MaxInboxBody {
		return nil, endpoint.Fail(http.StatusRequestEntityTooLarge, "body over 1 MiB")
	}
	if err != nil {
		return nil, badRequest("cannot read body")
	}
	return body, nil
}

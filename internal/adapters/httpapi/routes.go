package httpapi

import (
	"context"
	"net/http"

	"github.com/google/uuid"

	"moviesdiary/internal/usecase/wrapup"
)

// handlerFunc is an endpoint that returns its failure for fail to write.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// access is who may call a route.
type access int

const (
	// accessPublic needs nothing.
	accessPublic access = iota
	// accessUser needs a valid bearer token.
	accessUser
	// accessAdmin needs a valid bearer token of an admin; the use case checks the role.
	accessAdmin
)

// route is one method and path: its handler, who may call it, and what the OpenAPI document says
// of it. The router and the document are both built from routes(), so they cannot drift apart.
type route struct {
	method, pattern string
	summary         string
	access          access
	limited         bool // limited routes spend the caller IP's auth rate budget
	handle          handlerFunc
	request         any   // request is a zero value of the JSON body, nil for none
	response        any   // response is a zero value of the success body, nil for none
	status          int   // status is the success status
	errors          []int // errors are the documented failure statuses besides 500
	// produces is the success body's media type when it is not JSON (text/html, text/csv, …).
	produces string
	// query are the query parameters the handler reads (query.go).
	query []queryParam
	// upload is the file field of a multipart/form-data body, "" for none.
	upload string
}

// routes is every route the server serves.
func (s *Server) routes() []route {
	const get, post, patch, put, del = http.MethodGet, http.MethodPost, http.MethodPatch, http.MethodPut, http.MethodDelete
	badID := []int{400, 404}
	authed := []int{401}
	rs := []route{
		{method: get, pattern: "/health", summary: "Liveness", handle: s.health, response: map[string]string{}, status: 200},
		{method: get, pattern: "/ready", summary: "Readiness: database reachable, migrated and writable; image store reachable", handle: s.readiness,
			response: map[string]string{}, status: 200, errors: []int{503}},
		{method: get, pattern: "/openapi.json", summary: "This document", handle: s.openAPI, response: map[string]any{}, status: 200},
		{method: get, pattern: "/api/docs", summary: "This document as a page for people", handle: s.apiDocs, produces: "text/html", status: 200},

		{method: post, pattern: "/api/v1/auth/register", summary: "Register (REGISTRATION_MODE: open, approval, invite or closed; an invite token registers in every mode)", limited: true,
			handle: s.register, request: registerRequest{}, response: registerResponse{}, status: 201, errors: []int{400, 401, 415, 422, 429}},
		{method: post, pattern: "/api/v1/auth/login", summary: "Log in", limited: true, handle: s.login,
			request: loginRequest{}, response: loginResponse{}, status: 200, errors: []int{400, 401, 415, 422, 429}},
		{method: post, pattern: "/api/v1/auth/refresh", summary: "Rotate a refresh token", limited: true, handle: s.refresh,
			request: refreshRequest{}, response: refreshResponse{}, status: 200, errors: []int{401, 415, 422, 429}},
		{method: post, pattern: "/api/v1/auth/logout", summary: "End a refresh session", limited: true, handle: s.logout,
			request: refreshRequest{}, status: 204, errors: []int{415, 422, 429}},

		{method: post, pattern: "/api/v1/reviews", summary: "Log a review (honours Idempotency-Key)", access: accessUser,
			handle: s.logReview, request: logReviewRequest{}, response: logReviewResponse{}, status: 201,
			errors: []int{400, 401, 409, 413, 415, 422}},
		{method: patch, pattern: "/api/v1/reviews/{id}", summary: "Edit a review (absent = unchanged, null = clear)",
			access: accessUser, handle: s.editReview, request: editReviewRequest{}, response: reviewDTO{}, status: 200,
			errors: []int{400, 401, 403, 404, 415, 422}},
		{method: del, pattern: "/api/v1/reviews/{id}", summary: "Delete a review", access: accessUser, handle: deleteByID("id", s.Reviews.Delete),
			status: 204, errors: []int{400, 401, 403, 404}},
		{method: get, pattern: "/api/v1/diary", summary: "Diary entries (one user's, or every local review)",
			handle: s.diary, response: paginated[diaryEntryDTO]{}, status: 200, errors: []int{400}, query: diaryQuery},
		{method: get, pattern: "/api/v1/diary/export", summary: "Download my whole diary (streamed attachment)", access: accessUser,
			handle: s.exportDiary, produces: "text/csv, application/json", status: 200, errors: []int{400, 401}, query: exportQuery},
		{method: get, pattern: "/api/v1/activity-feed", summary: "Activity feed of the instance", handle: s.activityFeed,
			response: paginated[feedEntryDTO]{}, status: 200, errors: []int{400}, query: feedQuery},
		{method: get, pattern: "/api/v1/movies/{id}/history", summary: "Every viewing of a movie", handle: s.movieHistory,
			response: historyResponse{}, status: 200, errors: badID},

		{method: get, pattern: "/api/v1/movies", summary: "Movies", handle: s.listMovies,
			response: paginated[movieDTO]{}, status: 200, errors: []int{400}, query: moviesQuery},
		{method: get, pattern: "/api/v1/movies/{id}", summary: "Movie page with stats and reviews", handle: s.getMovie,
			response: movieDetailsResponse{}, status: 200, errors: badID, query: pageQuery(20)},
		{method: get, pattern: "/api/v1/movies/{id}/profile", summary: "Enriched movie profile (404 until enriched)",
			handle: s.movieProfile, response: map[string]any{}, status: 200, errors: badID},
		{method: post, pattern: "/api/v1/movies/{id}/sync-poster", summary: "Queue a poster sync", access: accessUser,
			handle: s.syncPoster, response: acceptedResponse{}, status: 202, errors: []int{400, 401, 404, 409}},
		{method: get, pattern: "/api/v1/people/{id}", summary: "A person", handle: s.getPerson, response: personDTO{},
			status: 200, errors: badID},
		{method: get, pattern: "/api/v1/people/{id}/credits", summary: "A person's credits", handle: s.personCredits,
			response: creditsResponse{}, status: 200, errors: badID},
		{method: get, pattern: "/api/v1/search", summary: "Search movies and people in the local index", handle: s.search,
			response: searchResponse{}, status: 200, errors: []int{400}, query: searchQuery},
		{method: post, pattern: "/api/v1/admin/reindex-search", summary: "Rebuild the search index (admin)", access: accessAdmin,
			handle: s.reindexSearch, response: acceptedResponse{}, status: 202, errors: []int{401, 403}},
		{method: get, pattern: "/images/*", summary: "A stored image (poster, cast photo) by key", handle: s.image,
			status: 200, errors: []int{400, 404}},

		{method: get, pattern: "/api/v1/watchlist", summary: "My watchlist", access: accessUser, handle: s.listWatchlist,
			response: paginated[watchlistEntryDTO]{}, status: 200, errors: []int{400, 401}, query: pageQuery(5)},
		{method: post, pattern: "/api/v1/watchlist", summary: "Add a movie to my watchlist (idempotent)", access: accessUser,
			handle: s.addWatchlist, request: addWatchlistRequest{}, response: addWatchlistResponse{}, status: 201,
			errors: []int{400, 401, 404, 415, 422}},
		{method: get, pattern: "/api/v1/watchlist/{movie_id}", summary: "Is a movie on my watchlist", access: accessUser,
			handle: s.onWatchlist, response: onWatchlistResponse{}, status: 200, errors: []int{400, 401}},
		{method: del, pattern: "/api/v1/watchlist/{movie_id}", summary: "Remove a movie from my watchlist", access: accessUser,
			handle: deleteByID("movie_id", s.Watchlist.Remove), status: 204, errors: []int{400, 401, 404}},

		{method: post, pattern: "/api/v1/social/follow", summary: "Follow a user by handle (pending until accepted)",
			access: accessUser, handle: s.follow, request: followRequest{}, status: 200, errors: []int{400, 401, 403, 404, 415, 422, 501}},
		s.actorRoute("/api/v1/social/unfollow", "Stop following an actor", 200, s.Social.Unfollow),
		s.actorRoute("/api/v1/social/followers/accept", "Accept a follow request", 200, s.Social.Accept),
		s.actorRoute("/api/v1/social/followers/reject", "Reject a follow request", 200, s.Social.Reject),
		s.actorRoute("/api/v1/social/followers/remove", "Remove a follower", 200, s.Social.RemoveFollower),
		s.actorRoute("/api/v1/social/block", "Block an actor", 204, s.Social.Block),
		s.actorRoute("/api/v1/social/unblock", "Unblock an actor", 204, s.Social.Unblock),
		{method: get, pattern: "/api/v1/social/following", summary: "Whom I follow", access: accessUser,
			handle: s.actorList(s.Social.Following, me), response: actorListResponse{}, status: 200, errors: authed},
		{method: get, pattern: "/api/v1/social/followers", summary: "My followers", access: accessUser,
			handle: s.actorList(s.Social.Followers, me), response: actorListResponse{}, status: 200, errors: authed},
		{method: get, pattern: "/api/v1/social/followers/pending", summary: "Follow requests waiting for me", access: accessUser,
			handle: s.actorList(s.Social.Pending, me), response: actorListResponse{}, status: 200, errors: authed},
		{method: get, pattern: "/api/v1/social/blocked", summary: "Whom I blocked", access: accessUser, handle: s.blocked,
			response: []blockedDTO{}, status: 200, errors: authed},
		{method: get, pattern: "/api/v1/users/{id}/following", summary: "Whom a user follows", access: accessUser,
			handle: s.actorList(s.Social.Following, pathUser), response: actorListResponse{}, status: 200, errors: []int{400, 401}},
		{method: get, pattern: "/api/v1/users/{id}/followers", summary: "A user's followers", access: accessUser,
			handle: s.actorList(s.Social.Followers, pathUser), response: actorListResponse{}, status: 200, errors: []int{400, 401}},

		{method: post, pattern: "/api/v1/wrapups/generate", summary: "Request a wrap-up (admin)", access: accessAdmin,
			handle: s.generateWrapUp, request: generateWrapUpRequest{}, response: idResponse{}, status: 200,
			errors: []int{400, 401, 403, 404, 415, 422}},
		{method: get, pattern: "/api/v1/wrapups", summary: "My wrap-ups and the instance's", access: accessUser,
			handle: s.listWrapUps, response: wrapUpListResponse{}, status: 200, errors: authed},
		{method: get, pattern: "/api/v1/wrapups/{id}", summary: "A wrap-up's status", access: accessUser, handle: s.getWrapUp,
			response: wrapUpDTO{}, status: 200, errors: []int{400, 401, 404}},
		{method: get, pattern: "/api/v1/wrapups/{id}/report", summary: "A wrap-up's report (202 while generating)",
			access: accessUser, handle: s.wrapUpReport, response: wrapup.Report{}, status: 200, errors: []int{202, 400, 401, 404, 409}},
		{method: del, pattern: "/api/v1/wrapups/{id}", summary: "Delete a wrap-up (admin)", access: accessAdmin,
			handle: deleteByID("id", s.WrapUps.Delete), status: 204, errors: []int{400, 401, 403, 404}},

		{method: get, pattern: "/api/v1/users/{id}", summary: "A user's profile with stats and one view (view=recent, ratings, history, trends)", access: accessUser,
			handle: s.userProfile, response: userProfileResponse{}, status: 200, errors: []int{400, 401, 404}, query: profileQuery},
		{method: get, pattern: "/api/v1/settings", summary: "My federation settings", access: accessUser, handle: s.getSettings,
			response: settingsDTO{}, status: 200, errors: authed},
		{method: put, pattern: "/api/v1/settings", summary: "Replace my federation settings", access: accessUser,
			handle: s.putSettings, request: settingsDTO{}, status: 204, errors: []int{401, 415, 422}},
	}
	rs = append(rs, s.profileRoutes()...)
	rs = append(rs, s.accountRoutes()...)
	rs = append(rs, s.mailRoutes()...)
	rs = append(rs, s.webRoutes()...)
	rs = append(rs, s.integrationRoutes()...)
	if s.Imports != nil {
		rs = append(rs, s.importRoutes()...)
	}
	if s.Archive != nil {
		rs = append(rs, s.archiveRoutes()...)
	}
	if s.Metrics != nil {
		rs = append(rs, route{method: get, pattern: "/metrics", summary: "Prometheus metrics (text format)",
			handle: s.metrics, status: 200})
	}
	return append(rs, s.extraRoutes()...)
}

func (s *Server) metrics(w http.ResponseWriter, r *http.Request) error {
	s.Metrics.ServeHTTP(w, r)
	return nil
}

// actorRoute is a POST {actor_url} social route.
func (s *Server) actorRoute(pattern, summary string, status int, act func(context.Context, uuid.UUID, string) error) route {
	return route{method: http.MethodPost, pattern: pattern, summary: summary, access: accessUser,
		handle: s.actorAction(status, act), request: actorURLRequest{}, status: status,
		errors: []int{400, 401, 404, 415, 422}}
}

// deleteByID is a DELETE route: the {param} UUID of the path, deleted on behalf of the caller,
// answered 204.
func deleteByID(param string, del func(ctx context.Context, caller, id uuid.UUID) error) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		id, err := pathID(r, param)
		if err != nil {
			return err
		}
		if err := del(r.Context(), currentUser(r), id); err != nil {
			return err
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
}

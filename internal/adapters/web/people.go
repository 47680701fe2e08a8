package web

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/user"
)

// profileSize is the entries on one page of a profile's list.
const profileSize = 20

// profilePage is a user's page: stats, one view (recent, ratings, history, trends), goals and
// whether the viewer follows them.
type profilePage struct {
	Profile   user.Profile
	Name      string
	Handle    string
	ActorURL  string
	Goals     []domain.GoalProgress
	Self      bool
	Following bool
	Views     []string
	Pager     pager
	// WrapUpYears are the years of their wrap-ups the viewer may read.
	WrapUpYears []int
}

// profile serves /u/{id} and, for browsers, the actor URL /users/{id}.
func (s *Server) profile(w http.ResponseWriter, r *http.Request, v visit) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	view := r.URL.Query().Get("view")
	if view == "" {
		view = user.ViewRecent
	}
	p := pageOf(r, profileSize)
	ctx := r.Context()
	prof, err := s.Users.Profile(ctx, id, view, p)
	if err != nil {
		return err
	}
	d := profilePage{Profile: prof, Name: displayName(prof.User), Handle: s.Social.Handle(prof.User.Username),
		ActorURL: s.Social.ActorURL(id), Pager: newPager(r, p, prof.Entries.Total),
		Views: []string{user.ViewRecent, user.ViewRatings, user.ViewHistory, user.ViewTrends}}
	if d.Goals, err = s.Goals.List(ctx, id); err != nil {
		return err
	}
	var viewer *uuid.UUID
	if v.signedIn() {
		viewer = &v.me.ID
	}
	if d.WrapUpYears, err = s.WrapUps.SharedYears(ctx, viewer, id); err != nil {
		return err
	}
	if v.signedIn() {
		d.Self = v.me.ID == id
		following, err := s.Social.Following(ctx, v.me.ID)
		if err != nil {
			return err
		}
		for _, a := range following {
			if uid, ok := a.Identity.UserID(); ok && uid == id {
				d.Following = true
			}
		}
	}
	return s.render(w, r, v, http.StatusOK, "profile", d.Name, d)
}

// peoplePage lists the viewer's followers, whom they follow and the requests waiting for them.
type peoplePage struct {
	formState
	Followers, Following, Pending []actorView
}

func (s *Server) people(w http.ResponseWriter, r *http.Request, v visit) error {
	return s.renderPeople(w, r, v, http.StatusOK, formState{})
}

func (s *Server) renderPeople(w http.ResponseWriter, r *http.Request, v visit, status int, f formState) error {
	ctx := r.Context()
	d := peoplePage{formState: f}
	for _, l := range []struct {
		list *[]actorView
		get  func() ([]domain.Actor, error)
	}{
		{&d.Followers, func() ([]domain.Actor, error) { return s.Social.Followers(ctx, v.me.ID) }},
		{&d.Following, func() ([]domain.Actor, error) { return s.Social.Following(ctx, v.me.ID) }},
		{&d.Pending, func() ([]domain.Actor, error) { return s.Social.Pending(ctx, v.me.ID) }},
	} {
		actors, err := l.get()
		if err != nil {
			return err
		}
		*l.list = s.actorViews(actors)
	}
	return s.render(w, r, v, status, "people", "People", d)
}

// follow asks to follow a handle (a local username or @user@host).
func (s *Server) follow(w http.ResponseWriter, r *http.Request, v visit) error {
	if err := s.Social.Follow(r.Context(), v.me.ID, r.PostFormValue("handle")); err != nil {
		if statusOf(err) >= 500 {
			return err
		}
		return s.renderPeople(w, r, v, statusOf(err), formState{Err: messageOf(err), Values: formValues(r, "handle")})
	}
	return redirect(w, r, backTo(r, "/people")+"done=followed")
}

// socialActions are the POST /social/{action} forms, each with an actor_url field, and the
// notice each ends with.
func (s *Server) socialAction(w http.ResponseWriter, r *http.Request, v visit) error {
	acts := map[string]struct {
		do   func(*http.Request, string) error
		done string
	}{
		"unfollow": {func(r *http.Request, a string) error { return s.Social.Unfollow(r.Context(), v.me.ID, a) }, "unfollowed"},
		"accept":   {func(r *http.Request, a string) error { return s.Social.Accept(r.Context(), v.me.ID, a) }, "accepted"},
		"reject":   {func(r *http.Request, a string) error { return s.Social.Reject(r.Context(), v.me.ID, a) }, "rejected"},
		"remove": {func(r *http.Request, a string) error { return s.Social.RemoveFollower(r.Context(), v.me.ID, a) },
			"follower-removed"},
		"block":   {func(r *http.Request, a string) error { return s.Social.Block(r.Context(), v.me.ID, a) }, "blocked"},
		"unblock": {func(r *http.Request, a string) error { return s.Social.Unblock(r.Context(), v.me.ID, a) }, "unblocked"},
	}
	act, ok := acts[chi.URLParam(r, "action")]
	if !ok {
		return domain.NotFound("No such action.")
	}
	if err := act.do(r, r.PostFormValue("actor_url")); err != nil {
		return err
	}
	return redirect(w, r, backTo(r, "/people")+"done="+act.done)
}

type blockedPage struct {
	Blocked []actorView
}

func (s *Server) blocked(w http.ResponseWriter, r *http.Request, v visit) error {
	actors, err := s.Social.Blocked(r.Context(), v.me.ID)
	if err != nil {
		return err
	}
	return s.render(w, r, v, http.StatusOK, "blocked", "Blocked accounts", blockedPage{Blocked: s.actorViews(actors)})
}

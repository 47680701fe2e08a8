package httpapi

import (
	"context"
	"net/http"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

type followRequest struct {
	Handle *string `json:"handle" openapi:"required,nonnull"`
}

type actorURLRequest struct {
	ActorURL *string `json:"actor_url" openapi:"required,nonnull"`
}

type actorDTO struct {
	Handle      string  `json:"handle"`
	DisplayName *string `json:"display_name"`
	URL         string  `json:"url"`
}

type actorListResponse struct {
	Actors []actorDTO `json:"actors"`
}

type blockedDTO struct {
	URL         string  `json:"url"`
	Handle      string  `json:"handle"`
	DisplayName *string `json:"display_name,omitempty"`
}

// toActor renders a social identity: a local user as their actor URL and @user@host handle.
func (s *Server) toActor(a domain.Actor) actorDTO {
	if id, ok := a.Identity.UserID(); ok {
		return actorDTO{Handle: s.Social.Handle(a.Username), DisplayName: a.DisplayName, URL: s.actorURL(id)}
	}
	return actorDTO{Handle: a.Identity.ID, DisplayName: a.DisplayName, URL: a.Identity.ID}
}

func (s *Server) follow(w http.ResponseWriter, r *http.Request) error {
	var req followRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if req.Handle == nil {
		return required("handle")
	}
	if err := s.Social.Follow(r.Context(), currentUser(r), *req.Handle); err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

// actorAction is a POST {actor_url} route answering status on success.
func (s *Server) actorAction(status int, act func(context.Context, uuid.UUID, string) error) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		var req actorURLRequest
		if err := decode(r, &req); err != nil {
			return err
		}
		if req.ActorURL == nil {
			return required("actor_url")
		}
		if err := act(r.Context(), currentUser(r), *req.ActorURL); err != nil {
			return err
		}
		w.WriteHeader(status)
		return nil
	}
}

// actorList is a GET route listing actors of the user list picks.
func (s *Server) actorList(list func(context.Context, uuid.UUID) ([]domain.Actor, error), user func(*http.Request) (uuid.UUID, error)) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		id, err := user(r)
		if err != nil {
			return err
		}
		actors, err := list(r.Context(), id)
		if err != nil {
			return err
		}
		out := actorListResponse{Actors: make([]actorDTO, 0, len(actors))}
		for _, a := range actors {
			out.Actors = append(out.Actors, s.toActor(a))
		}
		writeJSON(w, http.StatusOK, out)
		return nil
	}
}

func me(r *http.Request) (uuid.UUID, error) { return currentUser(r), nil }

func pathUser(r *http.Request) (uuid.UUID, error) { return pathID(r, "id") }

func (s *Server) blocked(w http.ResponseWriter, r *http.Request) error {
	actors, err := s.Social.Blocked(r.Context(), currentUser(r))
	if err != nil {
		return err
	}
	out := make([]blockedDTO, 0, len(actors))
	for _, a := range actors {
		d := s.toActor(a)
		out = append(out, blockedDTO{URL: d.URL, Handle: d.Handle, DisplayName: d.DisplayName})
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

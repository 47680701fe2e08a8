package httpapi

import (
	"fmt"
	"net/http"

	"github.com/google/uuid"

	"moviesdiary/internal/usecase/integration"
)

// maxQueueBatch bounds the ids one confirm or dismiss names.
const maxQueueBatch = 500

// watchQueueEntryDTO is one pending watch event.
type watchQueueEntryDTO struct {
	ID        uuid.UUID  `json:"id"`
	Title     string     `json:"title"`
	Year      *int       `json:"year"`
	MovieID   *uuid.UUID `json:"movie_id"`
	Source    string     `json:"source"`
	WatchedAt string     `json:"watched_at" openapi:"format=naive-date-time"`
}

func (s *Server) watchQueue(w http.ResponseWriter, r *http.Request) error {
	evs, err := s.Integrations.Queue(r.Context(), currentUser(r))
	if err != nil {
		return err
	}
	out := make([]watchQueueEntryDTO, 0, len(evs))
	for _, e := range evs {
		out = append(out, watchQueueEntryDTO{ID: e.ID, Title: e.Title, Year: e.Year, MovieID: e.MovieID,
			Source: string(e.Source), WatchedAt: naiveTime(e.WatchedAt)})
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

type confirmWatchRequest struct {
	Confirmations *[]struct {
		WatchEventID *uuid.UUID `json:"watch_event_id"`
		Rating       *int       `json:"rating" openapi:"minimum=1,maximum=5"`
		Comment      *string    `json:"comment"`
	} `json:"confirmations"`
}

type confirmWatchResponse struct {
	Confirmed int `json:"confirmed"`
}

func (s *Server) confirmWatches(w http.ResponseWriter, r *http.Request) error {
	var req confirmWatchRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if req.Confirmations == nil {
		return required("confirmations")
	}
	if len(*req.Confirmations) > maxQueueBatch {
		return badRequest(fmt.Sprintf("at most %d confirmations at once", maxQueueBatch))
	}
	cs := make([]integration.Confirmation, 0, len(*req.Confirmations))
	for _, c := range *req.Confirmations {
		switch {
		case c.WatchEventID == nil:
			return required("watch_event_id")
		case c.Rating == nil:
			return required("rating")
		}
		cs = append(cs, integration.Confirmation{WatchEventID: *c.WatchEventID, Rating: *c.Rating, Comment: c.Comment})
	}
	n, err := s.Integrations.Confirm(r.Context(), currentUser(r), cs)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, confirmWatchResponse{Confirmed: n})
	return nil
}

type dismissWatchRequest struct {
	EventIDs *[]uuid.UUID `json:"event_ids"`
}

type dismissWatchResponse struct {
	Dismissed int `json:"dismissed"`
}

func (s *Server) dismissWatches(w http.ResponseWriter, r *http.Request) error {
	var req dismissWatchRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if req.EventIDs == nil {
		return required("event_ids")
	}
	if len(*req.EventIDs) > maxQueueBatch {
		return badRequest(fmt.Sprintf("at most %d event ids at once", maxQueueBatch))
	}
	n, err := s.Integrations.Dismiss(r.Context(), currentUser(r), *req.EventIDs)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, dismissWatchResponse{Dismissed: n})
	return nil
}

package httpapi

import (
	"net/http"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/wrapup"
)

type generateWrapUpRequest struct {
	StartDate *string    `json:"start_date" openapi:"required,nonnull,format=date"`
	EndDate   *string    `json:"end_date" openapi:"required,nonnull,format=date"`
	UserID    *uuid.UUID `json:"user_id"`
}

type idResponse struct {
	ID uuid.UUID `json:"id"`
}

type wrapUpDTO struct {
	ID           uuid.UUID  `json:"id"`
	UserID       *uuid.UUID `json:"user_id,omitempty"`
	Status       string     `json:"status"`
	StartDate    string     `json:"start_date" openapi:"format=date"`
	EndDate      string     `json:"end_date" openapi:"format=date"`
	CreatedAt    string     `json:"created_at" openapi:"format=display-date-time"`
	CompletedAt  *string    `json:"completed_at,omitempty" openapi:"format=display-date-time"`
	ErrorMessage *string    `json:"error_message,omitempty"`
}

type wrapUpListResponse struct {
	Items []wrapUpDTO `json:"items"`
}

func toWrapUp(w domain.WrapUp) wrapUpDTO {
	out := wrapUpDTO{ID: w.ID, UserID: w.UserID, Status: string(w.Status), StartDate: w.StartDate.String(),
		EndDate: w.EndDate.String(), CreatedAt: displayTime(w.CreatedAt), ErrorMessage: w.ErrorMessage}
	if w.CompletedAt != nil {
		c := displayTime(*w.CompletedAt)
		out.CompletedAt = &c
	}
	return out
}

func (s *Server) generateWrapUp(w http.ResponseWriter, r *http.Request) error {
	var req generateWrapUpRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if req.StartDate == nil {
		return required("start_date")
	}
	if req.EndDate == nil {
		return required("end_date")
	}
	wu, err := s.WrapUps.Generate(r.Context(), wrapup.GenerateCommand{
		Admin: currentUser(r), UserID: req.UserID, StartDate: *req.StartDate, EndDate: *req.EndDate,
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, idResponse{ID: wu.ID})
	return nil
}

func (s *Server) listWrapUps(w http.ResponseWriter, r *http.Request) error {
	list, err := s.WrapUps.List(r.Context(), currentUser(r))
	if err != nil {
		return err
	}
	out := wrapUpListResponse{Items: make([]wrapUpDTO, 0, len(list))}
	for _, wu := range list {
		out.Items = append(out.Items, toWrapUp(wu))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// wrapUp is the wrap-up of the {id} path parameter, if the caller may read it.
func (s *Server) wrapUp(r *http.Request) (domain.WrapUp, error) {
	id, err := pathID(r, "id")
	if err != nil {
		return domain.WrapUp{}, err
	}
	return s.WrapUps.Get(r.Context(), currentUser(r), id)
}

func (s *Server) getWrapUp(w http.ResponseWriter, r *http.Request) error {
	wu, err := s.wrapUp(r)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, toWrapUp(wu))
	return nil
}

// wrapUpReport answers the report when Ready, 202 with an empty body while it is being made (the
// original client renders nothing for an empty 2xx, but would read a JSON body as the report),
// and a conflict when generation failed.
func (s *Server) wrapUpReport(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	wu, err := s.WrapUps.Report(r.Context(), currentUser(r), id)
	if err != nil {
		return err
	}
	switch wu.Status {
	case domain.WrapUpReady:
		w.Header().Set("Content-Type", "application/json")
		_, err := w.Write(wu.Report)
		return err
	case domain.WrapUpFailed:
		msg := "wrap-up generation failed"
		if wu.ErrorMessage != nil {
			msg += ": " + *wu.ErrorMessage
		}
		return domain.Errorf(domain.KindConflict, "%s", msg)
	}
	w.Header().Set("Retry-After", "5")
	w.Header().Set("X-Wrap-Up-Status", string(wu.Status))
	w.WriteHeader(http.StatusAccepted)
	return nil
}

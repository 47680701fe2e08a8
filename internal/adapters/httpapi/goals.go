package httpapi

import (
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// goalDTO is the original GoalDto: a goal with its progress.
type goalDTO struct {
	Year         int     `json:"year"`
	TargetCount  int     `json:"target_count"`
	CurrentCount int     `json:"current_count"`
	Percentage   float64 `json:"percentage"`
	IsComplete   bool    `json:"is_complete"`
	GoalType     string  `json:"goal_type"` // always "movies"
}

func toGoal(g domain.GoalProgress) goalDTO {
	return goalDTO{Year: g.Year, TargetCount: g.TargetCount, CurrentCount: g.CurrentCount, Percentage: g.Percentage(),
		IsComplete: g.Complete(), GoalType: "movies"}
}

func toGoals(gs []domain.GoalProgress) []goalDTO {
	out := make([]goalDTO, 0, len(gs))
	for _, g := range gs {
		out = append(out, toGoal(g))
	}
	return out
}

// goalsResponse is GET /goals and GET /users/{id}/goals.
type goalsResponse struct {
	Goals []goalDTO `json:"goals"`
}

// createGoalRequest is POST /goals.
type createGoalRequest struct {
	Year        *int `json:"year"`
	TargetCount *int `json:"target_count"`
}

// updateGoalRequest is PUT /goals/{year}.
type updateGoalRequest struct {
	TargetCount *int `json:"target_count"`
}

// listGoals serves GET /goals (the caller's) and GET /users/{id}/goals (that user's).
func (s *Server) listGoals(who func(*http.Request) (uuid.UUID, error)) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		id, err := who(r)
		if err != nil {
			return err
		}
		goals, err := s.Goals.List(r.Context(), id)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, goalsResponse{Goals: toGoals(goals)})
		return nil
	}
}

func (s *Server) createGoal(w http.ResponseWriter, r *http.Request) error {
	var req createGoalRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	switch {
	case req.Year == nil:
		return required("year")
	case req.TargetCount == nil:
		return required("target_count")
	}
	g, err := s.Goals.Create(r.Context(), currentUser(r), *req.Year, *req.TargetCount)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, toGoal(g))
	return nil
}

func (s *Server) updateGoal(w http.ResponseWriter, r *http.Request) error {
	year, err := pathYear(r)
	if err != nil {
		return err
	}
	var req updateGoalRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if req.TargetCount == nil {
		return required("target_count")
	}
	g, err := s.Goals.Update(r.Context(), currentUser(r), year, *req.TargetCount)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, toGoal(g))
	return nil
}

func (s *Server) deleteGoal(w http.ResponseWriter, r *http.Request) error {
	year, err := pathYear(r)
	if err != nil {
		return err
	}
	if err := s.Goals.Delete(r.Context(), currentUser(r), year); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// pathYear parses the {year} URL parameter; anything but a year of four digits is a 400.
func pathYear(r *http.Request) (int, error) {
	raw := chi.URLParam(r, "year")
	year, err := strconv.Atoi(raw)
	if err != nil || len(raw) != 4 {
		return 0, badRequest("invalid year " + strconv.Quote(raw) + ": expected YYYY")
	}
	return year, nil
}

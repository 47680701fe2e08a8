package httpapi

import (
	"cmp"
	"net/http"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/user"
)

type userStatsDTO struct {
	TotalMovies      int      `json:"total_movies"`
	AvgRating        *float64 `json:"avg_rating,omitempty"`
	FavoriteDirector *string  `json:"favorite_director,omitempty"`
	MostActiveMonth  *string  `json:"most_active_month,omitempty"`
}

// userProfileResponse is the original UserProfileResponse for a local user, with the entries
// view. It carries no e-mail address.
type userProfileResponse struct {
	UserID         uuid.UUID                `json:"user_id"`
	Username       string                   `json:"username"`
	Handle         string                   `json:"handle"`
	ActorURL       string                   `json:"actor_url"`
	Stats          userStatsDTO             `json:"stats"`
	FollowingCount int                      `json:"following_count"`
	FollowersCount int                      `json:"followers_count"`
	Entries        paginated[diaryEntryDTO] `json:"entries"`
}

func (s *Server) userProfile(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	p, err := page(r, 5)
	if err != nil {
		return err
	}
	prof, err := s.Users.Profile(r.Context(), id, cmp.Or(r.URL.Query().Get("view"), user.ViewRecent), p)
	if err != nil {
		return err
	}
	st := prof.Stats
	writeJSON(w, http.StatusOK, userProfileResponse{
		UserID: prof.User.ID, Username: prof.User.Username, Handle: s.Social.Handle(prof.User.Username),
		ActorURL: s.actorURL(prof.User.ID),
		Stats: userStatsDTO{TotalMovies: st.TotalMovies, AvgRating: st.AvgRating, FavoriteDirector: st.FavoriteDirector,
			MostActiveMonth: st.MostActiveMonth},
		FollowingCount: st.FollowingCount, FollowersCount: st.FollowersCount,
		Entries: toPaginated(prof.Entries, toDiaryEntry),
	})
	return nil
}

// settingsDTO is GET /settings and the body of PUT /settings (all three required).
type settingsDTO struct {
	FederateGoals     *bool `json:"federate_goals"`
	FederateReviews   *bool `json:"federate_reviews"`
	FederateWatchlist *bool `json:"federate_watchlist"`
}

func (s *Server) getSettings(w http.ResponseWriter, r *http.Request) error {
	fs, err := s.Users.Settings(r.Context(), currentUser(r))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, settingsDTO{FederateGoals: &fs.Goals, FederateReviews: &fs.Reviews, FederateWatchlist: &fs.Watchlist})
	return nil
}

func (s *Server) putSettings(w http.ResponseWriter, r *http.Request) error {
	var req settingsDTO
	if err := decode(r, &req); err != nil {
		return err
	}
	switch {
	case req.FederateGoals == nil:
		return required("federate_goals")
	case req.FederateReviews == nil:
		return required("federate_reviews")
	case req.FederateWatchlist == nil:
		return required("federate_watchlist")
	}
	fs := domain.FederationSettings{Goals: *req.FederateGoals, Reviews: *req.FederateReviews, Watchlist: *req.FederateWatchlist}
	if err := s.Users.SaveSettings(r.Context(), currentUser(r), fs); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

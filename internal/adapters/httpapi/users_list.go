package httpapi

import (
	"net/http"

	"github.com/google/uuid"
)

// userSummaryDTO is one user of GET /users. The e-mail is there only for an admin caller.
type userSummaryDTO struct {
	ID             uuid.UUID `json:"id"`
	Email          string    `json:"email,omitempty"`
	Username       string    `json:"username"`
	DisplayName    *string   `json:"display_name,omitempty"`
	AvatarURL      *string   `json:"avatar_url,omitempty"`
	TotalMovies    int       `json:"total_movies"`
	AvgRating      *float64  `json:"avg_rating,omitempty"`
	FollowingCount int       `json:"following_count"`
	FollowersCount int       `json:"followers_count"`
}

// usersResponse is GET /users.
type usersResponse struct {
	Users []userSummaryDTO `json:"users"`
}

// listUsers serves GET /users. It is public as in the original; a caller who sends a bearer token
// is authenticated (a bad token is a 401), and an admin gets the e-mail addresses.
func (s *Server) listUsers(w http.ResponseWriter, r *http.Request) error {
	caller := uuid.Nil
	if r.Header.Get("Authorization") != "" {
		id, err := s.authenticate(r)
		if err != nil {
			return err
		}
		caller = id
	}
	users, err := s.Users.List(r.Context(), caller)
	if err != nil {
		return err
	}
	out := usersResponse{Users: make([]userSummaryDTO, 0, len(users))}
	for _, u := range users {
		out.Users = append(out.Users, userSummaryDTO{
			ID: u.User.ID, Email: u.User.Email, Username: u.User.Username, DisplayName: nonEmpty(u.User.Profile.DisplayName),
			AvatarURL: s.imageURL(u.User.Profile.AvatarKey), TotalMovies: u.TotalMovies, AvgRating: u.AvgRating,
			FollowingCount: u.FollowingCount, FollowersCount: u.FollowersCount,
		})
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

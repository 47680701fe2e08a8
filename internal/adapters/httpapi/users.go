package httpapi

import (
	"cmp"
	"net/http"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/review"
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
	UserID         uuid.UUID    `json:"user_id"`
	Username       string       `json:"username"`
	DisplayName    *string      `json:"display_name,omitempty"`
	Bio            *string      `json:"bio,omitempty"`
	AvatarURL      *string      `json:"avatar_url,omitempty"`
	BannerURL      *string      `json:"banner_url,omitempty"`
	Handle         string       `json:"handle"`
	ActorURL       string       `json:"actor_url"`
	Stats          userStatsDTO `json:"stats"`
	FollowingCount int          `json:"following_count"`
	FollowersCount int          `json:"followers_count"`
	// Goals are the user's yearly goals, omitted when there are none (as in the original).
	Goals []goalDTO `json:"goals,omitempty"`
	// Exactly one view key is present: entries (recent, ratings), history or trends.
	Entries *paginated[diaryEntryDTO] `json:"entries,omitempty"`
	History []monthEntriesDTO         `json:"history,omitempty"`
	Trends  *trendsDTO                `json:"trends,omitempty"`
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
	goals, err := s.Goals.List(r.Context(), id)
	if err != nil {
		return err
	}
	st, pr := prof.Stats, prof.User.Profile
	out := userProfileResponse{
		UserID: prof.User.ID, Username: prof.User.Username, Handle: s.Social.Handle(prof.User.Username),
		DisplayName: nonEmpty(pr.DisplayName), Bio: nonEmpty(pr.Bio), AvatarURL: s.imageURL(pr.AvatarKey),
		BannerURL: s.imageURL(pr.BannerKey), Goals: toGoals(goals),
		ActorURL: s.actorURL(prof.User.ID),
		Stats: userStatsDTO{TotalMovies: st.TotalMovies, AvgRating: st.AvgRating, FavoriteDirector: st.FavoriteDirector,
			MostActiveMonth: st.MostActiveMonth},
		FollowingCount: st.FollowingCount, FollowersCount: st.FollowersCount,
	}
	switch prof.View {
	case user.ViewTrends:
		out.Trends = toTrends(prof.Trends)
	case user.ViewHistory:
		out.History = toHistory(prof.Entries.Items)
	default:
		e := toPaginated(prof.Entries, toDiaryEntry)
		out.Entries = &e
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// settingsDTO is GET /settings and the body of PUT /settings (all three required).
type settingsDTO struct {
	FederateGoals     *bool `json:"federate_goals" openapi:"required,nonnull"`
	FederateReviews   *bool `json:"federate_reviews" openapi:"required,nonnull"`
	FederateWatchlist *bool `json:"federate_watchlist" openapi:"required,nonnull"`
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

// monthEntriesDTO is one month of the history view.
type monthEntriesDTO struct {
	YearMonth  string          `json:"year_month"`
	MonthLabel string          `json:"month_label"`
	Count      int             `json:"count"`
	Entries    []diaryEntryDTO `json:"entries"`
}

// toHistory groups entries, newest first, by the month they were watched in.
func toHistory(entries []review.Entry) []monthEntriesDTO {
	out := []monthEntriesDTO{}
	for _, e := range entries {
		ym := e.Review.WatchedAt.Format("2006-01")
		if n := len(out); n == 0 || out[n-1].YearMonth != ym {
			out = append(out, monthEntriesDTO{YearMonth: ym, MonthLabel: e.Review.WatchedAt.Format("Jan 2006")})
		}
		m := &out[len(out)-1]
		m.Entries = append(m.Entries, toDiaryEntry(e))
		m.Count++
	}
	return out
}

type monthRatingDTO struct {
	YearMonth  string  `json:"year_month"`
	MonthLabel string  `json:"month_label"`
	AvgRating  float64 `json:"avg_rating"`
	Count      int     `json:"count"`
}

type directorCountDTO struct {
	Director string `json:"director"`
	Count    int    `json:"count"`
}

type genreCountDTO struct {
	Genre string `json:"genre"`
	Count int    `json:"count"`
}

type mediumCountDTO struct {
	Medium string `json:"medium"`
	Count  int    `json:"count"`
}

// trendsDTO is the trends view of the original UserProfileResponse.
type trendsDTO struct {
	MonthlyRatings          []monthRatingDTO   `json:"monthly_ratings"`
	TopDirectors            []directorCountDTO `json:"top_directors"`
	MaxDirectorCount        int                `json:"max_director_count"`
	TopGenres               []genreCountDTO    `json:"top_genres"`
	RatingDistribution      [5]int             `json:"rating_distribution"`
	WatchMediumDistribution []mediumCountDTO   `json:"watch_medium_distribution"`
}

func toTrends(t user.Trends) *trendsDTO {
	out := &trendsDTO{
		MonthlyRatings: []monthRatingDTO{}, TopDirectors: []directorCountDTO{}, TopGenres: []genreCountDTO{},
		WatchMediumDistribution: []mediumCountDTO{}, RatingDistribution: t.RatingDistribution,
	}
	for _, m := range t.Monthly {
		label := m.YearMonth
		if ts, err := time.Parse("2006-01", m.YearMonth); err == nil {
			label = ts.Format("Jan 2006")
		}
		out.MonthlyRatings = append(out.MonthlyRatings, monthRatingDTO{YearMonth: m.YearMonth, MonthLabel: label,
			AvgRating: m.AvgRating, Count: m.Count})
	}
	for _, d := range t.TopDirectors {
		out.TopDirectors = append(out.TopDirectors, directorCountDTO{Director: d.Name, Count: d.Count})
		out.MaxDirectorCount = max(out.MaxDirectorCount, d.Count)
	}
	for _, g := range t.TopGenres {
		out.TopGenres = append(out.TopGenres, genreCountDTO{Genre: g.Name, Count: g.Count})
	}
	for _, m := range t.Media {
		out.WatchMediumDistribution = append(out.WatchMediumDistribution, mediumCountDTO{Medium: m.Name, Count: m.Count})
	}
	return out
}

package httpapi_test

import (
	"slices"
	"testing"
)

func TestProfileViews(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := b.register("alice")
	for _, r := range []map[string]any{
		{"manual_title": "Heat", "manual_release_year": 1995, "manual_director": "Michael Mann", "rating": 5, "watched_at": "2024-01-05", "watch_medium": "cinema"},
		{"manual_title": "Collateral", "manual_release_year": 2004, "manual_director": "Michael Mann", "rating": 4, "watched_at": "2024-01-20", "watch_medium": "tv"},
		{"manual_title": "Ronin", "manual_release_year": 1998, "manual_director": "John Frankenheimer", "rating": 2, "watched_at": "2024-02-01", "watch_medium": "tv"},
	} {
		b.must(201, req{method: "POST", path: "/api/v1/reviews", token: alice.token, body: r})
	}
	if _, err := b.db.Exec(`UPDATE movies SET genres = '["Crime","Thriller"]' WHERE title = 'Heat'`); err != nil {
		t.Fatal(err)
	}
	path := "/api/v1/users/" + alice.id.String()
	var trends struct {
		Trends *struct {
			MonthlyRatings []struct {
				YearMonth  string  `json:"year_month"`
				MonthLabel string  `json:"month_label"`
				AvgRating  float64 `json:"avg_rating"`
				Count      int     `json:"count"`
			} `json:"monthly_ratings"`
			TopDirectors []struct {
				Director string `json:"director"`
				Count    int    `json:"count"`
			} `json:"top_directors"`
			MaxDirectorCount int `json:"max_director_count"`
			TopGenres        []struct {
				Genre string `json:"genre"`
			} `json:"top_genres"`
			RatingDistribution []int `json:"rating_distribution"`
			Media              []struct {
				Medium string `json:"medium"`
				Count  int    `json:"count"`
			} `json:"watch_medium_distribution"`
		} `json:"trends"`
		Entries any `json:"entries"`
	}
	b.must(200, req{method: "GET", path: path + "?view=trends", token: alice.token}).json(t, &trends)
	tr := trends.Trends
	if tr == nil || trends.Entries != nil {
		t.Fatalf("trends view = %+v: want trends and no entries", trends)
	}
	if len(tr.MonthlyRatings) != 2 || tr.MonthlyRatings[0].YearMonth != "2024-01" || tr.MonthlyRatings[0].MonthLabel != "Jan 2024" ||
		tr.MonthlyRatings[0].AvgRating != 4.5 || tr.MonthlyRatings[0].Count != 2 {
		t.Errorf("monthly ratings = %+v", tr.MonthlyRatings)
	}
	if len(tr.TopDirectors) != 2 || tr.TopDirectors[0].Director != "Michael Mann" || tr.MaxDirectorCount != 2 {
		t.Errorf("top directors = %+v, max %d", tr.TopDirectors, tr.MaxDirectorCount)
	}
	if len(tr.TopGenres) != 2 || !slices.Equal(tr.RatingDistribution, []int{0, 1, 0, 1, 1}) ||
		len(tr.Media) != 2 || tr.Media[0].Medium != "tv" || tr.Media[0].Count != 2 {
		t.Errorf("genres %+v, ratings %v, media %+v", tr.TopGenres, tr.RatingDistribution, tr.Media)
	}

	var history struct {
		History []struct {
			YearMonth string `json:"year_month"`
			Count     int    `json:"count"`
		} `json:"history"`
	}
	b.must(200, req{method: "GET", path: path + "?view=history&limit=10", token: alice.token}).json(t, &history)
	if len(history.History) != 2 || history.History[0].YearMonth != "2024-02" || history.History[1].Count != 2 {
		t.Errorf("history = %+v", history.History)
	}
}

package user

// Trends are the aggregates of a user's diary that the profile's trends view charts.
type Trends struct {
	Monthly            []MonthRating
	TopDirectors       []Count
	TopGenres          []Count
	RatingDistribution [5]int // RatingDistribution counts ratings 1..5.
	Media              []Count
}

// MonthRating is one month of viewings: "YYYY-MM", their average rating and their number.
type MonthRating struct {
	YearMonth string
	AvgRating float64
	Count     int
}

// Count is how often a name (a director, a genre, a watch medium) occurs.
type Count struct {
	Name  string
	Count int
}

// topN is how many directors and genres the trends list.
const topN = 10

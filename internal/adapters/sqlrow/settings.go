package sqlrow

// Settings is a user_settings row.
type Settings struct {
	Reviews   bool `db:"federate_reviews"`
	Watchlist bool `db:"federate_watchlist"`
	Goals     bool `db:"federate_goals"`
}

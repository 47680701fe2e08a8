package importer

import (
	"path"
	"strings"
)

// Kind is what a file was recognised as from its header: a known export, mapped without a
// mapping step, or custom.
type Kind string

// The kinds of file the importer knows.
const (
	KindCustom              Kind = "custom"
	KindLetterboxdDiary     Kind = "letterboxd_diary"
	KindLetterboxdReviews   Kind = "letterboxd_reviews"
	KindLetterboxdRatings   Kind = "letterboxd_ratings"
	KindLetterboxdWatched   Kind = "letterboxd_watched"
	KindLetterboxdWatchlist Kind = "letterboxd_watchlist"
	KindIMDbRatings         Kind = "imdb_ratings"
	// KindDiaryExport is this server's own diary CSV (GET /api/v1/diary/export), read back
	// with every field it has.
	KindDiaryExport Kind = "moviesdiary_diary"
	// KindLetterboxdImport is Letterboxd's import format (letterboxd.com/about/importing-data/),
	// which this server's Letterboxd-compatible export writes.
	KindLetterboxdImport Kind = "letterboxd_import"
)

// Target is where a session's rows go.
type Target string

// Targets of an import.
const (
	TargetDiary     Target = "diary"
	TargetWatchlist Target = "watchlist"
)

// Recognised is a known export: its kind, target and the mappings that read it.
type Recognised struct {
	Kind     Kind
	Target   Target
	Mappings []Mapping
}

func scale(f float64) *float64 { return &f }

// recognise names the export a header belongs to. Letterboxd's watched.csv and watchlist.csv
// share one header (Date, Name, Year, Letterboxd URI), so the upload's file name tells them
// apart: a name containing "watchlist" goes to the watchlist.
func recognise(header []string, filename string) Recognised {
	has := func(names ...string) bool {
		for _, n := range names {
			if indexOf(header, n) < 0 {
				return false
			}
		}
		return true
	}
	col := func(name string, f Field) Mapping { return Mapping{SourceColumn: name, Field: f} }
	switch {
	case has("title", "year", "director", "rating", "comment", "watched_at", "external_metadata_id"):
		// The precise rating first: the first non-empty column of a field wins.
		var ms []Mapping
		for _, c := range []Mapping{col("title", FieldTitle), col("year", FieldYear), col("director", FieldDirector),
			{SourceColumn: "rating_precise", Field: FieldRating, RatingScale: scale(1)},
			{SourceColumn: "rating", Field: FieldRating, RatingScale: scale(1)}, col("comment", FieldComment),
			col("watched_at", FieldWatchedAt), col("watched_time", FieldWatchedTime),
			col("external_metadata_id", FieldExternalID), col("rewatch", FieldRewatch), col("watch_medium", FieldWatchMedium)} {
			if has(c.SourceColumn) {
				ms = append(ms, c)
			}
		}
		return Recognised{Kind: KindDiaryExport, Target: TargetDiary, Mappings: ms}
	case has("Title", "WatchedDate", "Rating") && (has("imdbID") || has("tmdbID") || has("Year")):
		var ms []Mapping
		for _, c := range []Mapping{col("Title", FieldTitle), col("Year", FieldYear), col("Directors", FieldDirector),
			col("imdbID", FieldExternalID), col("tmdbID", FieldTMDbID),
			{SourceColumn: "Rating", Field: FieldRating, RatingScale: scale(1)}, col("WatchedDate", FieldWatchedAt),
			col("Rewatch", FieldRewatch), col("Review", FieldComment)} {
			if has(c.SourceColumn) {
				ms = append(ms, c)
			}
		}
		return Recognised{Kind: KindLetterboxdImport, Target: TargetDiary, Mappings: withTags(ms, has("Tags"))}
	case has("Const", "Your Rating", "Date Rated"):
		ms := []Mapping{
			col("Const", FieldExternalID),
			{SourceColumn: "Your Rating", Field: FieldRating, RatingScale: scale(0.5)},
			col("Date Rated", FieldWatchedAt),
		}
		for _, c := range []Mapping{col("Title", FieldTitle), col("Original Title", FieldTitle),
			col("Year", FieldYear), col("Directors", FieldDirector), col("Title Type", FieldTitleType)} {
			if has(c.SourceColumn) {
				ms = append(ms, c)
			}
		}
		return Recognised{Kind: KindIMDbRatings, Target: TargetDiary, Mappings: ms}
	case has("Name", "Year", "Letterboxd URI"):
		base := []Mapping{col("Name", FieldTitle), col("Year", FieldYear)}
		rated := append(base, Mapping{SourceColumn: "Rating", Field: FieldRating, RatingScale: scale(1)})
		switch {
		case has("Watched Date", "Review"):
			ms := append(rated, col("Watched Date", FieldWatchedAt), col("Date", FieldWatchedAt), col("Review", FieldComment))
			if has("Rewatch") {
				ms = append(ms, col("Rewatch", FieldRewatch))
			}
			return Recognised{Kind: KindLetterboxdReviews, Target: TargetDiary, Mappings: withTags(ms, has("Tags"))}
		case has("Watched Date", "Rating"):
			ms := append(rated, col("Watched Date", FieldWatchedAt), col("Date", FieldWatchedAt))
			if has("Rewatch") {
				ms = append(ms, col("Rewatch", FieldRewatch))
			}
			return Recognised{Kind: KindLetterboxdDiary, Target: TargetDiary, Mappings: withTags(ms, has("Tags"))}
		case has("Rating", "Date"):
			return Recognised{Kind: KindLetterboxdRatings, Target: TargetDiary, Mappings: append(rated, col("Date", FieldWatchedAt))}
		case strings.Contains(strings.ToLower(path.Base(filename)), "watchlist"):
			return Recognised{Kind: KindLetterboxdWatchlist, Target: TargetWatchlist, Mappings: base}
		case has("Date"):
			// watched.csv has no rating: its rows are recognised and mapped, and each is reported
			// invalid for the missing rating (a review needs 1–5 stars).
			return Recognised{Kind: KindLetterboxdWatched, Target: TargetDiary, Mappings: append(base, col("Date", FieldWatchedAt))}
		}
	}
	return Recognised{Kind: KindCustom, Target: TargetDiary}
}

func withTags(ms []Mapping, tags bool) []Mapping {
	if tags {
		ms = append(ms, Mapping{SourceColumn: "Tags", Field: FieldTags})
	}
	return ms
}

package review

import (
	"strconv"
	"strings"
)

// LetterboxdHeader is the header of the Letterboxd-compatible export: the columns Letterboxd's
// own importer reads (letterboxd.com/about/importing-data/). A movie is named by its IMDb or
// TMDb id when it has one, and by title, year and director always, so Letterboxd matches it
// either way.
var LetterboxdHeader = []string{"Title", "Year", "Directors", "imdbID", "tmdbID", "WatchedDate", "Rating", "Rewatch", "Review"}

// LetterboxdRecord is e as a row of the Letterboxd-compatible export: the rating at its
// precision (0.5–5 in halves), the date alone (YYYY-MM-DD), Rewatch "Yes" or empty.
func LetterboxdRecord(e Entry) []string {
	row := NewExportRow(e)
	year := ""
	if row.Year > 0 {
		year = strconv.Itoa(row.Year)
	}
	var imdb, tmdb string
	if id := row.ExternalMetadataID; id != nil {
		if n, ok := strings.CutPrefix(*id, "tmdb:"); ok {
			tmdb = n
		} else {
			imdb = *id
		}
	}
	rewatch := ""
	if row.Rewatch {
		rewatch = "Yes"
	}
	deref := func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	}
	return []string{row.Title, year, deref(row.Director), imdb, tmdb, row.WatchedAt,
		strconv.FormatFloat(row.RatingPrecise, 'f', -1, 64), rewatch, deref(row.Comment)}
}

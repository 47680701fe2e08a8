package importer

import (
	"strings"
	"testing"
	"time"
)

// TestRatingConversion pins the documented rule: multiply by the scale, round half away from
// zero, then 1–5 or an error; a value that is not whole is kept beside it (precise, 0 = none),
// so 4.5 and 5 stars stay apart.
func TestRatingConversion(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in      string
		scale   float64
		want    int
		precise float64
		err     bool
	}{
		{"0.5", 1, 1, 0.5, false}, {"1", 1, 1, 0, false}, {"1.5", 1, 2, 1.5, false}, {"2.5", 1, 3, 2.5, false},
		{"3.5", 1, 4, 3.5, false}, {"4.5", 1, 5, 4.5, false}, {"5", 1, 5, 0, false}, {"4,5", 1, 5, 4.5, false},
		{"1", 0.5, 1, 0.5, false}, {"2", 0.5, 1, 0, false}, {"3", 0.5, 2, 1.5, false}, {"4", 0.5, 2, 0, false},
		{"5", 0.5, 3, 2.5, false}, {"6", 0.5, 3, 0, false}, {"7", 0.5, 4, 3.5, false}, {"8", 0.5, 4, 0, false},
		{"9", 0.5, 5, 4.5, false}, {"10", 0.5, 5, 0, false},
		{"80", 0.05, 4, 0, false}, {"73", 0.05, 4, 3.65, false},
		{"0", 1, 0, 0, true}, {"0.4", 1, 0, 0, true}, {"6", 1, 0, 0, true}, {"ten", 1, 0, 0, true}, {"NaN", 1, 0, 0, true},
		{"", 1, 0, 0, true},
	}
	for _, c := range cases {
		got, precise, err := rating(c.in, c.scale)
		p := 0.0
		if precise != nil {
			p = *precise
		}
		if (err != nil) != c.err || got != c.want || p != c.precise {
			t.Errorf("rating(%q, %v) = %d, %v, %v; want %d, %v, error %v", c.in, c.scale, got, p, err, c.want, c.precise, c.err)
		}
	}
}

// TestRewatchColumn: Letterboxd's Rewatch is recognised and read as a flag; a value that is
// neither yes nor no is the row's error.
func TestRewatchColumn(t *testing.T) {
	t.Parallel()
	header := strings.Split("Date,Name,Year,Letterboxd URI,Rating,Rewatch,Tags,Watched Date", ",")
	known := recognise(header, "diary.csv")
	m, err := compile(header, known.Mappings, known.Target)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		rewatch string
		want    bool
		err     bool
	}{{"Yes", true, false}, {"", false, false}, {"No", false, false}, {"maybe", false, true}} {
		got, errs := m.row([]string{"2024-03-02", "Heat", "1995", "https://boxd.it/2bHu", "4.5", c.rewatch, "", "2024-03-01"})
		if got.Rewatch != c.want || (len(errs) > 0) != c.err || got.RatingPrecise == nil || *got.RatingPrecise != 4.5 {
			t.Errorf("Rewatch %q: rewatch %v, precise %v, errors %v", c.rewatch, got.Rewatch, got.RatingPrecise, errs)
		}
	}
}

func TestDateFormats(t *testing.T) {
	t.Parallel()
	cases := []struct {
		format, in string
		want       string
	}{
		{"", "2024-03-01", "2024-03-01T00:00:00"},
		{"", "2024-03-01 20:15:00", "2024-03-01T20:15:00"},
		{"", "2024-03-01T20:15:00Z", "2024-03-01T20:15:00"},
		{"", "2024/03/01", "2024-03-01T00:00:00"},
		{"%d/%m/%Y", "1/3/2024", "2024-03-01T00:00:00"},
		{"%d/%m/%Y", "01/03/2024", "2024-03-01T00:00:00"},
		{"%m/%d/%y %H:%M", "3/1/24 9:05", "2024-03-01T09:05:00"},
		{"%d %B %Y", "1 March 2024", "2024-03-01T00:00:00"},
		{"%F", "2024-03-01", "2024-03-01T00:00:00"},
	}
	for _, c := range cases {
		layout := ""
		if c.format != "" {
			var err error
			if layout, err = strftimeLayout(c.format); err != nil {
				t.Fatalf("%s: %v", c.format, err)
			}
		}
		got, err := parseDate(c.in, layout)
		if err != nil || got.Format("2006-01-02T15:04:05") != c.want {
			t.Errorf("parseDate(%q, %q) = %v, %v; want %s", c.in, c.format, got, err, c.want)
		}
	}
	for _, bad := range []string{"%Q", "%", "%Y2"} {
		if _, err := strftimeLayout(bad); err == nil {
			t.Errorf("date_format %q accepted", bad)
		}
	}
	if _, err := parseDate("01/03/2024", ""); err == nil {
		t.Error("an ambiguous dd/mm date was read without a date_format")
	}
	if _, err := parseDate("31/02/2024", "2/1/2006"); err == nil {
		t.Error("31 February accepted")
	}
}

// TestRecognise: each known export's header is named without a mapping step.
func TestRecognise(t *testing.T) {
	t.Parallel()
	cases := []struct {
		header, file string
		kind         Kind
		target       Target
	}{
		{"Date,Name,Year,Letterboxd URI,Rating,Rewatch,Tags,Watched Date", "diary.csv", KindLetterboxdDiary, TargetDiary},
		{"Date,Name,Year,Letterboxd URI,Rating,Rewatch,Review,Tags,Watched Date", "reviews.csv", KindLetterboxdReviews, TargetDiary},
		{"Date,Name,Year,Letterboxd URI,Rating", "ratings.csv", KindLetterboxdRatings, TargetDiary},
		{"Date,Name,Year,Letterboxd URI", "watched.csv", KindLetterboxdWatched, TargetDiary},
		{"Date,Name,Year,Letterboxd URI", "letterboxd-me/watchlist.csv", KindLetterboxdWatchlist, TargetWatchlist},
		{"Const,Your Rating,Date Rated,Title,URL,Title Type,IMDb Rating,Runtime (mins),Year,Genres,Num Votes,Release Date,Directors", "x.csv", KindIMDbRatings, TargetDiary},
		{"const,your rating,date rated,title", "x.csv", KindIMDbRatings, TargetDiary},
		{"title,year,rating", "diary.csv", KindCustom, TargetDiary},
		{"title,year,director,rating,comment,watched_at,external_metadata_id", "diary.csv", KindDiaryExport, TargetDiary},
		{"title,year,director,rating,comment,watched_at,external_metadata_id,rating_precise,rewatch,watch_medium,watched_time", "x.csv", KindDiaryExport, TargetDiary},
	}
	for _, c := range cases {
		got := recognise(strings.Split(c.header, ","), c.file)
		if got.Kind != c.kind || got.Target != c.target {
			t.Errorf("%s (%s) = %s/%s, want %s/%s", c.header, c.file, got.Kind, got.Target, c.kind, c.target)
		}
		if c.kind != KindCustom {
			if _, err := compile(strings.Split(c.header, ","), got.Mappings, got.Target); err != nil {
				t.Errorf("%s: its own mappings do not compile: %v", c.kind, err)
			}
		}
	}
}

// TestRowRules: required fields per target, first non-empty column wins, tags, title types.
func TestRowRules(t *testing.T) {
	t.Parallel()
	header := []string{"Name", "Year", "Rating", "Watched Date", "Date", "Tags", "Type", "Id"}
	m, err := compile(header, []Mapping{
		{SourceColumn: "Name", Field: FieldTitle}, {SourceColumn: "Year", Field: FieldYear},
		{SourceColumn: "Rating", Field: FieldRating}, {SourceColumn: "Watched Date", Field: FieldWatchedAt},
		{SourceColumn: "Date", Field: FieldWatchedAt}, {SourceColumn: "Tags", Field: FieldTags},
		{SourceColumn: "Type", Field: FieldTitleType}, {SourceColumn: "Id", Field: FieldExternalID},
	}, TargetDiary)
	if err != nil {
		t.Fatal(err)
	}
	c, errs := m.row([]string{"Heat", "1995", "4", "", "2024-03-02", "heist, los angeles", "Movie", "https://www.imdb.com/title/tt0113277/"})
	if len(errs) != 0 || c.WatchedAt != time.Date(2024, 3, 2, 0, 0, 0, 0, time.UTC) || c.Comment != "#Heist #LosAngeles" || c.ExternalID != "tt0113277" {
		t.Errorf("row = %+v, %v", c, errs)
	}
	_, errs = m.row([]string{"", "199x", "", "", "", "", "TV Series", "nm123"})
	want := []string{"release_year", "not a movie", "external_metadata_id", "rating", "watched_at"}
	if len(errs) != len(want) {
		t.Fatalf("errors = %v, want one for each of %v", errs, want)
	}
	for i, w := range want {
		if !strings.Contains(errs[i], w) {
			t.Errorf("error %d = %q, want it to name %s", i, errs[i], w)
		}
	}
	wl, _ := compile(header, []Mapping{{SourceColumn: "Name", Field: FieldTitle}}, TargetWatchlist)
	if _, errs := wl.row([]string{"Heat"}); len(errs) != 0 {
		t.Errorf("watchlist row needs no rating or date: %v", errs)
	}
	if _, err := compile(header, []Mapping{{SourceColumn: "Rating", Field: FieldRating, RatingScale: new(-1.0)}}, TargetDiary); err == nil {
		t.Error("a negative rating_scale compiled")
	}
}

package importer

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"moviesdiary/internal/domain"
)

// Field is the review field a column maps onto: the original's domain fields, plus tags and
// title_type (this server's; the original skipped unknown fields, so its clients never send them).
type Field string

// The fields a mapping can name.
const (
	FieldTitle      Field = "title"
	FieldYear       Field = "release_year"
	FieldDirector   Field = "director"
	FieldRating     Field = "rating"
	FieldWatchedAt  Field = "watched_at"
	FieldComment    Field = "comment"
	FieldExternalID Field = "external_metadata_id"
	// FieldTags is a comma-separated tag list, appended to the comment as #hashtags.
	FieldTags Field = "tags"
	// FieldTitleType is IMDb's "Title Type": a series, an episode or a game is not a movie.
	FieldTitleType Field = "title_type"
	// FieldRewatch marks a rewatch: yes, true, 1 or x (Letterboxd writes "Yes"); empty, no,
	// false or 0 is not.
	FieldRewatch Field = "rewatch"
	// FieldWatchedTime is the time of day (HH:MM[:SS], UTC) of watched_at's date: the diary
	// export's watched_time.
	FieldWatchedTime Field = "watched_time"
	// FieldWatchMedium is how the film was watched: cinema, streaming, tv, physical_media,
	// download, media_server or other.
	FieldWatchMedium Field = "watch_medium"
	// FieldTMDbID is a bare TMDb movie id (Letterboxd's tmdbID column), read as tmdb:N; an
	// external id from another column read first wins.
	FieldTMDbID Field = "tmdb_id"
)

func (f Field) known() bool {
	switch f {
	case FieldTitle, FieldYear, FieldDirector, FieldRating, FieldWatchedAt, FieldComment, FieldExternalID,
		FieldTags, FieldTitleType, FieldRewatch, FieldWatchedTime, FieldWatchMedium, FieldTMDbID:
		return true
	}
	return false
}

// Mapping maps a source column onto a field. RatingScale multiplies a rating before it is
// rounded (0.5 turns 1–10 into 1–5); DateFormat is a strftime pattern for watched_at.
type Mapping struct {
	SourceColumn string
	Field        Field
	RatingScale  *float64
	DateFormat   string
}

// Candidate is a row read through a mapping.
type Candidate struct {
	Title    string
	Year     *int
	Director string
	Rating   int
	// RatingPrecise is the rating before rounding when it is not whole (4.5 stars).
	RatingPrecise *float64
	Rewatch       bool
	WatchMedium   *domain.WatchMedium
	WatchedAt     time.Time
	Comment       string
	ExternalID    string
}

// mapper applies mappings to the rows of a file with a given header.
type mapper struct {
	target  Target
	columns []column
}

type column struct {
	index  int
	field  Field
	scale  float64
	layout string // Go layout of DateFormat, "" for the default forms
}

// compile checks mappings against the header: a mapping of an unknown field is skipped, as in
// the original; one of a column the file lacks, a bad scale or date format is an error.
func compile(header []string, ms []Mapping, target Target) (mapper, error) {
	m := mapper{target: target}
	for _, mp := range ms {
		if !mp.Field.known() {
			continue
		}
		idx := indexOf(header, mp.SourceColumn)
		if idx < 0 {
			return mapper{}, domain.Invalid("source_column %q is not a column of the file", mp.SourceColumn)
		}
		c := column{index: idx, field: mp.Field, scale: 1}
		if mp.RatingScale != nil {
			if !(*mp.RatingScale > 0) || math.IsInf(*mp.RatingScale, 0) {
				return mapper{}, domain.Invalid("rating_scale must be a positive number")
			}
			c.scale = *mp.RatingScale
		}
		if mp.DateFormat != "" {
			layout, err := strftimeLayout(mp.DateFormat)
			if err != nil {
				return mapper{}, err
			}
			c.layout = layout
		}
		m.columns = append(m.columns, c)
	}
	return m, nil
}

func indexOf(header []string, name string) int {
	for i, h := range header {
		if h == name {
			return i
		}
	}
	for i, h := range header {
		if strings.EqualFold(h, strings.TrimSpace(name)) {
			return i
		}
	}
	return -1
}

// row reads one row. A field mapped from several columns takes the first non-empty one (tags
// take them all). The errors say what is missing or unreadable; none means the row is valid.
func (m mapper) row(cells []string) (Candidate, []string) {
	var (
		c         Candidate
		errs      []string
		tags      []string
		timeOfDay time.Duration
		has       = map[Field]bool{}
	)
	for _, col := range m.columns {
		if col.index >= len(cells) {
			continue
		}
		v := strings.TrimSpace(cells[col.index])
		if v == "" || (has[col.field] && col.field != FieldTags) {
			continue
		}
		has[col.field] = true
		switch col.field {
		case FieldTitle:
			c.Title = v
		case FieldYear:
			y, err := strconv.Atoi(v)
			if err != nil || y < domain.MinReleaseYear || y > domain.MaxReleaseYear {
				errs = append(errs, fmt.Sprintf("release_year %q is not a year", v))
				continue
			}
			c.Year = &y
		case FieldDirector:
			c.Director = v
		case FieldRating:
			r, precise, err := rating(v, col.scale)
			if err != nil {
				errs = append(errs, err.Error())
				continue
			}
			c.Rating, c.RatingPrecise = r, precise
		case FieldWatchedAt:
			t, err := parseDate(v, col.layout)
			if err != nil {
				errs = append(errs, err.Error())
				continue
			}
			c.WatchedAt = t
		case FieldComment:
			c.Comment = v
		case FieldExternalID:
			id, err := externalID(v)
			if err != nil {
				errs = append(errs, err.Error())
				continue
			}
			c.ExternalID = id
		case FieldTMDbID:
			id, err := externalID("tmdb:" + v)
			if err != nil {
				errs = append(errs, fmt.Sprintf("tmdb_id %q is not a TMDb id", v))
				continue
			}
			if c.ExternalID == "" {
				c.ExternalID = id
			}
			has[FieldExternalID] = true
		case FieldTags:
			for _, t := range strings.Split(v, ",") {
				if t = hashtag(t); t != "" {
					tags = append(tags, t)
				}
			}
		case FieldWatchedTime:
			t, err := parseTimeOfDay(v)
			if err != nil {
				errs = append(errs, err.Error())
				continue
			}
			timeOfDay = t
		case FieldWatchMedium:
			var wm domain.WatchMedium
			if err := wm.UnmarshalText([]byte(strings.ToLower(v))); err != nil {
				errs = append(errs, fmt.Sprintf("watch_medium %q is not one of cinema, streaming, tv, physical_media, download, media_server, other", v))
				continue
			}
			c.WatchMedium = &wm
		case FieldRewatch:
			switch strings.ToLower(v) {
			case "yes", "y", "true", "1", "x", "ja", "oui", "sí", "si":
				c.Rewatch = true
			case "no", "n", "false", "0", "nein", "non":
			default:
				errs = append(errs, fmt.Sprintf("rewatch %q is not yes or no", v))
			}
		case FieldTitleType:
			if t := strings.ToLower(v); strings.Contains(t, "series") || strings.Contains(t, "episode") ||
				strings.Contains(t, "game") {
				errs = append(errs, fmt.Sprintf("not a movie (title type %q)", v))
			}
		}
	}
	if len(tags) > 0 {
		c.Comment = strings.TrimSpace(c.Comment + "\n\n" + strings.Join(tags, " "))
	}
	if timeOfDay > 0 && !c.WatchedAt.IsZero() {
		c.WatchedAt = c.WatchedAt.Truncate(24 * time.Hour).Add(timeOfDay)
	}
	for _, f := range []struct {
		name, v string
		prose   bool
	}{{"title", c.Title, false}, {"director", c.Director, false}, {"comment", c.Comment, true}} {
		if err := domain.CheckText(f.name, f.v, f.prose); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if c.Title == "" && c.ExternalID == "" && !has[FieldExternalID] {
		errs = append(errs, "missing required field: title or external_metadata_id")
	}
	if len(c.Title) > domain.MaxTitleBytes {
		errs = append(errs, fmt.Sprintf("title exceeds %d bytes", domain.MaxTitleBytes))
	}
	if m.target == TargetDiary {
		if !has[FieldRating] {
			errs = append(errs, "missing required field: rating")
		}
		if !has[FieldWatchedAt] {
			errs = append(errs, "missing required field: watched_at")
		}
		if len(c.Comment) > domain.MaxCommentBytes {
			errs = append(errs, fmt.Sprintf("comment exceeds %d bytes", domain.MaxCommentBytes))
		}
	}
	return c, errs
}

// values returns the row's cells by the field they map onto, as the file has them: the first
// non-empty one of a field mapped from several columns (tags: all, joined by ", ").
func (m mapper) values(cells []string) map[string]string {
	out := map[string]string{}
	for _, col := range m.columns {
		if col.index >= len(cells) {
			continue
		}
		v := strings.TrimSpace(cells[col.index])
		f := string(col.field)
		switch {
		case v == "":
		case out[f] == "":
			out[f] = v
		case col.field == FieldTags:
			out[f] += ", " + v
		}
	}
	return out
}

// rating reads a rating ("4.5" or "4,5"), multiplies it by scale and rounds half away from zero
// (math.Round): Letterboxd's half stars 0.5–5 at scale 1 become 1, 2, 3, 4, 5 for 0.5–1, 1.5–2,
// 2.5–3, 3.5–4, 4.5–5; IMDb's 1–10 at scale 0.5 become 1 for 1–2, 2 for 3–4, … 5 for 9–10. The
// value before rounding is kept beside it when it is not whole (domain.PreciseRating): 4.5
// stars stay 4.5, IMDb's 7 is 3.5.
func rating(v string, scale float64) (int, *float64, error) {
	f, err := strconv.ParseFloat(strings.Replace(v, ",", ".", 1), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, nil, fmt.Errorf("rating %q is not a number", v)
	}
	r, precise := domain.PreciseRating(f * scale)
	if r < domain.MinRating || r > domain.MaxRating {
		return 0, nil, fmt.Errorf("rating %q is %v on the 1–5 scale, outside 1–5", v, math.Round(f*scale))
	}
	return r, precise, nil
}

// parseTimeOfDay reads HH:MM or HH:MM:SS.
func parseTimeOfDay(v string) (time.Duration, error) {
	for _, l := range []string{"15:04:05", "15:04"} {
		if t, err := time.Parse(l, v); err == nil {
			return time.Duration(t.Hour())*time.Hour + time.Duration(t.Minute())*time.Minute +
				time.Duration(t.Second())*time.Second, nil
		}
	}
	return 0, fmt.Errorf("watched_time %q is not a time of day (HH:MM[:SS])", v)
}

// defaultDateLayouts are the watched_at forms read without a date_format: the API's own
// (domain.ParseWatchedAt), RFC 3339, and YYYY/MM/DD.
var defaultDateLayouts = []string{time.RFC3339, "2006/01/02", "2006/01/02 15:04:05", "2006-01-02 15:04"}

func parseDate(v, layout string) (time.Time, error) {
	if layout != "" {
		t, err := time.Parse(layout, v)
		if err != nil {
			return time.Time{}, fmt.Errorf("watched_at %q does not match the date format", v)
		}
		return t.UTC(), nil
	}
	if t, err := domain.ParseWatchedAt(v); err == nil {
		return t, nil
	}
	for _, l := range defaultDateLayouts {
		if t, err := time.Parse(l, v); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("watched_at %q is not a date (YYYY-MM-DD, or set a date_format)", v)
}

// strftimeLayout turns a strftime pattern into a Go layout. Day, month and hour read one or two
// digits, as chrono does.
func strftimeLayout(f string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			if strings.ContainsAny(string(f[i]), "0123456789") {
				return "", domain.Invalid("date_format %q: digits outside a %% directive are not supported", f)
			}
			b.WriteByte(f[i])
			continue
		}
		i++
		if i == len(f) {
			return "", domain.Invalid("date_format %q ends with %%", f)
		}
		d, ok := strftime[f[i]]
		if !ok {
			return "", domain.Invalid("date_format %q: %%%c is not supported", f, f[i])
		}
		b.WriteString(d)
	}
	return b.String(), nil
}

var strftime = map[byte]string{
	'Y': "2006", 'y': "06", 'm': "1", 'd': "2", 'e': "_2", 'H': "15", 'I': "3", 'M': "4", 'S': "5",
	'p': "PM", 'b': "Jan", 'h': "Jan", 'B': "January", 'a': "Mon", 'A': "Monday", 'F': "2006-1-2",
	'T': "15:4:5", 'D': "1/2/06", 'z': "-0700", 'Z': "MST", '%': "%",
}

var imdbURL = regexp.MustCompile(`imdb\.com/title/(tt\d{1,12})`)

// externalID reads an IMDb id, an IMDb title URL or tmdb:N.
func externalID(v string) (string, error) {
	if m := imdbURL.FindStringSubmatch(v); m != nil {
		return m[1], nil
	}
	id, err := domain.NormalizeExternalID(v)
	if err != nil {
		return "", fmt.Errorf("external_metadata_id %q is not an IMDb id (tt…) or tmdb:N", v)
	}
	return id, nil
}

// hashtag turns a tag into "#Word": its letters and digits, each word capitalised.
func hashtag(t string) string {
	var b strings.Builder
	for _, w := range strings.Fields(t) {
		for i, r := range w {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r > 127 || r == '_') {
				continue
			}
			if i == 0 {
				r = []rune(strings.ToUpper(string(r)))[0]
			}
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return "#" + b.String()
}

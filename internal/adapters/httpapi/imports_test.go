package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/xuri/excelize/v2"

	"moviesdiary/internal/adapters/tabular"
)

// Fixtures, one per known export and custom shape, written from each export's documented header.
const (
	// letterboxdDiary has half stars, a rewatch of Heat on another day, tags, and an unrated row.
	letterboxdDiary = "Date,Name,Year,Letterboxd URI,Rating,Rewatch,Tags,Watched Date\n" +
		"2024-03-02,Heat,1995,https://boxd.it/2bHu,4.5,,\"crime, la\",2024-03-01\n" +
		"2024-05-02,Heat,1995,https://boxd.it/2bHu,5,Yes,,2024-05-01\n" +
		"2024-06-11,\"Crouching Tiger, Hidden Dragon\",2000,https://boxd.it/1XlY,0.5,,,2024-06-10\n" +
		"2024-07-01,Alien,1979,https://boxd.it/2a0S,,,,2024-06-30\n"
	letterboxdRatings = "Date,Name,Year,Letterboxd URI,Rating\n" +
		"2023-01-05,Heat,1995,https://boxd.it/2bHu,3.5\n"
	letterboxdWatchlist = "Date,Name,Year,Letterboxd URI\n" +
		"2024-01-01,Paris, Texas,1984,https://boxd.it/x\n" + // an unquoted comma: a malformed row
		"2024-01-02,Stalker,1979,https://boxd.it/y\n" +
		"2024-01-03,Ran,1985,https://boxd.it/z\n"
	// imdbRatings is IMDb's ratings export: 1–10 ratings, a series that is not a movie.
	imdbRatings = "Const,Your Rating,Date Rated,Title,Original Title,URL,Title Type,IMDb Rating,Runtime (mins),Year,Genres,Num Votes,Release Date,Directors\n" +
		"tt0113277,9,2024-02-01,Heat,Heat,https://www.imdb.com/title/tt0113277/,Movie,8.3,170,1995,\"Action, Crime\",700000,1995-12-15,Michael Mann\n" +
		"tt0078748,6,2024-02-02,Alien,Alien,https://www.imdb.com/title/tt0078748/,Movie,8.5,117,1979,Horror,900000,1979-05-25,Ridley Scott\n" +
		"tt0903747,10,2024-02-03,Breaking Bad,Breaking Bad,https://www.imdb.com/title/tt0903747/,TV Series,9.5,49,2008,Drama,2000000,2008-01-20,\n"
	// semicolonBOM is a European spreadsheet export: BOM, semicolons, a quoted newline, dd/mm/yyyy, 1–10.
	semicolonBOM = "\uFEFFFilm;Jahr;Note;Gesehen;Notiz\n" +
		"Heat;1995;8;01/03/2024;\"great;\nshoot-out\"\n" +
		"Alien;1979;zehn;02/03/2024;\n" +
		"Ran;1985;10;31/02/2024;\n"
	tsvFile  = "title\tyear\trating\twatched\nHeat\t1995\t4\t2024-03-01\n"
	jsonFile = `[{"title":"Heat","year":1995,"stars":4,"on":"2024-03-01"},{"title":"Ran","year":1985,"stars":null,"on":"2024-03-02"}]`
)

// upload posts a file as the multipart form of POST /import/sessions.
func (b *bundle) upload(a account, filename string, content []byte, format string) response {
	b.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	if format != "" {
		if err := mw.WriteField("format", format); err != nil {
			b.t.Fatal(err)
		}
	}
	fw, err := mw.CreateFormFile("file", filename)
	if err != nil {
		b.t.Fatal(err)
	}
	_, _ = fw.Write(content)
	_ = mw.Close()
	hr, err := http.NewRequest("POST", b.srv.URL+"/api/v1/import/sessions", &body)
	if err != nil {
		b.t.Fatal(err)
	}
	hr.Header.Set("Content-Type", mw.FormDataContentType())
	hr.Header.Set("Authorization", "Bearer "+a.token)
	resp, err := b.srv.Client().Do(hr)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return response{status: resp.StatusCode, header: resp.Header, body: raw}
}

type createdSession struct {
	SessionID  string     `json:"session_id"`
	Columns    []string   `json:"columns"`
	SampleRows [][]string `json:"sample_rows"`
	Format     string     `json:"format"`
	Kind       string     `json:"kind"`
	Target     string     `json:"target"`
	HasMapping bool       `json:"has_mappings"`
	RowCount   int        `json:"row_count"`
}

func (b *bundle) newSession(a account, filename, content, format string) createdSession {
	b.t.Helper()
	resp := b.upload(a, filename, []byte(content), format)
	if resp.status != 200 {
		b.t.Fatalf("upload %s = %d %s", filename, resp.status, resp.body)
	}
	var c createdSession
	resp.json(b.t, &c)
	return c
}

type previewRow struct {
	Status      string   `json:"status"`
	Index       int      `json:"index"`
	Title       string   `json:"title"`
	ReleaseYear string   `json:"release_year"`
	Rating      string   `json:"rating"`
	WatchedAt   string   `json:"watched_at"`
	Comment     string   `json:"comment"`
	Errors      []string `json:"errors"`
}

func (b *bundle) preview(a account, id string) []previewRow {
	b.t.Helper()
	var out struct{ Rows []previewRow }
	b.must(200, req{method: "GET", path: "/api/v1/import/sessions/" + id + "/preview", token: a.token}).json(b.t, &out)
	return out.Rows
}

type confirmed struct {
	Imported          int `json:"imported"`
	SkippedDuplicates int `json:"skipped_duplicates"`
	Failed            []struct {
		Index int    `json:"index"`
		Error string `json:"error"`
	} `json:"failed"`
}

func (b *bundle) confirm(a account, id string, body map[string]any) confirmed {
	b.t.Helper()
	var c confirmed
	b.must(200, req{method: "POST", path: "/api/v1/import/sessions/" + id + "/confirm", token: a.token, body: body}).json(b.t, &c)
	return c
}

func statuses(rows []previewRow) string {
	var s []string
	for _, r := range rows {
		s = append(s, r.Status)
	}
	return strings.Join(s, ",")
}

// TestImportLetterboxdDiary: the diary export needs no mapping; half stars round half up; a
// rewatch on another day is a second review; tags become hashtags; an unrated row is invalid;
// the same file imported again adds nothing.
func TestImportLetterboxdDiary(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := b.register("alice")
	c := b.newSession(alice, "diary.csv", letterboxdDiary, "")
	if c.Kind != "letterboxd_diary" || !c.HasMapping || c.RowCount != 4 || c.Format != "csv" || len(c.SampleRows) != 4 {
		t.Fatalf("session = %+v", c)
	}
	rows := b.preview(alice, c.SessionID)
	if got := statuses(rows); got != "valid,valid,valid,invalid" {
		t.Fatalf("statuses = %s (%+v)", got, rows)
	}
	if rows[0].Rating != "5" || rows[0].WatchedAt != "2024-03-01T00:00:00" || rows[0].Comment != "#Crime #La" || rows[2].Rating != "1" {
		t.Errorf("rows = %+v", rows)
	}
	if !strings.Contains(strings.Join(rows[3].Errors, ";"), "rating") {
		t.Errorf("unrated row errors = %v", rows[3].Errors)
	}
	since := b.lastEvent()
	got := b.confirm(alice, c.SessionID, map[string]any{"confirmed_indices": []int{0, 1, 2, 3}})
	if got.Imported != 3 || got.SkippedDuplicates != 0 || len(got.Failed) != 1 || got.Failed[0].Index != 3 {
		t.Fatalf("confirm = %+v", got)
	}
	if n := b.scalar(`SELECT count(*) FROM reviews WHERE user_id = ?`, alice.id.String()); n != "3" {
		t.Errorf("reviews = %s, want 3", n)
	}
	if r := b.scalar(`SELECT group_concat(rating, ',') FROM (SELECT rating FROM reviews ORDER BY watched_at)`); r != "5,5,1" {
		t.Errorf("ratings = %s, want 5,5,1", r)
	}
	// Half stars are kept beside the 1–5 rating (4.5 and 5 stay apart), the Rewatch column is
	// the rewatch flag: in the API's diary, as in the store.
	var diary struct {
		Items []struct {
			Review struct {
				Rating        int     `json:"rating"`
				RatingPrecise float64 `json:"rating_precise"`
				Rewatch       bool    `json:"rewatch"`
				WatchedAt     string  `json:"watched_at"`
			} `json:"review"`
		} `json:"items"`
	}
	b.must(200, req{method: "GET", path: "/api/v1/diary?limit=10", token: alice.token}).json(t, &diary)
	seen := map[string]string{}
	for _, it := range diary.Items {
		r := it.Review
		seen[r.WatchedAt[:10]] = fmt.Sprintf("%d %v %v", r.Rating, r.RatingPrecise, r.Rewatch)
	}
	if want := map[string]string{"2024-03-01": "5 4.5 false", "2024-05-01": "5 5 true", "2024-06-10": "1 0.5 false"}; fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Errorf("diary = %v, want %v", seen, want)
	}
	// Every review's event committed with it, quiet: federation does not announce imports.
	if types := b.eventTypes(since); strings.Count(strings.Join(types, ","), "ReviewLogged") != 3 {
		t.Errorf("events = %v", types)
	}
	if q := b.scalar(`SELECT count(*) FROM event_queue WHERE event_type = 'ReviewLogged' AND json_extract(payload, '$.data.quiet') = 1`); q != "3" {
		t.Errorf("quiet ReviewLogged = %s, want 3", q)
	}
	if q := b.scalar(`SELECT count(*) FROM reviews WHERE quiet = 1`); q != "3" {
		t.Errorf("quiet reviews = %s, want 3", q)
	}

	// The same file again: every row a duplicate in the preview, nothing imported.
	again := b.newSession(alice, "diary.csv", letterboxdDiary, "csv")
	if got := statuses(b.preview(alice, again.SessionID)); got != "duplicate,duplicate,duplicate,invalid" {
		t.Errorf("second preview = %s", got)
	}
	got = b.confirm(alice, again.SessionID, map[string]any{"confirmed_indices": []int{0, 1, 2}})
	if got.Imported != 0 || got.SkippedDuplicates != 3 {
		t.Errorf("second confirm = %+v", got)
	}
	// ratings.csv of the same movie on another day adds one; its rating 3.5 rounds to 4.
	r := b.newSession(alice, "ratings.csv", letterboxdRatings, "")
	if r.Kind != "letterboxd_ratings" {
		t.Errorf("kind = %s", r.Kind)
	}
	if got := b.confirm(alice, r.SessionID, map[string]any{"confirmed_indices": []int{0}}); got.Imported != 1 {
		t.Errorf("ratings confirm = %+v", got)
	}
	if n := b.scalar(`SELECT count(*) FROM reviews`); n != "4" {
		t.Errorf("reviews = %s, want 4", n)
	}
	if n := b.scalar(`SELECT count(*) FROM movies`); n != "2" {
		t.Errorf("movies = %s, want 2 (Heat matched on title and year)", n)
	}
}

// TestImportRepeatsInOneFile: a row that repeats an earlier one (same movie, same day) is a
// duplicate in the preview and writes nothing on confirm, even inside one batch.
func TestImportRepeatsInOneFile(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := b.register("alice")
	file := letterboxdRatings + "2023-01-05,heat,1995,https://boxd.it/2bHu,2\n2023-01-06,Heat,1995,https://boxd.it/2bHu,2\n"
	c := b.newSession(alice, "ratings.csv", file, "")
	if got := statuses(b.preview(alice, c.SessionID)); got != "valid,duplicate,valid" {
		t.Errorf("preview = %s", got)
	}
	got := b.confirm(alice, c.SessionID, map[string]any{"confirmed_indices": []int{2, 1, 0, 0}})
	if got.Imported != 2 || got.SkippedDuplicates != 1 {
		t.Errorf("confirm = %+v", got)
	}
	if r := b.scalar(`SELECT group_concat(rating, ',') FROM (SELECT rating FROM reviews ORDER BY watched_at)`); r != "4,2" {
		t.Errorf("ratings = %s, want 4,2: the first row of a day wins", r)
	}
	// Confirming the session again changes nothing and answers the same.
	if again := b.confirm(alice, c.SessionID, map[string]any{"confirmed_indices": []int{0, 1, 2}}); again.Imported != 2 || again.SkippedDuplicates != 1 {
		t.Errorf("second confirm = %+v", again)
	}
	if n := b.scalar(`SELECT count(*) FROM reviews`); n != "2" {
		t.Errorf("reviews = %s", n)
	}
}

// TestImportFederateOnRequest: federate: true makes the imported reviews ordinary ones.
func TestImportFederateOnRequest(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := b.register("alice")
	c := b.newSession(alice, "ratings.csv", letterboxdRatings, "")
	b.confirm(alice, c.SessionID, map[string]any{"confirmed_indices": []int{0}, "federate": true})
	if q := b.scalar(`SELECT count(*) FROM event_queue WHERE event_type = 'ReviewLogged' AND json_extract(payload, '$.data.quiet') IS NULL`); q != "1" {
		t.Errorf("announced ReviewLogged = %s, want 1", q)
	}
	if q := b.scalar(`SELECT quiet FROM reviews`); q != "0" {
		t.Errorf("quiet = %s, want 0", q)
	}
	// bob's quiet import of the same movie stays out of the poster's Update fan-out.
	bob := b.register("bob")
	bc := b.newSession(bob, "ratings.csv", letterboxdRatings, "")
	b.confirm(bob, bc.SessionID, map[string]any{"confirmed_indices": []int{0}})
	movieID := uuid.MustParse(b.scalar(`SELECT id FROM movies`))
	ids, err := b.store.LocalReviewsOfMovie(context.Background(), movieID)
	if err != nil || len(ids) != 1 || ids[0].String() != b.scalar(`SELECT id FROM reviews WHERE user_id = ?`, alice.id.String()) {
		t.Errorf("reviews announced on a poster update = %v, %v; want alice's only", ids, err)
	}
}

// TestImportIMDbRatings: IMDb's export needs no mapping: the tt id names the movie, 1–10
// becomes 1–5 (half, rounded half up), a TV series is not a movie.
func TestImportIMDbRatings(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := b.register("alice")
	c := b.newSession(alice, "ratings.csv", imdbRatings, "")
	if c.Kind != "imdb_ratings" || !c.HasMapping {
		t.Fatalf("session = %+v", c)
	}
	rows := b.preview(alice, c.SessionID)
	if got := statuses(rows); got != "valid,valid,invalid" {
		t.Fatalf("statuses = %s (%+v)", got, rows)
	}
	if rows[0].Rating != "5" || rows[1].Rating != "3" {
		t.Errorf("ratings = %s, %s; want 5 (9/10), 3 (6/10)", rows[0].Rating, rows[1].Rating)
	}
	since := b.lastEvent()
	got := b.confirm(alice, c.SessionID, map[string]any{"confirmed_indices": []int{0, 1, 2}})
	if got.Imported != 2 || len(got.Failed) != 1 {
		t.Fatalf("confirm = %+v", got)
	}
	if id := b.scalar(`SELECT external_metadata_id FROM movies WHERE title = 'Heat'`); id != "tt0113277" {
		t.Errorf("Heat's external id = %q", id)
	}
	types := strings.Join(b.eventTypes(since), ",")
	for _, want := range []string{"MovieDiscovered", "MovieEnrichmentRequested", "ReviewLogged"} {
		if strings.Count(types, want) != 2 {
			t.Errorf("events %s: want two %s", types, want)
		}
	}
	again := b.newSession(alice, "ratings.csv", imdbRatings, "")
	if got := statuses(b.preview(alice, again.SessionID)); got != "duplicate,duplicate,invalid" {
		t.Errorf("second preview = %s", got)
	}
}

// TestImportCustomMappingFlow: a semicolon CSV with a BOM goes through mapping, preview and
// confirm; bad ratings and dates are per-row errors; a mapping profile saves and re-applies.
func TestImportCustomMappingFlow(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := b.register("alice")
	c := b.newSession(alice, "export.csv", semicolonBOM, "")
	if c.Kind != "custom" || c.HasMapping || strings.Join(c.Columns, "|") != "Film|Jahr|Note|Gesehen|Notiz" || c.RowCount != 3 {
		t.Fatalf("session = %+v", c)
	}
	if c.SampleRows[0][4] != "great;\nshoot-out" {
		t.Errorf("quoted newline cell = %q", c.SampleRows[0][4])
	}
	path := "/api/v1/import/sessions/" + c.SessionID
	b.must(400, req{method: "GET", path: path + "/preview", token: alice.token}).errorMessage(t)
	mapping := map[string]any{"mappings": []map[string]any{
		{"source_column": "Film", "domain_field": "title"},
		{"source_column": "Jahr", "domain_field": "release_year"},
		{"source_column": "Note", "domain_field": "rating", "rating_scale": 0.5},
		{"source_column": "Gesehen", "domain_field": "watched_at", "date_format": "%d/%m/%Y"},
		{"source_column": "Notiz", "domain_field": "comment"},
		{"source_column": "Notiz", "domain_field": "mood"}, // unknown fields are skipped, as in the original
	}}
	var rc struct {
		RowCount int `json:"row_count"`
	}
	b.must(200, req{method: "PUT", path: path + "/mapping", token: alice.token, body: mapping}).json(t, &rc)
	if rc.RowCount != 3 {
		t.Errorf("row_count = %d", rc.RowCount)
	}
	b.must(400, req{method: "PUT", path: path + "/mapping", token: alice.token, body: map[string]any{"mappings": []map[string]any{
		{"source_column": "Nope", "domain_field": "title"}}}}).errorMessage(t)
	b.must(400, req{method: "PUT", path: path + "/mapping", token: alice.token, body: map[string]any{"mappings": []map[string]any{
		{"source_column": "Gesehen", "domain_field": "watched_at", "date_format": "%Q"}}}}).errorMessage(t)
	rows := b.preview(alice, c.SessionID)
	if got := statuses(rows); got != "valid,invalid,invalid" {
		t.Fatalf("statuses = %s (%+v)", got, rows)
	}
	if rows[0].Rating != "4" || rows[0].WatchedAt != "2024-03-01T00:00:00" || rows[0].Comment != "great;\nshoot-out" {
		t.Errorf("row 0 = %+v", rows[0])
	}
	if !strings.Contains(rows[1].Errors[0], "rating") || !strings.Contains(rows[2].Errors[0], "watched_at") {
		t.Errorf("errors = %v / %v", rows[1].Errors, rows[2].Errors)
	}
	if got := b.confirm(alice, c.SessionID, map[string]any{"confirmed_indices": []int{0, 7}}); got.Imported != 1 ||
		len(got.Failed) != 1 || got.Failed[0].Index != 7 {
		t.Errorf("confirm = %+v", got)
	}

	// Profiles: save this mapping, apply it to the next file of the same shape.
	var p struct {
		ID string `json:"id"`
	}
	b.must(200, req{method: "POST", path: "/api/v1/import/profiles", token: alice.token,
		body: map[string]any{"session_id": c.SessionID, "name": "Spreadsheet"}}).json(t, &p)
	var list []struct {
		ID, Name  string
		CreatedAt string `json:"created_at"`
	}
	b.must(200, req{method: "GET", path: "/api/v1/import/profiles", token: alice.token}).json(t, &list)
	if len(list) != 1 || list[0].Name != "Spreadsheet" || list[0].ID != p.ID || len(list[0].CreatedAt) != len("2006-01-02T15:04:05") {
		t.Fatalf("profiles = %+v", list)
	}
	next := b.newSession(alice, "export2.csv", semicolonBOM, "csv")
	b.must(200, req{method: "PUT", path: "/api/v1/import/sessions/" + next.SessionID + "/profile/" + p.ID, token: alice.token}).json(t, &rc)
	if got := statuses(b.preview(alice, next.SessionID)); got != "duplicate,invalid,invalid" {
		t.Errorf("preview through the profile = %s", got)
	}
	b.must(204, req{method: "DELETE", path: "/api/v1/import/profiles/" + p.ID, token: alice.token})
	b.must(404, req{method: "DELETE", path: "/api/v1/import/profiles/" + p.ID, token: alice.token}).errorMessage(t)
}

// TestImportFormats: TSV, a JSON array and an XLSX made here are read, by the format given or
// detected from the content.
func TestImportFormats(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := b.register("alice")
	tsv := b.newSession(alice, "a.tsv", tsvFile, "")
	if tsv.Format != "tsv" || strings.Join(tsv.Columns, "|") != "title|year|rating|watched" || tsv.RowCount != 1 {
		t.Errorf("tsv = %+v", tsv)
	}
	js := b.newSession(alice, "a.json", jsonFile, "json")
	if js.Format != "json" || strings.Join(js.Columns, "|") != "title|year|stars|on" || js.RowCount != 2 ||
		fmt.Sprint(js.SampleRows) != "[[Heat 1995 4 2024-03-01] [Ran 1985  2024-03-02]]" {
		t.Errorf("json = %+v", js)
	}
	b.must(200, req{method: "PUT", path: "/api/v1/import/sessions/" + js.SessionID + "/mapping", token: alice.token,
		body: map[string]any{"mappings": []map[string]any{{"source_column": "title", "domain_field": "title"},
			{"source_column": "year", "domain_field": "release_year"}, {"source_column": "stars", "domain_field": "rating"},
			{"source_column": "on", "domain_field": "watched_at"}}}})
	if got := statuses(b.preview(alice, js.SessionID)); got != "valid,invalid" {
		t.Errorf("json preview = %s", got)
	}

	f := excelize.NewFile()
	rows := [][]any{{"Name", "Year", "Letterboxd URI", "Rating", "Date"}, {"Heat", 1995, "https://boxd.it/2bHu", 4, "2024-03-01"}, {}, {"Ran", 1985, "u", 2.5, "2024-03-02"}}
	for i, r := range rows {
		if err := f.SetSheetRow("Sheet1", fmt.Sprintf("A%d", i+1), &r); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		t.Fatal(err)
	}
	x := b.newSession(alice, "ratings.xlsx", buf.String(), "")
	if x.Format != "xlsx" || x.Kind != "letterboxd_ratings" || x.RowCount != 2 {
		t.Fatalf("xlsx = %+v", x)
	}
	if got := b.confirm(alice, x.SessionID, map[string]any{"confirmed_indices": []int{0, 1}}); got.Imported != 2 {
		t.Errorf("xlsx confirm = %+v", got)
	}
	if r := b.scalar(`SELECT rating FROM reviews r JOIN movies m ON m.id = r.movie_id WHERE m.title = 'Ran'`); r != "3" {
		t.Errorf("2.5 stars = %s, want 3", r)
	}
}

// TestImportLetterboxdWatchlist: watchlist.csv fills the watchlist, not the diary; a line the
// parser cannot split right is that row's error.
func TestImportLetterboxdWatchlist(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := b.register("alice")
	c := b.newSession(alice, "watchlist.csv", letterboxdWatchlist, "")
	if c.Kind != "letterboxd_watchlist" || c.Target != "watchlist" {
		t.Fatalf("session = %+v", c)
	}
	rows := b.preview(alice, c.SessionID)
	if got := statuses(rows); got != "invalid,valid,valid" {
		t.Fatalf("statuses = %s (%+v)", got, rows)
	}
	since := b.lastEvent()
	if got := b.confirm(alice, c.SessionID, map[string]any{"confirmed_indices": []int{0, 1, 2}}); got.Imported != 2 || len(got.Failed) != 1 {
		t.Errorf("confirm = %+v", got)
	}
	if n := b.scalar(`SELECT count(*) FROM watchlist`); n != "2" {
		t.Errorf("watchlist = %s", n)
	}
	if n := b.scalar(`SELECT count(*) FROM reviews`); n != "0" {
		t.Errorf("reviews = %s", n)
	}
	// Each new manual movie asks the worker to resolve it (MovieResolutionRequested) in the same
	// transaction as its watchlist entry.
	if types := strings.Join(b.eventTypes(since), ","); types != "MovieResolutionRequested,WatchlistEntryAdded,MovieResolutionRequested,WatchlistEntryAdded" {
		t.Errorf("events = %s", types)
	}
	watched := b.newSession(alice, "watched.csv", letterboxdWatchlist, "")
	if watched.Kind != "letterboxd_watched" || watched.Target != "diary" {
		t.Errorf("watched.csv = %+v", watched)
	}
}

// TestImportRefusals: no file, a file too large, an unreadable one, malformed ids.
func TestImportRefusals(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := b.register("alice")
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	_ = mw.WriteField("format", "csv")
	_ = mw.Close()
	hr, _ := http.NewRequest("POST", b.srv.URL+"/api/v1/import/sessions", &body)
	hr.Header.Set("Content-Type", mw.FormDataContentType())
	hr.Header.Set("Authorization", "Bearer "+alice.token)
	resp, err := b.srv.Client().Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || !strings.Contains(string(raw), "no file") {
		t.Errorf("no file = %d %s", resp.StatusCode, raw)
	}
	big := bytes.Repeat([]byte("Heat,1995,4,2024-03-01\n"), (33<<20)/23)
	big = append([]byte("title,year,rating,watched\n"), big...)
	if r := b.upload(alice, "big.csv", big, ""); r.status != 413 {
		t.Errorf("33 MiB upload = %d %s", r.status, r.body)
	}
	if n := b.scalar(`SELECT count(*) FROM import_sessions`); n != "0" {
		t.Errorf("sessions after the refused upload = %s", n)
	}
	// A limit on what the file turns into (tabular's) is a 413 naming it, never a 500.
	wide := strings.Repeat("c,", tabular.MaxColumns) + "c\nx\n"
	if r := b.upload(alice, "wide.csv", []byte(wide), ""); r.status != 413 || !strings.Contains(string(r.body), "more than 256") {
		t.Errorf("a header of %d columns = %d %s", tabular.MaxColumns+1, r.status, r.body)
	}
	line := "title\n" + strings.Repeat("x", tabular.MaxLineBytes+1) + "\n"
	if r := b.upload(alice, "line.csv", []byte(line), ""); r.status != 413 || !strings.Contains(string(r.body), "longer than") {
		t.Errorf("a line over %d bytes = %d %s", tabular.MaxLineBytes, r.status, r.body)
	}
	if r := b.upload(alice, "x.json", []byte(`{"not": "an array"}`), "json"); r.status != 400 {
		t.Errorf("json object = %d %s", r.status, r.body)
	}
	if r := b.upload(alice, "empty.csv", nil, ""); r.status != 400 {
		t.Errorf("empty file = %d %s", r.status, r.body)
	}
	// A file that is no table is refused as such, not read as a CSV with a column named "\x89PNG".
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00\x00\x00\x01\x00\x08\x06")
	if r := b.upload(alice, "poster.png", png, ""); r.status != 400 || !strings.Contains(string(r.body), "not a table") ||
		!strings.Contains(string(r.body), "PNG image") {
		t.Errorf("a PNG = %d %s", r.status, r.body)
	}
	// A confirm of 200,000 rows is larger than the API's 1 MiB body limit, and is accepted.
	c := b.newSession(alice, "ratings.csv", letterboxdRatings, "")
	many := make([]int, 200_000)
	for i := range many {
		many[i] = i
	}
	if got := b.confirm(alice, c.SessionID, map[string]any{"confirmed_indices": many}); got.Imported != 1 || len(got.Failed) != len(many)-1 {
		t.Errorf("confirm of 200,000 indices: imported %d, failed %d", got.Imported, len(got.Failed))
	}
	if msg := b.must(400, req{method: "GET", path: "/api/v1/import/sessions/nope", token: alice.token}).errorMessage(t); msg != "invalid session id" {
		t.Errorf("message = %q", msg)
	}
	if msg := b.must(400, req{method: "DELETE", path: "/api/v1/import/profiles/nope", token: alice.token}).errorMessage(t); msg != "invalid profile id" {
		t.Errorf("message = %q", msg)
	}
}

// TestImportSessionsAreTheirOwners: every import route answers 401 without a token and 404 for
// another user's session or profile.
func TestImportSessionsAreTheirOwners(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, bob := b.register("alice"), b.register("bob")
	c := b.newSession(alice, "ratings.csv", letterboxdRatings, "")
	var p struct {
		ID string `json:"id"`
	}
	b.must(200, req{method: "POST", path: "/api/v1/import/profiles", token: alice.token,
		body: map[string]any{"session_id": c.SessionID, "name": "mine"}}).json(t, &p)
	s := "/api/v1/import/sessions/" + c.SessionID
	mapping := map[string]any{"mappings": []map[string]any{{"source_column": "Name", "domain_field": "title"}}}
	routes := []req{
		{method: "GET", path: s},
		{method: "PUT", path: s + "/mapping", body: mapping},
		{method: "GET", path: s + "/preview"},
		{method: "POST", path: s + "/confirm", body: map[string]any{"confirmed_indices": []int{0}}},
		{method: "PUT", path: s + "/profile/" + p.ID},
		{method: "POST", path: "/api/v1/import/profiles", body: map[string]any{"session_id": c.SessionID, "name": "theirs"}},
		{method: "DELETE", path: "/api/v1/import/profiles/" + p.ID},
	}
	for _, r := range routes {
		b.must(401, r).errorMessage(t)
		r.token = bob.token
		b.must(404, r).errorMessage(t)
	}
	b.must(401, req{method: "GET", path: "/api/v1/import/profiles"})
	var list []json.RawMessage
	b.must(200, req{method: "GET", path: "/api/v1/import/profiles", token: bob.token}).json(t, &list)
	if len(list) != 0 {
		t.Errorf("bob sees %d profiles", len(list))
	}
	if r := b.upload(account{token: "bad"}, "a.csv", []byte(letterboxdRatings), ""); r.status != 401 {
		t.Errorf("upload without a valid token = %d", r.status)
	}
	// Bob applying his own profile to alice's session is still a 404.
	var bp struct {
		ID string `json:"id"`
	}
	bc := b.newSession(bob, "ratings.csv", letterboxdRatings, "")
	b.must(200, req{method: "POST", path: "/api/v1/import/profiles", token: bob.token,
		body: map[string]any{"session_id": bc.SessionID, "name": "bob's"}}).json(t, &bp)
	b.must(404, req{method: "PUT", path: s + "/profile/" + bp.ID, token: bob.token})
	if n := b.scalar(`SELECT count(*) FROM reviews`); n != "0" {
		t.Errorf("reviews = %s after bob's attempts", n)
	}
	b.must(200, req{method: "GET", path: s, token: alice.token})
}

// TestImportBatchIsAtomicWithItsEvents: when the events of a batch cannot be written, neither
// are its reviews, movies or row outcomes; the confirm fails and a later one writes it all.
func TestImportBatchIsAtomicWithItsEvents(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := b.register("alice")
	c := b.newSession(alice, "ratings.csv", imdbRatings, "")
	since := b.lastEvent()
	b.failEnqueue.Store(true)
	b.must(500, req{method: "POST", path: "/api/v1/import/sessions/" + c.SessionID + "/confirm", token: alice.token,
		body: map[string]any{"confirmed_indices": []int{0, 1, 2}}}).errorMessage(t)
	state := `SELECT (SELECT count(*) FROM reviews) || '/' || (SELECT count(*) FROM movies) || '/' ||
		(SELECT count(*) FROM import_rows WHERE outcome IS NOT NULL)`
	if got := b.scalar(state); got != "0/0/0" {
		t.Errorf("reviews/movies/outcomes after the failed batch = %s, want 0/0/0", got)
	}
	if n := len(b.eventTypes(since)); n != 0 {
		t.Errorf("%d events after the failed batch", n)
	}
	b.failEnqueue.Store(false)
	if got := b.confirm(alice, c.SessionID, map[string]any{"confirmed_indices": []int{0, 1, 2}}); got.Imported != 2 || len(got.Failed) != 1 {
		t.Errorf("confirm after the failure = %+v", got)
	}
	if got := b.scalar(state); got != "2/2/3" {
		t.Errorf("reviews/movies/outcomes = %s, want 2/2/3", got)
	}
	if got := strings.Join(b.eventTypes(since), ","); got != "MovieDiscovered,MovieEnrichmentRequested,ReviewLogged,MovieDiscovered,MovieEnrichmentRequested,ReviewLogged" {
		t.Errorf("events = %s", got)
	}
}

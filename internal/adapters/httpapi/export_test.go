package httpapi_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"

	"moviesdiary/internal/usecase/review"
)

func TestDiaryExport(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, bob := b.register("alice"), b.register("bob")
	b.must(201, req{method: "POST", path: "/api/v1/reviews", token: alice.token, body: map[string]any{
		"manual_title": `Tár, "the" film`, "manual_release_year": 2022, "manual_director": "Todd Field", "rating": 4, "watch_medium": "cinema",
		"comment": "line one\nline two", "watched_at": "2024-03-15T21:00:00"}})
	b.must(201, req{method: "POST", path: "/api/v1/reviews", token: alice.token, body: map[string]any{
		"manual_title": "Heat", "manual_release_year": 1995, "rating": 5, "watched_at": "2024-01-02"}})
	b.execSQL(`UPDATE movies SET external_metadata_id = 'tt0113277' WHERE title = 'Heat'`)
	b.logReview(bob, "Ronin", 3, "2024-02-01") // someone else's

	csv := b.must(200, req{method: "GET", path: "/api/v1/diary/export?format=csv", token: alice.token})
	want := exportHeader +
		"Heat,1995,,5,,2024-01-02,tt0113277,5,false,,00:00:00\n" +
		"\"Tár, \"\"the\"\" film\",2022,Todd Field,4,\"line one\nline two\",2024-03-15,,4,false,cinema,21:00:00\n"
	if string(csv.body) != want {
		t.Errorf("CSV export =\n%q\nwant\n%q", csv.body, want)
	}
	for k, v := range map[string]string{"Content-Type": "text/csv; charset=utf-8",
		"Content-Disposition": `attachment; filename="diary.csv"`} {
		if got := csv.header.Get(k); got != v {
			t.Errorf("CSV %s = %q, want %q", k, got, v)
		}
	}
	// csv is the default.
	if got := b.must(200, req{method: "GET", path: "/api/v1/diary/export", token: alice.token}).body; string(got) != want {
		t.Errorf("default export = %q", got)
	}

	js := b.must(200, req{method: "GET", path: "/api/v1/diary/export?format=json", token: alice.token})
	var entries []map[string]any
	js.json(t, &entries)
	wantJSON := `[{"title":"Heat","year":1995,"director":null,"rating":5,"comment":null,"watched_at":"2024-01-02","external_metadata_id":"tt0113277",` +
		`"rating_precise":5,"rewatch":false,"watch_medium":null,"watched_time":"00:00:00"}` + "\n" +
		`,{"title":"Tár, \"the\" film","year":2022,"director":"Todd Field","rating":4,"comment":"line one\nline two","watched_at":"2024-03-15","external_metadata_id":null,` +
		`"rating_precise":4,"rewatch":false,"watch_medium":"cinema","watched_time":"21:00:00"}` + "\n]\n"
	if string(js.body) != wantJSON {
		t.Errorf("JSON export =\n%s\nwant\n%s", js.body, wantJSON)
	}
	if js.header.Get("Content-Type") != "application/json" || js.header.Get("Content-Disposition") != `attachment; filename="diary.json"` {
		t.Errorf("JSON headers = %v", js.header)
	}

	// An empty diary: the header alone, or [].
	carol := b.register("carol")
	if got := string(b.must(200, req{method: "GET", path: "/api/v1/diary/export", token: carol.token}).body); got != exportHeader {
		t.Errorf("empty CSV = %q", got)
	}
	if got := string(b.must(200, req{method: "GET", path: "/api/v1/diary/export?format=json", token: carol.token}).body); got != "[]\n" {
		t.Errorf("empty JSON = %q", got)
	}
	if msg := b.must(400, req{method: "GET", path: "/api/v1/diary/export?format=xlsx", token: alice.token}).errorMessage(t); !strings.Contains(msg, "csv, json or letterboxd") {
		t.Errorf("bad format message = %q", msg)
	}
	b.must(401, req{method: "GET", path: "/api/v1/diary/export"}).errorMessage(t)
	b.must(401, req{method: "GET", path: "/api/v1/diary/export", token: expiredToken(t, alice.id)}).errorMessage(t)
}

const exportHeader = "title,year,director,rating,comment,watched_at,external_metadata_id,rating_precise,rewatch,watch_medium,watched_time\n"

// TestDiaryExportAcrossBatches: a diary longer than a batch, with many viewings at the same
// time, comes out whole, once each, in (watched_at, id) order.
func TestDiaryExportAcrossBatches(t *testing.T) {
	t.Parallel()
	b := setup(t)
	a := b.register("alice")
	movie := uuid.New()
	b.execSQL(`INSERT INTO movies (id, title, release_year) VALUES (?, 'Heat', 1995)`, movie.String())
	n := 2*review.ExportBatch + 3
	tx, err := b.db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		// Three distinct times, so batches end inside runs of equal watched_at.
		at := fmt.Sprintf("2024-0%d-01T00:00:00.000Z", 1+i%3)
		if _, err := tx.Exec(`INSERT INTO reviews (id, user_id, movie_id, rating, comment, watched_at) VALUES (?, ?, ?, 3, ?, ?)`,
			uuid.New().String(), a.id.String(), movie.String(), fmt.Sprint(i), at); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	var entries []struct {
		Comment   string `json:"comment"`
		WatchedAt string `json:"watched_at"`
	}
	b.must(200, req{method: "GET", path: "/api/v1/diary/export?format=json", token: a.token}).json(t, &entries)
	seen := map[string]bool{}
	for i, e := range entries {
		if seen[e.Comment] {
			t.Fatalf("review %s exported twice", e.Comment)
		}
		seen[e.Comment] = true
		if i > 0 && e.WatchedAt < entries[i-1].WatchedAt {
			t.Fatalf("entry %d (%s) before %s: not in order", i, e.WatchedAt, entries[i-1].WatchedAt)
		}
	}
	if len(entries) != n {
		t.Fatalf("exported %d reviews, want %d", len(entries), n)
	}
	csv := b.must(200, req{method: "GET", path: "/api/v1/diary/export", token: a.token}).body
	if lines := strings.Count(string(csv), "\n"); lines != n+1 {
		t.Errorf("CSV has %d lines, want %d", lines, n+1)
	}
}

// TestDiaryExportReimports: the diary CSV is recognised on import (moviesdiary_diary, no
// mapping step) and carries every field back: another account importing alice's export
// exports the same file — half stars, rewatches, the watch medium and the time of day.
func TestDiaryExportReimports(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, bob := b.register("alice"), b.register("bob")
	lb := b.newSession(alice, "diary.csv", letterboxdDiary, "")
	b.confirm(alice, lb.SessionID, map[string]any{"confirmed_indices": []int{0, 1, 2}})
	b.must(201, req{method: "POST", path: "/api/v1/reviews", token: alice.token, body: map[string]any{
		"manual_title": "Ronin", "manual_release_year": 1998, "manual_director": "John Frankenheimer", "rating": 4,
		"comment": "car chases,\n\"the\" best", "watch_medium": "physical_media", "watched_at": "2024-08-03T22:15:30"}})
	export := string(b.must(200, req{method: "GET", path: "/api/v1/diary/export", token: alice.token}).body)
	if strings.Count(export, "\n") != 6 || !strings.Contains(export, ",4.5,false,,") || !strings.Contains(export, ",5,true,,") ||
		!strings.Contains(export, ",physical_media,22:15:30") {
		t.Fatalf("alice's export:\n%s", export)
	}

	c := b.newSession(bob, "diary.csv", export, "")
	if c.Kind != "moviesdiary_diary" || !c.HasMapping || c.RowCount != 4 {
		t.Fatalf("the export re-imported: %+v", c)
	}
	if got := statuses(b.preview(bob, c.SessionID)); got != "valid,valid,valid,valid" {
		t.Fatalf("statuses = %s", got)
	}
	if got := b.confirm(bob, c.SessionID, map[string]any{"confirmed_indices": []int{0, 1, 2, 3}}); got.Imported != 4 {
		t.Fatalf("confirm = %+v", got)
	}
	if again := string(b.must(200, req{method: "GET", path: "/api/v1/diary/export", token: bob.token}).body); again != export {
		t.Errorf("bob's export of alice's:\n%s\nwant\n%s", again, export)
	}
}

// TestLetterboxdExport: ?format=letterboxd writes the columns Letterboxd's importer reads —
// the movie's IMDb or TMDb id, the date, the rating in half stars, Rewatch, Review — and our own
// importer recognises that file (letterboxd_import) and reads it back whole: another account
// importing it exports the same Letterboxd file.
func TestLetterboxdExport(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, bob := b.register("alice"), b.register("bob")
	lb := b.newSession(alice, "diary.csv", letterboxdDiary, "")
	b.confirm(alice, lb.SessionID, map[string]any{"confirmed_indices": []int{0, 1, 2}})
	b.must(201, req{method: "POST", path: "/api/v1/reviews", token: alice.token, body: map[string]any{
		"manual_title": "Ronin", "manual_release_year": 1998, "manual_director": "John Frankenheimer", "rating": 4,
		"comment": "car chases,\n\"the\" best", "watched_at": "2024-08-03T22:15:30"}})
	b.must(201, req{method: "POST", path: "/api/v1/reviews", token: alice.token, body: map[string]any{
		"external_metadata_id": "tmdb:949", "manual_title": "Heat", "manual_release_year": 1995, "rating": 5, "watched_at": "2024-09-01"}})
	b.must(201, req{method: "POST", path: "/api/v1/reviews", token: alice.token, body: map[string]any{
		"external_metadata_id": "tt0110912", "manual_title": "Pulp Fiction", "manual_release_year": 1994, "rating": 3, "watched_at": "2024-09-02"}})

	got := b.must(200, req{method: "GET", path: "/api/v1/diary/export?format=letterboxd", token: alice.token})
	export := string(got.body)
	if cd := got.header.Get("Content-Disposition"); cd != `attachment; filename="diary-letterboxd.csv"` {
		t.Errorf("Content-Disposition = %q", cd)
	}
	for _, want := range []string{
		"Title,Year,Directors,imdbID,tmdbID,WatchedDate,Rating,Rewatch,Review\n",
		"Ronin,1998,John Frankenheimer,,,2024-08-03,4,,\"car chases,\n\"\"the\"\" best\"\n",
		"Heat,1995,,,949,2024-09-01,5,,\n",
		"Pulp Fiction,1994,,tt0110912,,2024-09-02,3,,\n",
		",4.5,", ",Yes,",
	} {
		if !strings.Contains(export, want) {
			t.Errorf("the Letterboxd export lacks %q:\n%s", want, export)
		}
	}

	c := b.newSession(bob, "letterboxd.csv", export, "")
	if c.Kind != "letterboxd_import" || !c.HasMapping || c.RowCount != 6 {
		t.Fatalf("the Letterboxd export re-imported: %+v", c)
	}
	if got := b.confirm(bob, c.SessionID, map[string]any{"confirmed_indices": []int{0, 1, 2, 3, 4, 5}}); got.Imported != 6 {
		t.Fatalf("confirm = %+v", got)
	}
	if again := string(b.must(200, req{method: "GET", path: "/api/v1/diary/export?format=letterboxd", token: bob.token}).body); again != export {
		t.Errorf("bob's Letterboxd export of alice's:\n%s\nwant\n%s", again, export)
	}
	var ids []string
	rows, err := b.db.Query(`SELECT DISTINCT m.external_metadata_id FROM reviews r JOIN movies m ON m.id = r.movie_id
		WHERE r.user_id = ? AND m.external_metadata_id IS NOT NULL ORDER BY 1`, bob.id.String())
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if strings.Join(ids, ",") != "tmdb:949,tt0110912" {
		t.Errorf("bob's movies' ids = %v: the export lost a movie's identity", ids)
	}
}

package app_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/postgres/postgrestest"
	"moviesdiary/internal/adapters/sqlite/sqlitetest"
	"moviesdiary/internal/app"
	"moviesdiary/internal/usecase/archive"
	"moviesdiary/internal/usecase/auth"
	"moviesdiary/internal/usecase/profile"
)

// TestAccountArchiveRoundTrip exports an account with data in every area on instance A and
// imports it into an empty account on instance B (another database, another server, the same
// domain: an account moved to a new server), on each store. B's archive then holds what A's
// did, field by field (but the followers, who must follow again, and the wrap-ups, generated on
// each instance), movies keep their TMDb and IMDb ids, and a second import adds nothing.
func TestAccountArchiveRoundTrip(t *testing.T) {
	t.Parallel()
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			open := func(name string) app.Store {
				if engine == "sqlite" {
					return sqlitetest.Open(t, filepath.Join(t.TempDir(), name+".db"))
				}
				s, _ := postgrestest.Open(t)
				return s
			}
			testArchiveRoundTrip(t, newInstance(t, open("a")), newInstance(t, open("b")))
		})
	}
}

const letterboxdDiary = "Date,Name,Year,Letterboxd URI,Rating,Rewatch,Tags,Watched Date\n" +
	"2024-03-02,Heat,1995,https://boxd.it/2bHu,4.5,,\"crime, la\",2024-03-01\n" +
	"2024-05-02,Heat,1995,https://boxd.it/2bHu,5,Yes,,2024-05-01\n" +
	"2024-06-11,\"Crouching Tiger, Hidden Dragon\",2000,https://boxd.it/1XlY,0.5,,,2024-06-10\n"

func testArchiveRoundTrip(t *testing.T, a, b *instance) {
	ctx := context.Background()
	alice, bob, carol, dave := a.register("alice"), a.register("bob"), a.register("carol"), a.register("dave")

	// The diary: half stars and a rewatch from Letterboxd (whose session's mapping becomes an
	// import profile), reviews naming movies by IMDb and TMDb id and by hand, with a medium,
	// comments and times of day.
	var created struct {
		SessionID string `json:"session_id"`
	}
	a.json(a.upload("/api/v1/import/sessions", alice.token, "diary.csv", []byte(letterboxdDiary), 200), &created)
	a.call("POST", "/api/v1/import/sessions/"+created.SessionID+"/confirm", alice.token, map[string]any{"confirmed_indices": []int{0, 1, 2}}, 200)
	a.call("POST", "/api/v1/import/profiles", alice.token, map[string]any{"session_id": created.SessionID, "name": "Letterboxd"}, 200)
	for _, r := range []map[string]any{
		{"external_metadata_id": "tt0122690", "manual_title": "Ronin", "manual_release_year": 1998, "rating": 4,
			"comment": "car chases,\n\"the\" best", "watch_medium": "cinema", "watched_at": "2024-08-03T22:15:30"},
		{"external_metadata_id": "tmdb:603", "manual_title": "The Matrix", "manual_release_year": 1999, "rating": 5, "watched_at": "2024-09-01T20:00:00"},
		{"manual_title": "A Small Film", "manual_release_year": 2021, "manual_director": "Someone", "rating": 2,
			"watch_medium": "streaming", "watched_at": "2024-10-05"},
	} {
		a.call("POST", "/api/v1/reviews", alice.token, r, 201)
	}
	// The watchlist, one of them a film reviewed before it was put on the list again.
	for _, w := range []map[string]any{
		{"external_metadata_id": "tt0110912", "manual_title": "Pulp Fiction", "manual_release_year": 1994},
		{"manual_title": "Some Short", "manual_release_year": 2001, "manual_director": "Nobody"},
		{"external_metadata_id": "tmdb:603", "manual_title": "The Matrix", "manual_release_year": 1999},
	} {
		a.call("POST", "/api/v1/watchlist", alice.token, w, 201)
	}
	a.call("POST", "/api/v1/goals", alice.token, map[string]any{"year": 2024, "target_count": 50}, 200)
	a.call("POST", "/api/v1/goals", alice.token, map[string]any{"year": 2025, "target_count": 12}, 200)
	a.call("PUT", "/api/v1/settings", alice.token, map[string]any{"federate_reviews": false, "federate_watchlist": true, "federate_goals": false}, 204)
	if err := a.site.API.WrapUps.SetPublic(ctx, alice.id, true); err != nil {
		t.Fatal(err)
	}
	if err := a.site.API.Profiles.Update(ctx, profile.UpdateCommand{UserID: alice.id, DisplayName: "Alice A.", Bio: "Films, mostly."}); err != nil {
		t.Fatal(err)
	}
	a.call("PUT", "/api/v1/profile/fields", alice.token, map[string]any{"fields": []map[string]string{{"name": "Website", "value": "https://alice.example"}}}, 204)
	// Follows both ways, and a block.
	a.call("POST", "/api/v1/social/follow", alice.token, map[string]any{"handle": "bob"}, 200)
	a.call("POST", "/api/v1/social/followers/accept", bob.token, map[string]any{"actor_url": a.actor(alice)}, 200)
	a.call("POST", "/api/v1/social/follow", dave.token, map[string]any{"handle": "alice"}, 200)
	a.call("POST", "/api/v1/social/followers/accept", alice.token, map[string]any{"actor_url": a.actor(dave)}, 200)
	a.call("POST", "/api/v1/social/block", alice.token, map[string]any{"actor_url": a.actor(carol)}, 204)

	fromA := archiveFiles(t, a.call("GET", "/api/v1/account/archive", alice.token, nil, 200))
	for _, want := range []string{"bob@movies.example"} {
		if !strings.Contains(string(fromA["following.csv"]), want) {
			t.Fatalf("A's following.csv lacks %q:\n%s", want, fromA["following.csv"])
		}
	}
	if n := strings.Count(string(fromA["diary.csv"]), "\n"); n != 8 { // a comment holds a newline
		t.Fatalf("A's diary.csv has %d lines, want 8:\n%s", n, fromA["diary.csv"])
	}

	// B: an empty account (another name) and the accounts its follows and blocks name.
	alicia, bobB := b.register("alicia"), b.register("bob")
	b.register("carol")
	zipA := zipOf(t, fromA)
	var rep archive.Report
	b.json(b.upload("/api/v1/account/archive", alicia.token, "archive.zip", zipA, 200), &rep)
	if rep.Diary.Imported != 6 || rep.Diary.Duplicates != 0 || len(rep.Diary.Failed) != 0 || rep.Watchlist.Added != 3 ||
		rep.Goals.Added != 2 || rep.Following.Added != 1 || rep.Blocks.Added != 1 || rep.ImportProfiles.Added != 1 ||
		!rep.SettingsUpdated || !rep.ProfileUpdated {
		t.Fatalf("first import = %+v", rep)
	}
	// A follow waits for its acceptance, on B as on A.
	b.call("POST", "/api/v1/social/followers/accept", bobB.token, map[string]any{"actor_url": b.actor(alicia)}, 200)

	fromB := archiveFiles(t, b.call("GET", "/api/v1/account/archive", alicia.token, nil, 200))
	compareArchives(t, fromA, fromB)

	// Twice: nothing added, nothing changed.
	var again archive.Report
	b.json(b.upload("/api/v1/account/archive", alicia.token, "archive.zip", zipA, 200), &again)
	if again.Diary.Imported != 0 || again.Diary.Duplicates != 6 || again.Watchlist.Added != 0 || again.Watchlist.Present != 3 ||
		again.Goals.Added != 0 || again.Goals.Present != 2 || again.Following.Added != 0 || again.Following.Present != 1 ||
		again.Blocks.Added != 0 || again.Blocks.Present != 1 || again.ImportProfiles.Added != 0 || again.ImportProfiles.Present != 1 ||
		again.SettingsUpdated || again.ProfileUpdated {
		t.Fatalf("second import = %+v", again)
	}
	twice := archiveFiles(t, b.call("GET", "/api/v1/account/archive", alicia.token, nil, 200))
	for name, data := range fromB {
		if name == "manifest.json" {
			continue
		}
		if !bytes.Equal(twice[name], data) {
			t.Errorf("%s changed on the second import:\n%s\nwas\n%s", name, twice[name], data)
		}
	}
}

// compareArchives checks B's archive against A's, field by field.
func compareArchives(t *testing.T, a, b map[string][]byte) {
	t.Helper()
	for _, name := range []string{"diary.csv", "diary.json", "watchlist.csv", "watchlist.json", "goals.csv", "goals.json", "settings.json"} {
		if !bytes.Equal(a[name], b[name]) {
			t.Errorf("%s differs:\nA:\n%s\nB:\n%s", name, a[name], b[name])
		}
	}
	if !strings.Contains(string(a["diary.csv"]), "tt0122690") || !strings.Contains(string(a["diary.csv"]), "tmdb:603") ||
		!strings.Contains(string(a["diary.csv"]), ",4.5,") || !strings.Contains(string(a["diary.csv"]), ",5,true,") {
		t.Errorf("A's diary lacks a movie id, a half star or a rewatch:\n%s", a["diary.csv"])
	}
	var pa, pb archive.ProfileFile
	decode(t, a[`profile.json`], &pa)
	decode(t, b[`profile.json`], &pb)
	if pa.DisplayName != "Alice A." || pb.DisplayName != pa.DisplayName || pb.Bio != pa.Bio || !reflect.DeepEqual(pa.Fields, pb.Fields) || len(pb.Fields) != 1 {
		t.Errorf("profile: A %+v, B %+v", pa, pb)
	}
	handles := func(data []byte) []string {
		var actors []archive.Actor
		decode(t, data, &actors)
		out := []string{}
		for _, x := range actors {
			out = append(out, x.Handle)
		}
		return out
	}
	for _, name := range []string{"following.json", "blocks.json"} {
		if ha, hb := handles(a[name]), handles(b[name]); !reflect.DeepEqual(ha, hb) || len(ha) != 1 {
			t.Errorf("%s: A %v, B %v", name, ha, hb)
		}
	}
	if got := handles(a["followers.json"]); !reflect.DeepEqual(got, []string{"dave@movies.example"}) {
		t.Errorf("A's followers = %v", got)
	}
	if got := handles(b["followers.json"]); len(got) != 0 {
		t.Errorf("B's followers = %v: followers are not imported", got)
	}
	var ipa, ipb []archive.ImportProfile
	decode(t, a["import_profiles.json"], &ipa)
	decode(t, b["import_profiles.json"], &ipb)
	if len(ipa) != 1 || !reflect.DeepEqual(ipa, ipb) {
		t.Errorf("import profiles: A %+v, B %+v", ipa, ipb)
	}
	var sa archive.SettingsFile
	decode(t, a["settings.json"], &sa)
	if sa.Federation.Reviews || !sa.Federation.Watchlist || sa.Federation.Goals || !sa.WrapUpsPublic {
		t.Errorf("A's settings = %+v", sa)
	}
}

// instance is one server over its own store, at https://movies.example.
type instance struct {
	t    *testing.T
	srv  *httptest.Server
	site *app.Site
}

type account struct {
	id    uuid.UUID
	token string
}

func newInstance(t *testing.T, store app.Store) *instance {
	t.Helper()
	site, err := app.NewSite(store, app.Options{Log: slog.New(slog.DiscardHandler), BaseURL: "https://movies.example",
		Secret: []byte("test secret, thirty-two bytes..!"), AllowRegistration: true, Hasher: auth.Hasher{Memory: 64, Time: 1, Threads: 1}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(site.Handler())
	t.Cleanup(srv.Close)
	return &instance{t: t, srv: srv, site: site}
}

func (in *instance) register(name string) account {
	in.call("POST", "/api/v1/auth/register", "", map[string]string{"email": name + "@example.test", "username": name, "password": "password-" + name}, 201)
	var login struct {
		Token  string    `json:"token"`
		UserID uuid.UUID `json:"user_id"`
	}
	in.json(in.call("POST", "/api/v1/auth/login", "", map[string]string{"email": name + "@example.test", "password": "password-" + name}, 200), &login)
	return account{id: login.UserID, token: login.Token}
}

func (in *instance) actor(a account) string { return "https://movies.example/users/" + a.id.String() }

// call sends a JSON request (body nil: none) and checks the status.
func (in *instance) call(method, path, token string, body any, want int) []byte {
	in.t.Helper()
	var r io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			in.t.Fatal(err)
		}
		r = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, in.srv.URL+path, r)
	if err != nil {
		in.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return in.send(req, token, want)
}

// upload posts data as the multipart field "file".
func (in *instance) upload(path, token, filename string, data []byte, want int) []byte {
	in.t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, err := mw.CreateFormFile("file", filename)
	if err != nil {
		in.t.Fatal(err)
	}
	if _, err := fw.Write(data); err != nil {
		in.t.Fatal(err)
	}
	if err := mw.Close(); err != nil {
		in.t.Fatal(err)
	}
	req, err := http.NewRequest("POST", in.srv.URL+path, &buf)
	if err != nil {
		in.t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return in.send(req, token, want)
}

func (in *instance) send(req *http.Request, token string, want int) []byte {
	in.t.Helper()
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := in.srv.Client().Do(req)
	if err != nil {
		in.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		in.t.Fatal(err)
	}
	if resp.StatusCode != want {
		in.t.Fatalf("%s %s = %d, want %d: %s", req.Method, req.URL.Path, resp.StatusCode, want, data)
	}
	return data
}

func (in *instance) json(data []byte, v any) {
	in.t.Helper()
	decode(in.t, data, v)
}

func decode(t *testing.T, data []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
}

// archiveFiles reads a zip into its files by name.
func archiveFiles(t *testing.T, data []byte) map[string][]byte {
	t.Helper()
	z, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("the archive is not a zip: %v", err)
	}
	out := map[string][]byte{}
	for _, f := range z.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(fmt.Errorf("%s: %w", f.Name, err))
		}
		out[f.Name] = b
	}
	if len(out) != len(archive.Files) {
		t.Fatalf("the archive holds %d files, want %d", len(out), len(archive.Files))
	}
	return out
}

// zipOf writes files back into a zip, in the archive's order.
func zipOf(t *testing.T, files map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	for _, name := range archive.Files {
		w, err := z.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(files[name]); err != nil {
			t.Fatal(err)
		}
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

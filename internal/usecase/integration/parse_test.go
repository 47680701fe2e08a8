package integration_test

import (
	"os"
	"path/filepath"
	"testing"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/integration"
)

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestParsersAcceptOnlyAFinishedMovie reads each provider's fixtures: a finished movie is
// reported with TMDb preferred over IMDb, anything else (episodes, pauses, plays, unfinished
// stops) is ignored without an error.
func TestParsersAcceptOnlyAFinishedMovie(t *testing.T) {
	t.Parallel()
	year := 1995
	heat := integration.Report{Title: "Heat", Year: &year, ExternalID: "tmdb:949"}
	cases := []struct {
		fixture string
		parse   func([]byte) (integration.Report, bool, error)
		want    *integration.Report
	}{
		{"jellyfin-movie-stop.json", integration.ParseJellyfin, &heat},
		{"jellyfin-movie-stop-no-ids.json", integration.ParseJellyfin, &integration.Report{Title: "Heat", Year: &year}},
		{"jellyfin-episode-stop.json", integration.ParseJellyfin, nil},
		{"jellyfin-movie-stop-unfinished.json", integration.ParseJellyfin, nil},
		{"jellyfin-movie-paused.json", integration.ParseJellyfin, nil},
		{"plex-movie-scrobble.json", integration.ParsePlex, &heat},
		{"plex-movie-scrobble-legacy-agent.json", integration.ParsePlex, &integration.Report{Title: "Heat", Year: &year, ExternalID: "tt0113277"}},
		{"plex-movie-play.json", integration.ParsePlex, nil},
		{"plex-movie-pause.json", integration.ParsePlex, nil},
		{"plex-episode-scrobble.json", integration.ParsePlex, nil},
		{"emby-movie-stop.json", integration.ParseEmby, &heat},
		{"emby-movie-stop-unfinished.json", integration.ParseEmby, nil},
	}
	for _, c := range cases {
		t.Run(c.fixture, func(t *testing.T) {
			t.Parallel()
			got, ok, err := c.parse(fixture(t, c.fixture))
			if err != nil {
				t.Fatal(err)
			}
			if c.want == nil {
				if ok {
					t.Fatalf("reported %+v, want it ignored", got)
				}
				return
			}
			if !ok {
				t.Fatal("ignored, want a report")
			}
			if got.Title != c.want.Title || got.ExternalID != c.want.ExternalID || (got.Year == nil) != (c.want.Year == nil) ||
				got.Year != nil && *got.Year != *c.want.Year {
				t.Errorf("report = %+v (year %v), want %+v", got, got.Year, *c.want)
			}
		})
	}
}

// TestParsersTolerateTemplatedValues: a hand-written Jellyfin template sends every value as a
// string; the parser reads them the same.
func TestParsersTolerateTemplatedValues(t *testing.T) {
	t.Parallel()
	got, ok, err := integration.ParseJellyfin([]byte(`{"NotificationType":"PlaybackStop","ItemType":"Movie",
		"Name":"Heat","Year":"1995","PlayedToCompletion":"True","Provider_tmdb":"","Provider_imdb":"tt0113277"}`))
	if err != nil || !ok || got.ExternalID != "tt0113277" || got.Year == nil || *got.Year != 1995 {
		t.Errorf("ParseJellyfin = %+v, %v, %v; want Heat (1995) tt0113277", got, ok, err)
	}
}

// TestParsersRejectMalformedBodies: what is not a JSON object is KindInvalid, for every provider.
func TestParsersRejectMalformedBodies(t *testing.T) {
	t.Parallel()
	parsers := map[string]func([]byte) (integration.Report, bool, error){
		"jellyfin": integration.ParseJellyfin, "plex": integration.ParsePlex, "emby": integration.ParseEmby,
	}
	for name, parse := range parsers {
		for _, body := range []string{``, `not json`, `[1,2]`, `{"NotificationType": `, `"PlaybackStop"`} {
			if _, _, err := parse([]byte(body)); domain.KindOf(err) != domain.KindInvalid {
				t.Errorf("%s(%q) error = %v, want KindInvalid", name, body, err)
			}
		}
	}
}

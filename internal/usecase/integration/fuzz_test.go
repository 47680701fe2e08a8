package integration_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/integration"
)

// fuzzParser seeds f with the provider's fixtures and holds parse to its contract on any body:
// no panic; an error is KindInvalid; a report has a title that keeps the text rule
// (domain.CheckText) and an external id that is empty or valid.
func fuzzParser(f *testing.F, provider string, parse func([]byte) (integration.Report, bool, error), extra ...string) {
	paths, err := filepath.Glob(filepath.Join("testdata", provider+"-*.json"))
	if err != nil || len(paths) == 0 {
		f.Fatalf("no %s fixtures: %v", provider, err)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		// The same body with control characters in every string.
		f.Add([]byte(strings.ReplaceAll(string(b), `": "`, `": "\u0000\u001b`)))
	}
	for _, s := range extra {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		rep, ok, err := parse(body)
		if err != nil {
			if domain.KindOf(err) != domain.KindInvalid {
				t.Fatalf("error of kind %v: %v", domain.KindOf(err), err)
			}
			return
		}
		if !ok {
			return
		}
		if rep.Title == "" || domain.CheckText("title", rep.Title, false) != nil {
			t.Fatalf("reported title %q", rep.Title)
		}
		if id, err := domain.NormalizeExternalID(rep.ExternalID); err != nil || id != rep.ExternalID {
			t.Fatalf("reported external id %q", rep.ExternalID)
		}
	})
}

func FuzzJellyfin(f *testing.F) {
	fuzzParser(f, "jellyfin", integration.ParseJellyfin, `{"NotificationType":"PlaybackStop","ItemType":"Movie",
		"Name":"Heat","Year":"1995","PlayedToCompletion":"True","Provider_tmdb":"","Provider_imdb":"tt0113277"}`, `[]`, `{"Year":1e99}`)
}

func FuzzPlex(f *testing.F) {
	fuzzParser(f, "plex", integration.ParsePlex, `{"event":"media.scrobble","Metadata":{"type":"movie","title":"\u0000"}}`)
}

func FuzzEmby(f *testing.F) {
	fuzzParser(f, "emby", integration.ParseEmby)
}

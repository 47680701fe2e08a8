package search_test

import (
	"context"
	"fmt"
	"testing"

	"moviesdiary/internal/app/mediatest"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/search"
)

// seed stores n movies with two credits each and indexes them all.
func seed(b testing.TB, n int) *bundle {
	env := mediatest.New(b)
	bd := &bundle{Env: env, h: search.NewHandlers(env.Store), svc: search.NewService(env.Store, env.Store)}
	tx, err := env.DB.Begin()
	if err != nil {
		b.Fatal(err)
	}
	words := []string{"blade", "runner", "heat", "alien", "night", "city", "river", "star", "dark", "love"}
	for i := range n {
		ext := fmt.Sprintf("tt%07d", i+1)
		id := domain.MovieIDFor(ext)
		title := fmt.Sprintf("%s %s %d", words[i%10], words[(i/10)%10], i)
		if _, err := tx.Exec(`INSERT INTO movies (id, external_metadata_id, title, release_year, genres) VALUES (?, ?, ?, ?, '["Drama"]')`,
			id.String(), ext, title, 1950+i%70); err != nil {
			b.Fatal(err)
		}
		for k := range 2 {
			pext := fmt.Sprintf("tmdb:%d", (i*2+k)%(n/2+1))
			pid := domain.MovieIDFor(pext)
			if _, err := tx.Exec(`INSERT INTO people (id, external_id, name) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`,
				pid.String(), pext, fmt.Sprintf("Person %s %d", words[(i+k)%10], (i*2+k)%(n/2+1))); err != nil {
				b.Fatal(err)
			}
			if _, err := tx.Exec(`INSERT OR IGNORE INTO movie_credits (movie_id, person_id, kind, role) VALUES (?, ?, 'cast', 'x')`,
				id.String(), pid.String()); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	if err := env.Store.Reindex(context.Background(), search.ReindexPageDefault); err != nil {
		b.Fatal(err)
	}
	return bd
}

// BenchmarkSearch is GET /api/v1/search's query (movies and people, first page of 20) over an
// index of 10,000 movies.
func BenchmarkSearch(b *testing.B) {
	bd := seed(b, 10_000)
	ctx := context.Background()
	for _, q := range []string{"blade", "blade run", "person night"} {
		b.Run(q, func(b *testing.B) {
			for b.Loop() {
				if _, err := bd.svc.Search(ctx, search.Query{Text: q, Page: domain.Page{Limit: 20}}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkIndexMovie is one search-index upsert (a movie and its people) in a 10,000-movie index.
func BenchmarkIndexMovie(b *testing.B) {
	bd := seed(b, 10_000)
	ctx := context.Background()
	id := domain.MovieIDFor("tt0000042")
	for b.Loop() {
		if err := bd.Store.IndexMovie(ctx, id, false); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReindex is a full rebuild of a 10,000-movie index.
func BenchmarkReindex(b *testing.B) {
	bd := seed(b, 10_000)
	ctx := context.Background()
	for b.Loop() {
		if err := bd.Store.Reindex(ctx, search.ReindexPageDefault); err != nil {
			b.Fatal(err)
		}
	}
}

func seedT(t *testing.T) *bundle { return seed(t, 2000) }

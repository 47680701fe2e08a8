package tmdb

import (
	"context"

	"moviesdiary/internal/usecase/enrichment"
)

// Enrichment is the client as the enrichment handlers' source.
type Enrichment struct{ C *Client }

// Movie returns the movie with an external id ("tt…" or "tmdb:N"), its credits and keywords.
func (e Enrichment) Movie(ctx context.Context, externalID string) (enrichment.Movie, error) {
	id, err := e.C.MovieID(ctx, externalID)
	if err != nil {
		return enrichment.Movie{}, err
	}
	m, err := e.C.Movie(ctx, id)
	if err != nil {
		return enrichment.Movie{}, err
	}
	out := enrichment.Movie{TMDbID: m.ID, IMDbID: m.IMDbID, Title: m.Title, Tagline: m.Tagline, Overview: m.Overview,
		Runtime: m.Runtime, Budget: m.Budget, Revenue: m.Revenue, VoteAverage: m.VoteAverage, VoteCount: m.VoteCount,
		OriginalLanguage: m.OriginalLanguage, BackdropPath: m.BackdropPath}
	if m.Collection != nil {
		out.Collection = m.Collection.Name
	}
	for _, g := range m.Genres {
		out.Genres = append(out.Genres, enrichment.Named{TMDbID: g.ID, Name: g.Name})
	}
	for _, k := range m.Keywords.Keywords {
		out.Keywords = append(out.Keywords, enrichment.Named{TMDbID: k.ID, Name: k.Name})
	}
	for _, c := range m.Credits.Cast {
		out.Cast = append(out.Cast, enrichment.CastMember{TMDbID: c.ID, Name: c.Name, Character: c.Character, Order: c.Order,
			ProfilePath: c.ProfilePath, KnownForDepartment: c.KnownForDepartment})
	}
	for _, c := range m.Credits.Crew {
		out.Crew = append(out.Crew, enrichment.CrewMember{TMDbID: c.ID, Name: c.Name, Job: c.Job, Department: c.Department,
			ProfilePath: c.ProfilePath, KnownForDepartment: c.KnownForDepartment})
	}
	return out, nil
}

// Person returns the person with a TMDb id.
func (e Enrichment) Person(ctx context.Context, tmdbID int64) (enrichment.Person, error) {
	p, err := e.C.Person(ctx, tmdbID)
	if err != nil {
		return enrichment.Person{}, err
	}
	return enrichment.Person{TMDbID: p.ID, Name: p.Name, Biography: p.Biography, Birthday: p.Birthday, Deathday: p.Deathday,
		PlaceOfBirth: p.PlaceOfBirth, Homepage: p.Homepage, IMDbID: p.IMDbID, KnownForDepartment: p.KnownForDepartment,
		ProfilePath: p.ProfilePath}, nil
}

package movie

import (
	"context"
	"fmt"
)

// Bounds of a title resolution's calls to the provider.
const (
	// SearchPageSize is how many films the provider answers per search page (TMDb: 20). A full
	// first page without a match may hide the film, so the search is repeated narrowed to the year.
	SearchPageSize = 20
	// MaxDirectorLookups bounds the details calls one resolution makes to tell candidates apart
	// by director; more candidates than that with the same title and year stay ambiguous.
	MaxDirectorLookups = 3
)

// MatchTitle searches the provider for the film w names and returns its confident Match, with the
// verdict (its Reason says why there is none). It costs one search, a second one narrowed to the
// year when the first filled a page without a match, and a details call per candidate (at most
// MaxDirectorLookups) when several agree on title and year and a director was given. A provider
// error is returned as is: the caller decides whether it is worth a retry.
func MatchTitle(ctx context.Context, md Metadata, w Wanted) (Candidate, Verdict, error) {
	cands, err := md.SearchMovies(ctx, TitleQuery{Title: w.Title})
	if err != nil {
		return Candidate{}, Verdict{}, fmt.Errorf("search %q: %w", w.Title, err)
	}
	v := Match(w, cands)
	if !v.OK && v.NeedDirectors == nil && len(cands) >= SearchPageSize {
		more, err := md.SearchMovies(ctx, TitleQuery{Title: w.Title, Year: w.Year})
		if err != nil {
			return Candidate{}, Verdict{}, fmt.Errorf("search %q (%d): %w", w.Title, w.Year, err)
		}
		v = Match(w, append(cands, more...))
	}
	if v.NeedDirectors == nil {
		return v.Film, v, nil
	}
	if len(v.NeedDirectors) > MaxDirectorLookups {
		return Candidate{}, Verdict{Reason: fmt.Sprintf("ambiguous: %d candidates with the title and year", len(v.NeedDirectors))}, nil
	}
	filled := make([]Candidate, 0, len(v.NeedDirectors))
	for _, c := range v.NeedDirectors {
		m, err := md.LookupMovie(ctx, c.ExternalID())
		if err != nil {
			return Candidate{}, Verdict{}, fmt.Errorf("directors of %s: %w", c.ExternalID(), err)
		}
		c.Directors = []string{}
		if m.Director != nil {
			c.Directors = append(c.Directors, *m.Director)
		}
		filled = append(filled, c)
	}
	v = Match(w, filled)
	return v.Film, v, nil
}

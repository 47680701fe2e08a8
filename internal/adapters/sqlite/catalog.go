package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/movie"
)

// Movies returns a page of movies by title, filtered by a title substring, a genre and an
// original language.
func (s *Store) Movies(ctx context.Context, f movie.Filter, p domain.Page) (domain.Paged[domain.Movie], error) {
	where := []string{`1 = 1`}
	var args []any
	if f.Search != "" {
		where, args = append(where, `m.title LIKE ? ESCAPE '\'`), append(args, "%"+escapeLike(f.Search)+"%")
	}
	if f.Genre != "" {
		where = append(where, `EXISTS (SELECT 1 FROM json_each(m.genres) WHERE value = ? COLLATE NOCASE)`)
		args = append(args, f.Genre)
	}
	if f.Language != "" {
		where, args = append(where, `m.original_language = ?`), append(args, f.Language)
	}
	w := ` FROM movies m WHERE ` + strings.Join(where, ` AND `)
	out := domain.Paged[domain.Movie]{Page: p}
	if err := s.read.QueryRowContext(ctx, `SELECT count(*)`+w, args...).Scan(&out.Total); err != nil {
		return out, fmt.Errorf("count movies: %w", err)
	}
	rows, err := s.read.QueryContext(ctx, `SELECT `+movieColumns+w+` ORDER BY m.title COLLATE NOCASE, m.id LIMIT CAST(? AS INTEGER) OFFSET CAST(? AS INTEGER)`,
		append(args, p.Limit, p.Offset)...)
	if err != nil {
		return out, fmt.Errorf("list movies: %w", err)
	}
	out.Items, err = scanAll(rows, func(rows *sql.Rows) (domain.Movie, error) {
		var mr movieRow
		if err := rows.Scan(mr.dest()...); err != nil {
			return domain.Movie{}, err
		}
		return mr.movie()
	})
	if err != nil {
		return out, fmt.Errorf("list movies: %w", err)
	}
	return out, nil
}

// MovieStats counts a movie's reviews, their average and their histogram.
func (s *Store) MovieStats(ctx context.Context, id uuid.UUID) (movie.Stats, error) {
	var st movie.Stats
	var avg sql.Null[float64]
	h := &st.Histogram
	err := s.read.QueryRowContext(ctx, `SELECT count(*), avg(rating), count(remote_actor_url),
		count(*) FILTER (WHERE rating = 1), count(*) FILTER (WHERE rating = 2), count(*) FILTER (WHERE rating = 3),
		count(*) FILTER (WHERE rating = 4), count(*) FILTER (WHERE rating = 5)
		FROM reviews WHERE movie_id = ?`, id.String()).
		Scan(&st.TotalCount, &avg, &st.FederatedCount, &h[0], &h[1], &h[2], &h[3], &h[4])
	if err != nil {
		return st, fmt.Errorf("movie stats: %w", err)
	}
	st.AvgRating = ptr(avg)
	return st, nil
}

// MovieReviews returns a page of a movie's reviews, newest viewing first.
func (s *Store) MovieReviews(ctx context.Context, id uuid.UUID, p domain.Page) (domain.Paged[movie.Viewing], error) {
	out := domain.Paged[movie.Viewing]{Page: p}
	if err := s.read.QueryRowContext(ctx, `SELECT count(*) FROM reviews WHERE movie_id = ?`, id.String()).Scan(&out.Total); err != nil {
		return out, fmt.Errorf("count movie reviews: %w", err)
	}
	rows, err := s.read.QueryContext(ctx, `SELECT `+reviewColumns+`, COALESCE(u.username, r.remote_actor_url, '')
		FROM reviews r LEFT JOIN users u ON u.id = r.user_id WHERE r.movie_id = ?
		ORDER BY r.watched_at DESC, r.id DESC LIMIT CAST(? AS INTEGER) OFFSET CAST(? AS INTEGER)`, id.String(), p.Limit, p.Offset)
	if err != nil {
		return out, fmt.Errorf("movie reviews: %w", err)
	}
	out.Items, err = scanAll(rows, func(rows *sql.Rows) (movie.Viewing, error) {
		var rr reviewRow
		var v movie.Viewing
		if err := rows.Scan(append(rr.dest(), &v.UserDisplay)...); err != nil {
			return v, err
		}
		var err error
		v.Review, err = rr.review()
		return v, err
	})
	if err != nil {
		return out, fmt.Errorf("movie reviews: %w", err)
	}
	return out, nil
}

// MovieProfile returns the enrichment document stored for a movie.
func (s *Store) MovieProfile(ctx context.Context, id uuid.UUID) (json.RawMessage, error) {
	var doc string
	err := s.read.QueryRowContext(ctx, `SELECT profile FROM movie_profiles WHERE movie_id = ?`, id.String()).Scan(&doc)
	if err != nil {
		return nil, notFound(err, "Entity not found: movie profile (not enriched yet)")
	}
	return json.RawMessage(doc), nil
}

// Person returns a person.
func (s *Store) Person(ctx context.Context, id uuid.UUID) (movie.Person, error) {
	var (
		p                                                 movie.Person
		pid                                               string
		enriched                                          sql.Null[string]
		dept, profile, bio, born, died, place, home, imdb sql.Null[string]
	)
	err := s.read.QueryRowContext(ctx, `SELECT id, external_id, name, known_for_department, profile_path, biography,
		birthday, deathday, place_of_birth, homepage, imdb_id, enriched_at FROM people WHERE id = ?`, id.String()).
		Scan(&pid, &p.ExternalID, &p.Name, &dept, &profile, &bio, &born, &died, &place, &home, &imdb, &enriched)
	if err != nil {
		return movie.Person{}, notFound(err, "Entity not found: person")
	}
	p.ID = id
	p.KnownForDepartment, p.ProfilePath, p.Biography = ptr(dept), ptr(profile), ptr(bio)
	p.Birthday, p.Deathday, p.PlaceOfBirth, p.Homepage, p.IMDbID = ptr(born), ptr(died), ptr(place), ptr(home), ptr(imdb)
	p.Enriched = enriched.Valid
	return p, nil
}

// PersonCredits returns a person's credits, newest movie first.
func (s *Store) PersonCredits(ctx context.Context, id uuid.UUID) ([]movie.Credit, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT `+movieColumns+`, c.kind, c.role, c.department
		FROM movie_credits c JOIN movies m ON m.id = c.movie_id WHERE c.person_id = ?
		ORDER BY m.release_year DESC, m.title, c.billing_order`, id.String())
	if err != nil {
		return nil, fmt.Errorf("person credits: %w", err)
	}
	credits, err := scanAll(rows, func(rows *sql.Rows) (movie.Credit, error) {
		var (
			mr   movieRow
			c    movie.Credit
			kind string
			dept sql.Null[string]
		)
		if err := rows.Scan(append(mr.dest(), &kind, &c.Role, &dept)...); err != nil {
			return c, err
		}
		var err error
		c.Movie, err = mr.movie()
		c.Cast, c.Department = kind == "cast", ptr(dept)
		return c, err
	})
	if err != nil {
		return nil, fmt.Errorf("person credits: %w", err)
	}
	return credits, nil
}

package maintenance

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/sqlite"
)

var _ ManualMovieKeys = (*sqlite.Store)(nil)

// TestManualMovieKeyerMergesOldTwins: manual movies stored before manual keys (migration 0290),
// among them one film stored three times in different case and spacing (as concurrent writers
// on PostgreSQL made them, issue 33 finding 6), get their keys; the twins are merged into the
// oldest, their reviews moving with them and their ids redirecting; the other films, a film
// with an external id and another director's film of the same title stay apart; a second run
// changes nothing.
func TestManualMovieKeyerMergesOldTwins(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	movie := func(title string, year int, director, external any, created string) string {
		id := uuid.New().String()
		b.exec(t, `INSERT INTO movies (id, title, release_year, director, external_metadata_id, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
			id, title, year, director, external, created)
		return id
	}
	first := movie("Stalker", 1979, nil, nil, "2024-01-01T00:00:00Z")
	twins := []string{movie("stalker", 1979, nil, nil, "2024-01-02T00:00:00Z"), movie("STALKER ", 1979, nil, nil, "2024-01-03T00:00:00Z")}
	others := []string{
		movie("Stalker", 1980, nil, nil, "2024-01-04T00:00:00Z"),
		movie("Stalker", 1979, "Andrei Tarkovsky", nil, "2024-01-05T00:00:00Z"),
		movie("Stalker", 1979, nil, "tmdb:1398", "2024-01-06T00:00:00Z"),
	}
	for i, id := range append([]string{first}, twins...) {
		user := uuid.New().String()
		b.exec(t, `INSERT INTO users (id, username, email, password_hash) VALUES (?, ?, ?, 'h')`, user, fmt.Sprint("u", i), fmt.Sprint("u", i, "@x"))
		b.exec(t, `INSERT INTO reviews (id, user_id, movie_id, rating, watched_at) VALUES (?, ?, ?, 4, '2024-02-01T00:00:00Z')`,
			uuid.New().String(), user, id)
	}

	job := NewManualMovieKeyer(b.store, 2, b.cfg)
	if err := job.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	if n := b.count(t, `SELECT count(*) FROM movies WHERE id IN (?, ?)`, twins[0], twins[1]); n != 0 {
		t.Fatalf("%d twins left, want both merged", n)
	}
	if n := b.count(t, `SELECT count(*) FROM movie_redirects WHERE new_id = ? AND old_id IN (?, ?)`, first, twins[0], twins[1]); n != 2 {
		t.Fatalf("%d redirects to the first movie, want 2", n)
	}
	if n := b.count(t, `SELECT count(*) FROM reviews WHERE movie_id = ?`, first); n != 3 {
		t.Fatalf("the first movie has %d reviews, want its own and the twins' (3)", n)
	}
	if n := b.count(t, `SELECT count(*) FROM movies WHERE id IN (?, ?, ?, ?)`, first, others[0], others[1], others[2]); n != 4 {
		t.Fatalf("%d of the four distinct films left, want 4", n)
	}
	if n := b.count(t, `SELECT count(*) FROM movies WHERE external_metadata_id IS NULL AND manual_key IS NULL`); n != 0 {
		t.Fatalf("%d manual movies without a key", n)
	}
	// A twin stored now is refused by the unique key.
	if _, err := b.db.Exec(`INSERT INTO movies (id, title, manual_key) SELECT ?, title, manual_key FROM movies WHERE id = ?`,
		uuid.New().String(), first); err == nil {
		t.Fatal("a second movie with the first one's manual key was stored")
	}
	again := NewManualMovieKeyer(b.store, 2, b.cfg)
	if err := again.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	if n := b.count(t, `SELECT count(*) FROM movies`); n != 4 {
		t.Fatalf("%d movies after a second run, want 4", n)
	}
}

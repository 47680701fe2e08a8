package maintenance

import (
	"context"
	"fmt"
	"testing"

	"moviesdiary/internal/adapters/sqlite"

	"github.com/google/uuid"
)

var _ ImageBackfill = (*sqlite.Store)(nil)

// TestImageBackfillOnce: every stored poster and avatar of an older database gets one
// ImageStored (banners, remote URLs and movies without a poster none), in batches smaller than
// the table; a second run, and a new job on the same database (a restarted worker), request
// nothing more.
func TestImageBackfillOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	var want []string
	for i := range 7 {
		id := uuid.New().String()
		poster := "posters/" + id + ".webp"
		switch i {
		case 5:
			poster = "https://image.tmdb.org/t/p/w500/x.jpg"
		case 6:
			b.exec(t, `INSERT INTO movies (id, title, external_metadata_id) VALUES (?, ?, ?)`, id, fmt.Sprint("M", i), fmt.Sprint("tmdb:", i))
			continue
		default:
			want = append(want, poster)
		}
		b.exec(t, `INSERT INTO movies (id, title, external_metadata_id, poster_path) VALUES (?, ?, ?, ?)`,
			id, fmt.Sprint("M", i), fmt.Sprint("tmdb:", i), poster)
	}
	uid := uuid.New().String()
	b.exec(t, `INSERT INTO users (id, username, email, password_hash, avatar_key, banner_key) VALUES (?, 'ann', 'a@x', 'h', ?, ?)`,
		uid, "avatars/"+uid+"/abc.webp", "banners/"+uid+"/def.webp")
	want = append(want, "avatars/"+uid+"/abc.webp")

	job := NewImageBackfiller(b.store, 2, b.cfg)
	for range 2 {
		if err := job.RunOnce(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := NewImageBackfiller(b.store, 2, b.cfg).RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	if n := b.count(t, `SELECT count(*) FROM event_queue WHERE event_type = 'ImageStored'`); n != len(want) {
		t.Errorf("%d ImageStored, want %d", n, len(want))
	}
	for _, key := range want {
		if n := b.count(t, `SELECT count(*) FROM event_queue WHERE event_type = 'ImageStored' AND payload LIKE ?`, "%"+key+"%"); n != 1 {
			t.Errorf("%s requested %d times, want once", key, n)
		}
	}
	if n := b.count(t, `SELECT count(*) FROM backfills WHERE name = 'image-thumbnails' AND done_at IS NOT NULL`); n != 1 {
		t.Error("the backfill is not marked done")
	}
}

var _ MovieImagesBackfill = (*sqlite.Store)(nil)

// TestMovieImagesBackfillOnce: every movie enriched before backdrops and cast photos were stored
// (it has a profile) gets one MovieImagesRequested, in batches smaller than the table; a movie
// never enriched gets none; a restarted worker requests nothing more.
func TestMovieImagesBackfillOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	var want []string
	for i := range 5 {
		id := uuid.New().String()
		b.exec(t, `INSERT INTO movies (id, title, external_metadata_id) VALUES (?, ?, ?)`, id, fmt.Sprint("M", i), fmt.Sprint("tmdb:", i))
		if i == 4 {
			continue // never enriched
		}
		b.exec(t, `INSERT INTO movie_profiles (movie_id, profile, enriched_at) VALUES (?, '{}', '2025-01-01T00:00:00Z')`, id)
		want = append(want, id)
	}
	for range 2 {
		if err := NewMovieImagesBackfiller(b.store, 2, b.cfg).RunOnce(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if n := b.count(t, `SELECT count(*) FROM event_queue WHERE event_type = 'MovieImagesRequested'`); n != len(want) {
		t.Errorf("%d MovieImagesRequested, want %d", n, len(want))
	}
	for _, id := range want {
		if n := b.count(t, `SELECT count(*) FROM event_queue WHERE event_type = 'MovieImagesRequested' AND payload LIKE ?`, "%"+id+"%"); n != 1 {
			t.Errorf("movie %s requested %d times, want once", id, n)
		}
	}
	if n := b.count(t, `SELECT count(*) FROM backfills WHERE name = 'movie-images' AND done_at IS NOT NULL`); n != 1 {
		t.Error("the backfill is not marked done")
	}
}

package sqlite

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/domain"
)

// BenchmarkLogReview measures the store's side of POST /api/v1/reviews, with 8 concurrent writers
// so group commits form as under load, with the outbox and with the enqueue removed: the ratio of
// the two is the outbox's cost without HTTP around it.
func BenchmarkLogReview(b *testing.B) {
	for _, outbox := range []bool{true, false} {
		b.Run(map[bool]string{true: "outbox", false: "no-enqueue"}[outbox], func(b *testing.B) {
			ctx := context.Background()
			var opts []Option
			if !outbox {
				opts = append(opts, WithEnqueue(func(context.Context, *sqlx.Tx, time.Time, ...domain.Event) error { return nil }))
			}
			s := newStore(b, opts...)
			user := uuid.Must(uuid.NewV7())
			if _, err := s.write.ExecContext(ctx, `INSERT INTO users (id, username, email, password_hash) VALUES (?, 'bench', 'bench@example.test', 'x')`, user.String()); err != nil {
				b.Fatal(err)
			}
			movie := domain.Movie{Title: "Heat", ReleaseYear: 1995}
			b.SetParallelism(4) // 8 writers on 2 CPUs
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					r := domain.Review{ID: uuid.Must(uuid.NewV7()), UserID: user, Rating: 4, WatchedAt: time.Now()}
					if _, err := s.LogReview(ctx, r, movie, nil); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

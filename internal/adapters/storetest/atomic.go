package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/enrichment"
	"moviesdiary/internal/usecase/importer"
	"moviesdiary/internal/usecase/integration"
	"moviesdiary/internal/usecase/review"
)

// AtomicWrites is what RunAtomicWrites needs of a store: every write that enqueues events, and
// the reads that show what they change.
type AtomicWrites interface {
	Reviews
	Watchlist
	Social
	Inbound
	Catalog
	Images
	WatchQueue
	Goals
	WrapUpGeneration
	Federation
	Imports
	UserAdmin
}

// atomicCase is one write that enqueues events. setup prepares a fresh store and returns the
// write (the same call each time it runs: it must succeed once the failed attempts left nothing)
// and state, a snapshot of what the write changes. A write whose effect no read shows returns a
// nil state and checks its own result instead (a request that finds nothing to request because
// a failed attempt stamped it fails).
type atomicCase struct {
	name  string
	setup func(t *testing.T, s AtomicWrites) (write func() error, state func() string)
}

// RunAtomicWrites runs every event-writing store method against stores open makes, twice failing:
// once the event insert fails (the change must not commit), once the transaction fails after the
// events were inserted (the events must not commit). Then the write runs for real and must
// change both the state and the outbox, so the case can see what it checks.
func RunAtomicWrites(t *testing.T, open func(t *testing.T, faults *Faults) AtomicWrites) {
	for _, c := range atomicCases() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			faults := &Faults{}
			s := open(t, faults)
			write, state := c.setup(t, s)
			snapshot := func() string {
				if state == nil {
					return ""
				}
				return state()
			}
			before, n := snapshot(), events(t, s)
			for _, mode := range []struct {
				name string
				set  func(bool)
			}{{"the event insert failing", faults.Set}, {"the transaction failing after the event insert", faults.SetAfter}} {
				mode.set(true)
				err := write()
				mode.set(false)
				if !errors.Is(err, ErrInjected) {
					t.Fatalf("with %s: %v, want the injected failure", mode.name, err)
				}
				if got := snapshot(); got != before {
					t.Fatalf("with %s the state changed:\n%s\nwas\n%s", mode.name, got, before)
				}
				if got := events(t, s); got != n {
					t.Fatalf("with %s %d events were left", mode.name, got-n)
				}
			}
			must(t, write())
			if state != nil && snapshot() == before {
				t.Fatalf("the write changed nothing the case reads: %s", before)
			}
			if events(t, s) <= n {
				t.Fatal("the write enqueued no event")
			}
		})
	}
}

// snapshot is parts as JSON (pointers followed, maps sorted): a state to compare.
func snapshot(t *testing.T, parts ...any) string {
	t.Helper()
	b, err := json.Marshal(parts)
	must(t, err)
	return string(b)
}

// probe is a read's value for a snapshot, "not found" for a missing entity; any other error
// fails the test.
func (c tester) probe(v any, err error) any {
	c.Helper()
	if domain.KindOf(err) == domain.KindNotFound {
		return "not found"
	}
	must(c.T, err)
	return v
}

// ignore drops a write's first result, keeping its error.
func ignore[T any](_ T, err error) error { return err }

func atomicCases() []atomicCase {
	ctx := context.Background()
	keep := func(domain.Review) error { return nil }
	const actor, newActor = "https://remote.example/users/rita", "https://elsewhere.example/users/rita"
	local := domain.LocalIdentity
	remote := domain.RemoteIdentity
	diary := func(t *testing.T, s AtomicWrites) func() string {
		return func() string {
			c := tester{t}
			return snapshot(t, c.total(s.Feed(ctx, review.SortDateDesc, page100)), c.probe(s.MovieByExternalID(ctx, "tmdb:1")))
		}
	}
	follows := func(t *testing.T, s AtomicWrites, owner, other uuid.UUID) func() string {
		return func() string {
			c := tester{t}
			return snapshot(t, c.probe(s.Followers(ctx, owner, true)), c.probe(s.Followers(ctx, owner, false)),
				c.probe(s.Following(ctx, other)), c.probe(s.Blocked(ctx, owner)))
		}
	}
	remoteFollow := func(t *testing.T, s AtomicWrites, u uuid.UUID) func() string {
		return func() string {
			c := tester{t}
			return snapshot(t, c.probe(s.Following(ctx, u)), c.probe(s.FollowStatus(ctx, local(u), remote(actor))),
				c.probe(s.FollowStatus(ctx, local(u), remote(newActor))))
		}
	}
	wrapUp := func(t *testing.T, s AtomicWrites, id uuid.UUID) func() string {
		return func() string { return snapshot(t, tester{t}.probe(s.WrapUp(ctx, id))) }
	}
	personState := func(t *testing.T, s AtomicWrites, id int64) func() string {
		return func() string { return snapshot(t, tester{t}.probe(s.Person(ctx, enrichment.PersonID(id)))) }
	}
	wantN := func(want int) func(n int, err error) error {
		return func(n int, err error) error {
			if err == nil && n != want {
				return fmt.Errorf("requested %d, want %d", n, want)
			}
			return err
		}
	}
	return []atomicCase{
		{"LogReview", func(t *testing.T, s AtomicWrites) (func() error, func() string) {
			r := newReview(createUser(t, s, "alice").ID, 4, 1)
			return func() error { return ignore(s.LogReview(ctx, r, tmdbMovie(1), nil)) }, diary(t, s)
		}},
		{"UpdateReview", func(t *testing.T, s AtomicWrites) (func() error, func() string) {
			r := logReview(t, s, newReview(createUser(t, s, "alice").ID, 4, 1), tmdbMovie(1)).Review
			return func() error {
					return ignore(s.UpdateReview(ctx, r.ID, func(r *domain.Review) error { r.Rating = 1; return nil }))
				}, func() string {
					return snapshot(t, tester{t}.probe(s.ReviewEntry(ctx, r.ID)))
				}
		}},
		{"DeleteReview", func(t *testing.T, s AtomicWrites) (func() error, func() string) {
			logged := logReview(t, s, newReview(createUser(t, s, "alice").ID, 4, 1), tmdbMovie(1))
			return func() error { return s.DeleteReview(ctx, logged.Review.ID, keep) }, diary(t, s)
		}},
		{"AddToWatchlist", func(t *testing.T, s AtomicWrites) (func() error, func() string) {
			alice := createUser(t, s, "alice")
			return func() error { return ignore(s.AddToWatchlist(ctx, alice.ID, tmdbMovie(1), t0)) },
				func() string {
					return snapshot(t, tester{t}.probe(s.Watchlist(ctx, alice.ID, page100)), tester{t}.probe(s.MovieByExternalID(ctx, "tmdb:1")))
				}
		}},
		{"RemoveFromWatchlist", func(t *testing.T, s AtomicWrites) (func() error, func() string) {
			alice := createUser(t, s, "alice")
			m, err := s.AddToWatchlist(ctx, alice.ID, tmdbMovie(1), t0)
			must(t, err)
			return func() error { return s.RemoveFromWatchlist(ctx, alice.ID, m.ID) }, func() string {
				return snapshot(t, tester{t}.probe(s.Watchlist(ctx, alice.ID, page100)), tester{t}.probe(s.MovieByID(ctx, m.ID)))
			}
		}},
		{"Follow", func(t *testing.T, s AtomicWrites) (func() error, func() string) {
			alice, bob := createUser(t, s, "alice"), createUser(t, s, "bob")
			return func() error { return s.Follow(ctx, bob.ID, local(alice.ID)) }, follows(t, s, alice.ID, bob.ID)
		}},
		{"FollowRemote", func(t *testing.T, s AtomicWrites) (func() error, func() string) {
			alice := createUser(t, s, "alice")
			return func() error { return s.Follow(ctx, alice.ID, remote(actor)) }, remoteFollow(t, s, alice.ID)
		}},
		{"AcceptFollower", func(t *testing.T, s AtomicWrites) (func() error, func() string) {
			alice, bob := createUser(t, s, "alice"), createUser(t, s, "bob")
			must(t, s.Follow(ctx, bob.ID, local(alice.ID)))
			return func() error { return s.AcceptFollower(ctx, alice.ID, local(bob.ID)) }, follows(t, s, alice.ID, bob.ID)
		}},
		{"RejectFollower", func(t *testing.T, s AtomicWrites) (func() error, func() string) {
			alice, bob := createUser(t, s, "alice"), createUser(t, s, "bob")
			must(t, s.Follow(ctx, bob.ID, local(alice.ID)))
			return func() error { return s.RejectFollower(ctx, alice.ID, local(bob.ID)) }, follows(t, s, alice.ID, bob.ID)
		}},
		{"RemoveFollower", func(t *testing.T, s AtomicWrites) (func() error, func() string) {
			alice, bob := createUser(t, s, "alice"), createUser(t, s, "bob")
			must(t, s.Follow(ctx, bob.ID, local(alice.ID)))
			must(t, s.AcceptFollower(ctx, alice.ID, local(bob.ID)))
			return func() error { return s.RemoveFollower(ctx, alice.ID, local(bob.ID)) }, follows(t, s, alice.ID, bob.ID)
		}},
		{"Unfollow", func(t *testing.T, s AtomicWrites) (func() error, func() string) {
			alice, bob := createUser(t, s, "alice"), createUser(t, s, "bob")
			must(t, s.Follow(ctx, bob.ID, local(alice.ID)))
			must(t, s.AcceptFollower(ctx, alice.ID, local(bob.ID)))
			return func() error { return s.Unfollow(ctx, bob.ID, local(alice.ID)) }, follows(t, s, alice.ID, bob.ID)
		}},
		{"Block", func(t *testing.T, s AtomicWrites) (func() error, func() string) {
			alice, bob := createUser(t, s, "alice"), createUser(t, s, "bob")
			must(t, s.Follow(ctx, bob.ID, local(alice.ID)))
			must(t, s.AcceptFollower(ctx, alice.ID, local(bob.ID)))
			return func() error { return s.Block(ctx, alice.ID, local(bob.ID)) }, follows(t, s, alice.ID, bob.ID)
		}},
		{"Unblock", func(t *testing.T, s AtomicWrites) (func() error, func() string) {
			alice, bob := createUser(t, s, "alice"), createUser(t, s, "bob")
			must(t, s.Block(ctx, alice.ID, local(bob.ID)))
			return func() error { return s.Unblock(ctx, alice.ID, local(bob.ID)) }, follows(t, s, alice.ID, bob.ID)
		}},
		{"FollowAnswered", func(t *testing.T, s AtomicWrites) (func() error, func() string) {
			alice := createUser(t, s, "alice")
			must(t, s.Follow(ctx, alice.ID, remote(actor)))
			return func() error { return s.FollowAnswered(ctx, alice.ID, actor, true) }, remoteFollow(t, s, alice.ID)
		}},
		{"MoveFollows", func(t *testing.T, s AtomicWrites) (func() error, func() string) {
			alice := createUser(t, s, "alice")
			must(t, s.Follow(ctx, alice.ID, remote(actor)))
			must(t, s.FollowAnswered(ctx, alice.ID, actor, true))
			return func() error { return s.MoveFollows(ctx, actor, newActor) }, remoteFollow(t, s, alice.ID)
		}},
		{"SaveRemoteReview", func(t *testing.T, s AtomicWrites) (func() error, func() string) {
			r := remoteReview(actor, actor+"/reviews/1", 1, 4, 1)
			return func() error { return s.SaveRemoteReview(ctx, r) }, diary(t, s)
		}},
		{"DeleteRemoteReviews", func(t *testing.T, s AtomicWrites) (func() error, func() string) {
			r := remoteReview(actor, actor+"/reviews/1", 1, 4, 1)
			must(t, s.SaveRemoteReview(ctx, r))
			return func() error { return s.DeleteRemoteReviews(ctx, actor, r.APID) }, diary(t, s)
		}},
		{"DeleteUser", func(t *testing.T, s AtomicWrites) (func() error, func() string) {
			createUser(t, s, "alice") // the instance's admin: the last admin is never deleted
			bob := createUser(t, s, "bob")
			logReview(t, s, newReview(bob.ID, 4, 1), tmdbMovie(1))
			return func() error { return s.DeleteUser(ctx, bob.ID) }, func() string {
				return snapshot(t, tester{t}.probe(s.UserByID(ctx, bob.ID)), diary(t, s)())
			}
		}},
		{"UpdateProfile", func(t *testing.T, s AtomicWrites) (func() error, func() string) {
			alice := createUser(t, s, "alice")
			return func() error {
					return s.UpdateProfile(ctx, alice.ID, func(p *domain.Profile) ([]domain.Event, error) {
						p.DisplayName, p.Bio = "Alice", "bio"
						return []domain.Event{domain.SearchReindexRequested{}}, nil
					})
				}, func() string {
					return snapshot(t, tester{t}.probe(s.UserByID(ctx, alice.ID)))
				}
		}},
		{"CreateGoal", func(t *testing.T, s AtomicWrites) (func() error, func() string) {
			alice := createUser(t, s, "alice")
			return func() error { return ignore(s.CreateGoal(ctx, newGoal(alice.ID, 2026, 10))) },
				func() string { return snapshot(t, tester{t}.probe(s.Goals(ctx, alice.ID))) }
		}},
		{"UpdateGoal", func(t *testing.T, s AtomicWrites) (func() error, func() string) {
			alice := createUser(t, s, "alice")
			must(t, ignore(s.CreateGoal(ctx, newGoal(alice.ID, 2026, 10))))
			return func() error { return ignore(s.UpdateGoal(ctx, alice.ID, 2026, 99)) },
				func() string { return snapshot(t, tester{t}.probe(s.Goals(ctx, alice.ID))) }
		}},
		{"DeleteGoal", func(t *testing.T, s AtomicWrites) (func() error, func() string) {
			alice := createUser(t, s, "alice")
			must(t, ignore(s.CreateGoal(ctx, newGoal(alice.ID, 2026, 10))))
			return func() error { return s.DeleteGoal(ctx, alice.ID, 2026) },
				func() string { return snapshot(t, tester{t}.probe(s.Goals(ctx, alice.ID))) }
		}},
		{"SetPoster", func(t *testing.T, s AtomicWrites) (func() error, func() string) {
			m := logReview(t, s, newReview(createUser(t, s, "alice").ID, 4, 1), tmdbMovie(1)).Movie
			return func() error { return ignore(s.SetPoster(ctx, m.ID, "posters/a.jpg")) },
				func() string { return snapshot(t, tester{t}.probe(s.MovieByID(ctx, m.ID))) }
		}},
		{"SaveMovieEnrichment", func(t *testing.T, s AtomicWrites) (func() error, func() string) {
			m := logReview(t, s, newReview(createUser(t, s, "alice").ID, 4, 1), tmdbMovie(1)).Movie
			e := movieEnrichment(m.ID, t0, "o", nil, person(40, "P"))
			e.BackdropPath = ref("/b.jpg")
			return func() error { return s.SaveMovieEnrichment(ctx, e) },
				func() string {
					return snapshot(t, tester{t}.probe(s.MovieImages(ctx, m.ID)), tester{t}.probe(s.MovieProfile(ctx, m.ID)))
				}
		}},
		{"SetBackdrop", func(t *testing.T, s AtomicWrites) (func() error, func() string) {
			m := logReview(t, s, newReview(createUser(t, s, "alice").ID, 4, 1), tmdbMovie(1)).Movie
			return func() error { return ignore(s.SetBackdrop(ctx, m.ID, domain.BackdropKey(m.ID))) },
				func() string { return snapshot(t, tester{t}.probe(s.MovieImages(ctx, m.ID))) }
		}},
		{"SetPersonPhoto", func(t *testing.T, s AtomicWrites) (func() error, func() string) {
			m := logReview(t, s, newReview(createUser(t, s, "alice").ID, 4, 1), tmdbMovie(1)).Movie
			must(t, s.SaveMovieEnrichment(ctx, movieEnrichment(m.ID, t0, "o", nil, person(40, "P"))))
			id := enrichment.PersonID(40)
			return func() error { return ignore(s.SetPersonPhoto(ctx, id, domain.PersonPhotoKey(id))) },
				func() string { return snapshot(t, tester{t}.probe(s.Person(ctx, id))) }
		}},
		{"SwapImageKey", func(t *testing.T, s AtomicWrites) (func() error, func() string) {
			alice := createUser(t, s, "alice")
			m := logReview(t, s, newReview(alice.ID, 4, 1), tmdbMovie(1)).Movie
			must(t, ignore(s.SetPoster(ctx, m.ID, "posters/a.jpg")))
			must(t, s.UpdateProfile(ctx, alice.ID, func(p *domain.Profile) ([]domain.Event, error) {
				p.AvatarKey = "posters/a.jpg"
				return nil, nil
			}))
			return func() error {
					return ignore(s.SwapImageKey(ctx, "posters/a.jpg", domain.ConvertedKey("posters/a.jpg")))
				},
				func() string {
					return snapshot(t, tester{t}.probe(s.MovieByID(ctx, m.ID)), tester{t}.probe(s.UserByID(ctx, alice.ID)))
				}
		}},
		{"SaveWatch", func(t *testing.T, s AtomicWrites) (func() error, func() string) {
			alice := createUser(t, s, "alice")
			w := watchOf(alice.ID, 1, t0)
			return func() error { return ignore(s.SaveWatch(ctx, w, t0.Add(-time.Hour), nil)) },
				func() string { return snapshot(t, tester{t}.probe(s.PendingWatches(ctx, alice.ID))) }
		}},
		{"SaveWatchConfirmed", func(t *testing.T, s AtomicWrites) (func() error, func() string) {
			alice := createUser(t, s, "alice")
			w := watchOf(alice.ID, 1, t0)
			confirm := &integration.Confirmed{EventID: w.ID, Review: newReview(alice.ID, 4, 1), Movie: tmdbMovie(1)}
			return func() error { return ignore(s.SaveWatch(ctx, w, t0.Add(-time.Hour), confirm)) },
				func() string { return snapshot(t, tester{t}.probe(s.WatchEvent(ctx, w.ID)), diary(t, s)()) }
		}},
		{"ConfirmWatches", func(t *testing.T, s AtomicWrites) (func() error, func() string) {
			alice := createUser(t, s, "alice")
			w := watchOf(alice.ID, 1, t0)
			must(t, ignore(s.SaveWatch(ctx, w, t0.Add(-time.Hour), nil)))
			confirm := integration.Confirmed{EventID: w.ID, Review: newReview(alice.ID, 4, 1), Movie: tmdbMovie(1)}
			return func() error {
					return s.ConfirmWatches(ctx, alice.ID, t0.Add(time.Hour), []integration.Confirmed{confirm})
				},
				func() string { return snapshot(t, tester{t}.probe(s.WatchEvent(ctx, w.ID)), diary(t, s)()) }
		}},
		{"RequestWrapUp", func(t *testing.T, s AtomicWrites) (func() error, func() string) {
			alice := createUser(t, s, "alice")
			w := newWrapUp(&alice.ID, t0)
			return func() error { return ignore(s.RequestWrapUp(ctx, w)) }, wrapUp(t, s, w.ID)
		}},
		{"CompleteWrapUp", func(t *testing.T, s AtomicWrites) (func() error, func() string) {
			alice := createUser(t, s, "alice")
			w, err := s.RequestWrapUp(ctx, newWrapUp(&alice.ID, t0))
			must(t, err)
			_, _, err = s.StartWrapUp(ctx, w.ID)
			must(t, err)
			return func() error { return ignore(s.CompleteWrapUp(ctx, w.ID, json.RawMessage(`{}`), t0)) }, wrapUp(t, s, w.ID)
		}},
		{"RegenerateWrapUp", func(t *testing.T, s AtomicWrites) (func() error, func() string) {
			alice := createUser(t, s, "alice")
			w, err := s.RequestWrapUp(ctx, newWrapUp(&alice.ID, t0))
			must(t, err)
			_, _, err = s.StartWrapUp(ctx, w.ID)
			must(t, err)
			must(t, ignore(s.CompleteWrapUp(ctx, w.ID, json.RawMessage(`{}`), t0)))
			return func() error { return ignore(s.RegenerateWrapUp(ctx, w.ID)) }, wrapUp(t, s, w.ID)
		}},
		{"RequestMovieEnrichment", func(t *testing.T, s AtomicWrites) (func() error, func() string) {
			// The request's stamp shows only in what the staleness job selects, which writes: the
			// case checks the events alone (RequestStaleEnrichment's covers such a stamp).
			m := logReview(t, s, newReview(createUser(t, s, "alice").ID, 4, 1), tmdbMovie(1)).Movie
			return func() error { return s.RequestMovieEnrichment(ctx, m.ID, "tmdb:1") }, nil
		}},
		{"RequestStaleEnrichment", func(t *testing.T, s AtomicWrites) (func() error, func() string) {
			// A committed stamp would make the request after the failures find nothing to request.
			logReview(t, s, newReview(createUser(t, s, "alice").ID, 4, 1), tmdbMovie(1))
			return func() error {
				return wantN(1)(s.RequestStaleEnrichment(ctx, time.Now().AddDate(1, 0, 0), time.Hour, time.Hour, time.Hour, 10))
			}, nil
		}},
		{"RequestPersonEnrichment", func(t *testing.T, s AtomicWrites) (func() error, func() string) {
			m := logReview(t, s, newReview(createUser(t, s, "alice").ID, 4, 1), tmdbMovie(1)).Movie
			must(t, s.SaveMovieEnrichment(ctx, movieEnrichment(m.ID, t0, "o", nil, person(40, "P"))))
			return func() error { return ignore(s.RequestPersonEnrichment(ctx, enrichment.PersonID(40), "tmdb:40")) }, personState(t, s, 40)
		}},
		{"RequestStalePersonEnrichment", func(t *testing.T, s AtomicWrites) (func() error, func() string) {
			// A committed stamp would make the request after the failures find nothing to request.
			m := logReview(t, s, newReview(createUser(t, s, "alice").ID, 4, 1), tmdbMovie(1)).Movie
			must(t, s.SaveMovieEnrichment(ctx, movieEnrichment(m.ID, t0, "o", nil, person(40, "P"))))
			must(t, ignore(s.RequestPersonEnrichment(ctx, enrichment.PersonID(40), "tmdb:40")))
			return func() error {
				return wantN(1)(s.RequestStalePersonEnrichment(ctx, time.Now().Add(72*time.Hour), 30*24*time.Hour, 24*time.Hour, 10))
			}, nil
		}},
		{"Publish", func(t *testing.T, s AtomicWrites) (func() error, func() string) {
			alice := createUser(t, s, "alice")
			p := publication("https://local.example/activities/f1", "Follow", alice.ID, actor, actor+"/inbox")
			p.Relation = &domain.Relation{Type: "Follow", Actor: "https://local.example/users/alice", Object: actor, ActivityID: p.ActivityID}
			return func() error { return s.Publish(ctx, p) }, func() string {
				return snapshot(t, tester{t}.probe(s.PublishedActivity(ctx, p.ActivityID)),
					tester{t}.probe(s.Relation(ctx, "Follow", p.Relation.Actor, actor)))
			}
		}},
		{"ReceiveActivity", func(t *testing.T, s AtomicWrites) (func() error, func() string) {
			// A committed receipt would make the one after the failures a repeat.
			return func() error {
				fresh, err := s.ReceiveActivity(ctx, received(actor+"/likes/1", actor))
				if err == nil && !fresh {
					return errors.New("the receipt after the failed ones is a repeat")
				}
				return err
			}, nil
		}},
		{"WriteImportBatch", func(t *testing.T, s AtomicWrites) (func() error, func() string) {
			alice := createUser(t, s, "alice")
			is := uploadSession(t, s, alice.ID, 3, t0.Add(time.Hour))
			must(t, s.SelectImportRows(ctx, is.ID, []int{0, 1, 2}, false, t0.Add(time.Hour)))
			b := importer.Batch{SessionID: is.ID, UserID: alice.ID, Target: importer.TargetDiary, Now: t0,
				Items: []importer.Item{reviewItem(0, alice.ID, 1, 0), {Index: 1, Err: "no title"}, reviewItem(2, alice.ID, 2, 0)}}
			return func() error { return s.WriteImportBatch(ctx, b) }, func() string {
				pending, err := s.PendingImportRows(ctx, is.ID, 10)
				must(t, err)
				return snapshot(t, indices(pending), diary(t, s)())
			}
		}},
	}
}

package storecopy_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/delivery"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/outbox"
	"moviesdiary/internal/usecase/enrichment"
	"moviesdiary/internal/usecase/importer"
	"moviesdiary/internal/usecase/review"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// instance is what populate wrote that the tests look for afterwards.
type instance struct {
	alice, bob domain.User
	movie      domain.Movie // enriched and indexed for search, titled "Solaris Revisited"
	pending    []string     // the outbox rows a worker would claim now (due pending rows)
}

// populate writes a broad instance into a new SQLite database at path through the store's own
// methods, as servers and workers write it: users and sessions, local and remote reviews (so the
// derived review_counts, following_feed and movie_review_stats rows exist), follows of local and
// remote actors, blocks, watchlists, goals, wrap-ups, an import, federation state, webhooks and
// watch events, and an outbox with done, dead-lettered, retried, claimed and pending rows and
// their ledger rows. The store is closed when it returns.
func populate(t *testing.T, path string) instance {
	t.Helper()
	ctx := context.Background()
	s, err := sqlite.OpenMigrated(ctx, path, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	var in instance
	user := func(name string, role domain.Role) domain.User {
		u, err := s.CreateUser(ctx, domain.User{ID: uuid.New(), Username: name, Email: name + "@example.org",
			PasswordHash: "hash-" + name, Role: role, CreatedAt: t0})
		must(err)
		return u
	}
	in.alice, in.bob = user("alice", domain.RoleAdmin), user("Bob", domain.RoleStandard)
	carol := user("carol", domain.RoleStandard)
	must(s.CreateSession(ctx, in.alice.ID, "token-a", t0, t0.Add(24*time.Hour)))
	must(s.CreateSession(ctx, in.bob.ID, "token-b", t0, t0.Add(24*time.Hour)))
	_, err = s.RotateSession(ctx, "token-b", "token-b2", t0.Add(time.Hour), t0.Add(25*time.Hour))
	must(err)
	must(s.SaveSettings(ctx, carol.ID, domain.FederationSettings{Reviews: true, Watchlist: false, Goals: true}))
	must(s.SetWrapUpsPublic(ctx, in.alice.ID, true))
	must(s.UpdateProfile(ctx, in.bob.ID, func(p *domain.Profile) ([]domain.Event, error) {
		p.DisplayName, p.Bio = "Bob B.", "Films, mostly."
		return nil, nil
	}))
	_, _, err = s.ActorKey(ctx, in.alice.ID)
	must(err)

	// Follows: bob and carol follow alice, alice follows a remote actor, a remote actor follows
	// alice, carol blocks another remote actor.
	const rita, sam = "https://remote.example/users/rita", "https://other.example/users/sam"
	must(s.Follow(ctx, in.bob.ID, domain.LocalIdentity(in.alice.ID)))
	must(s.Follow(ctx, carol.ID, domain.LocalIdentity(in.alice.ID)))
	must(s.AcceptFollower(ctx, in.alice.ID, domain.LocalIdentity(in.bob.ID))) // carol's stays pending
	must(s.Follow(ctx, in.alice.ID, domain.RemoteIdentity(rita)))
	must(s.FollowAnswered(ctx, in.alice.ID, rita, true))
	must(s.AddRemoteFollower(ctx, in.alice.ID, sam, sam+"#follow-1", "https://local.example/users/alice"))
	must(s.AcceptFollower(ctx, in.alice.ID, domain.RemoteIdentity(sam)))
	must(s.Block(ctx, carol.ID, domain.RemoteIdentity("https://spam.example/users/x")))
	must(s.SaveRemoteActor(ctx, domain.RemoteActor{URL: rita, Inbox: rita + "/inbox", SharedInbox: "https://remote.example/inbox",
		Outbox: rita + "/outbox", Handle: "@rita@remote.example", DisplayName: "Rita", KeyID: rita + "#main-key",
		PublicKeyPEM: "-----BEGIN PUBLIC KEY-----\nx\n-----END PUBLIC KEY-----", FetchedAt: t0}))
	must(s.BlockDomain(ctx, "Spam.Example", "spam"))

	// Reviews: alice's (in bob's and carol's feeds), bob's, an idempotent one, remote ones.
	movie := func(n int) domain.Movie {
		ext := fmt.Sprintf("tmdb:%d", n)
		return domain.Movie{ExternalID: &ext, Title: fmt.Sprintf("Movie %d", n), ReleaseYear: 1990 + n, Genres: []string{"Drama"}}
	}
	logged := func(u uuid.UUID, m domain.Movie, rating, day int, idem *review.Idempotency) review.Logged {
		r := domain.Review{ID: uuid.New(), UserID: u, Rating: rating, WatchedAt: t0.AddDate(0, 0, day),
			CreatedAt: t0.Add(time.Duration(day) * time.Second), UpdatedAt: t0.Add(time.Duration(day) * time.Second)}
		l, err := s.LogReview(ctx, r, m, idem)
		must(err)
		return l
	}
	solaris := movie(1)
	solaris.Title = "Solaris Revisited"
	first := logged(in.alice.ID, solaris, 5, 1, nil)
	in.movie = first.Movie
	for i := 2; i <= 6; i++ {
		logged(in.alice.ID, movie(i), 1+i%5, i, nil)
		logged(in.bob.ID, movie(i), 2+i%4, i+1, nil)
	}
	logged(carol.ID, movie(7), 3, 7, &review.Idempotency{Key: "idem-1", RequestHash: "h1"})
	deleted := logged(in.bob.ID, movie(8), 4, 8, nil)
	must(s.DeleteReview(ctx, deleted.Review.ID, func(domain.Review) error { return nil }))
	_, err = s.UpdateReview(ctx, first.Review.ID, func(r *domain.Review) error {
		comment := "Better the second time."
		r.Comment, r.Rating = &comment, 4
		return nil
	})
	must(err)
	for i, apID := range []string{rita + "/reviews/1", rita + "/reviews/2"} {
		must(s.SaveRemoteReview(ctx, domain.RemoteReview{ID: uuid.NewSHA1(uuid.NameSpaceURL, []byte(apID)), APID: apID,
			ActorURL: rita, UserID: uuid.NewSHA1(uuid.NameSpaceURL, []byte(rita)), Movie: movie(2 + i), Rating: 3 + i,
			WatchedAt: t0.AddDate(0, 0, 10+i), Published: t0}))
	}
	must(s.SaveReaction(ctx, domain.Reaction{ReviewID: first.Review.ID, Kind: "Like", ActorURL: sam, ActivityID: sam + "#like-1"}))

	// Catalog: the first movie enriched (people, credits, profile) and indexed for search.
	dept := "Acting"
	people := []enrichment.PersonRow{
		{ID: enrichment.PersonID(501), ExternalID: "tmdb:501", Name: "Natalya Bondarchuk", KnownForDepartment: &dept},
		{ID: enrichment.PersonID(502), ExternalID: "tmdb:502", Name: "Donatas Banionis", KnownForDepartment: &dept},
	}
	e := enrichment.MovieEnrichment{MovieID: in.movie.ID, Genres: []string{"Science Fiction", "Drama"},
		Overview: ref("A psychologist is sent to a station orbiting a distant planet."), Runtime: ref(167),
		OriginalLanguage: ref("ru"), People: people, EnrichedAt: t0, Director: ref("Andrei Tarkovsky")}
	for i, p := range people {
		e.Credits = append(e.Credits, enrichment.CreditRow{PersonID: p.ID, Cast: true, Role: "Role " + p.Name, Order: ref(i)})
	}
	e.Profile, _ = json.Marshal(map[string]any{"keywords": []map[string]any{{"id": 1, "name": "space station"}}})
	must(s.SaveMovieEnrichment(ctx, e))
	must(s.IndexMovie(ctx, in.movie.ID, false))
	must(s.Reindex(ctx, 0))
	must(s.MarkMovieMissing(ctx, logged(carol.ID, movie(9), 2, 9, nil).Movie.ID, t0))

	// Watchlists, goals, wrap-ups.
	_, err = s.AddToWatchlist(ctx, in.bob.ID, movie(10), t0)
	must(err)
	_, err = s.AddToWatchlist(ctx, in.alice.ID, in.movie, t0)
	must(err)
	_, err = s.CreateGoal(ctx, domain.Goal{ID: uuid.New(), UserID: in.alice.ID, Year: 2026, TargetCount: 52, CreatedAt: t0, UpdatedAt: t0})
	must(err)
	start, end := domain.NewDate(2026, 1, 1), domain.NewDate(2026, 12, 31)
	w, err := s.RequestWrapUp(ctx, domain.WrapUp{ID: uuid.New(), UserID: &in.alice.ID, Status: domain.WrapUpPending,
		StartDate: start, EndDate: end, CreatedAt: t0})
	must(err)
	_, _, err = s.StartWrapUp(ctx, w.ID)
	must(err)
	_, err = s.CompleteWrapUp(ctx, w.ID, json.RawMessage(`{"total": 12}`), t0.Add(time.Minute))
	must(err)
	_, err = s.RequestWrapUp(ctx, domain.WrapUp{ID: uuid.New(), Status: domain.WrapUpPending, StartDate: start, EndDate: end, CreatedAt: t0})
	must(err)

	// An import: a session with rows, one selected and written, and a saved profile.
	is := importer.Session{ID: uuid.New(), UserID: in.bob.ID, Format: "csv", Kind: importer.KindCustom, Target: importer.TargetDiary,
		Columns: []string{"Title", "Rating"}, CreatedAt: t0, ExpiresAt: t0.AddDate(1, 0, 0)}
	must(s.CreateImportSession(ctx, is))
	must(s.AppendImportRows(ctx, is.ID, []importer.Row{{Index: 0, Cells: []string{"Movie 11", "4"}},
		{Index: 1, Cells: []string{"bad \"row", ""}, ReadErr: "bare quote in field"}}))
	must(s.CompleteImportSession(ctx, is.ID, 2))
	mappings := []importer.Mapping{{SourceColumn: "Title", Field: importer.FieldTitle}}
	must(s.SetImportMappings(ctx, is.ID, mappings))
	must(s.SelectImportRows(ctx, is.ID, []int{0}, true, t0.AddDate(1, 0, 0)))
	must(s.WriteImportBatch(ctx, importer.Batch{SessionID: is.ID, UserID: in.bob.ID, Target: importer.TargetDiary, Now: t0,
		Items: []importer.Item{{Index: 0, Movie: movie(11), Review: domain.Review{ID: uuid.New(), UserID: in.bob.ID, Rating: 4,
			WatchedAt: t0, CreatedAt: t0, UpdatedAt: t0}}}}))
	must(s.SaveImportProfile(ctx, importer.Profile{ID: uuid.New(), UserID: in.bob.ID, Name: "Letterboxd", Mappings: mappings, CreatedAt: t0}))

	// Integrations: a webhook token and a pending watch from it.
	must(s.CreateWebhookToken(ctx, domain.WebhookToken{ID: uuid.New(), UserID: in.alice.ID, Provider: domain.SourcePlex,
		Label: ref("living room"), Hash: "webhook-hash", AutoConfirmRating: ref(4), CreatedAt: t0}))
	m12 := movie(12)
	_, err = s.SaveWatch(ctx, domain.WatchEvent{ID: uuid.New(), UserID: in.alice.ID, Source: domain.SourcePlex, Title: m12.Title,
		Year: &m12.ReleaseYear, ExternalID: m12.ExternalID, Status: domain.WatchPending, WatchedAt: t0}, t0.AddDate(0, 0, -1), nil)
	must(err)

	// Federation state: a publication with its deliveries, an inbound activity, a job lease.
	doc, _ := json.Marshal(map[string]string{"id": "https://local.example/activities/1", "type": "Create"})
	must(s.Publish(ctx, domain.Publication{ActivityID: "https://local.example/activities/1", Type: "Create", ActorID: in.alice.ID,
		ObjectID: "https://local.example/reviews/1", Activity: doc, Deliveries: []domain.Delivery{{
			EventID: uuid.NewSHA1(uuid.NameSpaceURL, []byte("delivery-1")),
			Event:   domain.FederationDeliveryRequested{InboxURL: rita + "/inbox", ActivityJSON: doc, SigningActorID: in.alice.ID},
		}}}))
	inbound, _ := json.Marshal(map[string]string{"id": sam + "#like-2", "type": "Like", "actor": sam})
	_, err = s.ReceiveActivity(ctx, domain.ActivityReceived{ActivityID: sam + "#like-2", ActorURL: sam, Activity: inbound})
	must(err)
	_, err = s.AcquireLease(ctx, "wrapup-cleanup", "worker-1", t0, time.Hour)
	must(err)

	in.pending = settleSome(t, s)
	rawRows(t, path)
	return in
}

// settleSome delivers a few outbox rows through the SQLite queue as a worker would: one done
// (its handler's ledger row done), one dead-lettered, one retried (pending again, attempt 1),
// one left claimed (processing) with its ledger claim in progress. It returns the event ids a
// worker would claim now: every row still pending.
func settleSome(t *testing.T, s *sqlite.Store) []string {
	t.Helper()
	ctx := context.Background()
	q := s.Queue(outbox.QueueConfig{Logger: slog.New(slog.DiscardHandler)})
	defer q.Close()
	msgs, err := q.Claim(ctx, 4)
	if err != nil || len(msgs) != 4 {
		t.Fatalf("claim: %d messages, %v", len(msgs), err)
	}
	var keys []delivery.Key
	for _, m := range msgs {
		keys = append(keys, delivery.Key{EventID: m.EventID, Handler: "search"})
	}
	claims, err := s.Ledger().Claim(ctx, time.Now(), time.Hour, keys)
	if err != nil {
		t.Fatal(err)
	}
	mark := func(i int, done bool) []delivery.Mark {
		return []delivery.Mark{{Key: keys[i], Token: claims[i].Token, Done: done}}
	}
	err = q.Settle(ctx, []delivery.Result{
		{Msg: msgs[0], Kind: delivery.Ack, Marks: mark(0, true)},
		{Msg: msgs[1], Kind: delivery.DeadLetter, Err: errors.New("bad payload"), Marks: mark(1, false)},
		{Msg: msgs[2], Kind: delivery.Retry, Err: errors.New("tmdb: 503"), Marks: mark(2, false)},
	})
	if err != nil {
		t.Fatal(err)
	}
	// msgs[3] stays claimed, its ledger claim in progress: a worker stopped mid-delivery.
	rows, err := s.ListEvents(ctx, "pending", "", 10000)
	if err != nil {
		t.Fatal(err)
	}
	var pending []string
	for _, r := range rows {
		pending = append(pending, r.EventID)
	}
	return pending
}

// rawRows writes what no store method leaves behind: a blob row (storage_probe's rows live only
// inside a rolled-back probe), so the blob conversion is covered too.
func rawRows(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`INSERT INTO storage_probe (b) VALUES (x'00ff10')`); err != nil {
		t.Fatal(err)
	}
}

func ref[T any](v T) *T { return &v }

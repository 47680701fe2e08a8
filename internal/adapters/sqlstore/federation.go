package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/outbox"
)

// remoteActorWhere returns the cached actor selected by the rest of a query.
func (s *Store) remoteActorWhere(ctx context.Context, rest string, args ...any) (domain.RemoteActor, error) {
	var row sqlrow.RemoteActor
	if err := s.read.GetContext(ctx, &row, `SELECT `+sqlrow.RemoteActorColumns+` FROM remote_actors `+rest, args...); err != nil {
		return domain.RemoteActor{}, sqlrow.NotFound(err, "Entity not found: remote actor")
	}
	return row.Actor(), nil
}

// RemoteActor returns the cached actor document at url.
func (s *Store) RemoteActor(ctx context.Context, url string) (domain.RemoteActor, error) {
	return s.remoteActorWhere(ctx, `WHERE url = ?`, url)
}

// RemoteActorByKeyID returns the cached actor whose public key has that id (the latest fetched
// when several claim it).
func (s *Store) RemoteActorByKeyID(ctx context.Context, keyID string) (domain.RemoteActor, error) {
	return s.remoteActorWhere(ctx, `WHERE key_id = ? ORDER BY fetched_at DESC, url LIMIT 1`, keyID)
}

// SaveRemoteActor stores or refreshes a fetched actor document (one upsert: concurrent saves of
// one actor leave the last committed).
func (s *Store) SaveRemoteActor(ctx context.Context, a domain.RemoteActor) error {
	return s.write(ctx, func(tx *Tx) error {
		_, err := tx.NamedExecContext(ctx, `INSERT INTO remote_actors (url, inbox, shared_inbox, outbox, handle,
			display_name, key_id, public_key, fetched_at) VALUES (:url, :inbox, NULLIF(:shared_inbox, ''),
			NULLIF(:outbox, ''), NULLIF(:handle, ''), NULLIF(:display_name, ''), :key_id, :public_key, :fetched_at)
			ON CONFLICT (url) DO UPDATE SET inbox = excluded.inbox, shared_inbox = excluded.shared_inbox,
			outbox = excluded.outbox, handle = COALESCE(excluded.handle, remote_actors.handle),
			display_name = excluded.display_name, key_id = excluded.key_id, public_key = excluded.public_key,
			fetched_at = excluded.fetched_at`, sqlrow.RemoteActor{
			URL: a.URL, Inbox: a.Inbox, SharedInbox: a.SharedInbox, Outbox: a.Outbox, Handle: a.Handle,
			DisplayName: a.DisplayName, KeyID: a.KeyID, PublicKeyPEM: a.PublicKeyPEM, FetchedAt: sqlrow.Millis(a.FetchedAt),
		})
		if err != nil {
			return fmt.Errorf("save remote actor: %w", err)
		}
		return nil
	})
}

// HasBlocked reports whether a local user blocked the remote actor at actorURL.
func (s *Store) HasBlocked(ctx context.Context, user uuid.UUID, actorURL string) (bool, error) {
	var blocked bool
	err := s.read.GetContext(ctx, &blocked, `SELECT EXISTS (SELECT 1 FROM blocks WHERE blocker_id = ? AND target_kind = 'remote'
		AND target_id = ?)`, user.String(), actorURL)
	if err != nil {
		return false, fmt.Errorf("read blocks: %w", err)
	}
	return blocked, nil
}

// ReceiveActivity records an inbound activity's id and, in the same transaction, the event that
// has it processed. It reports false, writing nothing, when the id was received before. The
// insert's ON CONFLICT decides between concurrent receipts of one id: the second waits for the
// first's commit and then inserts nothing, so exactly one enqueues the event.
func (s *Store) ReceiveActivity(ctx context.Context, e domain.ActivityReceived) (bool, error) {
	fresh := false
	err := s.write(ctx, func(tx *Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO inbox_activities (activity_id, actor_url, received_at) VALUES (?, ?, ?)
			ON CONFLICT (activity_id) DO NOTHING`, e.ActivityID, e.ActorURL, sqlrow.Millis(s.now()))
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		fresh = true
		return s.enqueue(ctx, tx, e)
	})
	if err != nil {
		return false, fmt.Errorf("receive activity: %w", err)
	}
	return fresh, nil
}

// Publish records an outbound activity (so its id dereferences), the relation it creates, and
// its deliveries (outbox events, or with p.Direct rows of the delivery lane's queue), in one
// transaction. Every write is keyed by a derived id, so publishing the same activity again
// changes nothing (the deliveries' ids are skipped by ON CONFLICT).
//
// The activities of one object are ordered by created_at: on SQLite the single writer and the
// rowid break a tie within a millisecond; where writers run concurrently the transaction holds
// an advisory lock on the object id, reads the object's latest stamp and stamps the new activity
// at least 1 ms after it, so an object's activities are strictly ordered whatever hosts publish
// them.
func (s *Store) Publish(ctx context.Context, p domain.Publication) error {
	err := s.write(ctx, func(tx *Tx) error {
		at := sqlrow.Millis(s.now())
		if p.ObjectID != "" && s.d.LocksRows() {
			if err := s.lock(ctx, tx, "object activities", `SELECT pg_advisory_xact_lock(hashtextextended(?, 0))`,
				"ap_activities "+p.ObjectID); err != nil {
				return err
			}
			var latest sql.NullInt64
			if err := tx.GetContext(ctx, &latest, `SELECT max(created_at) FROM ap_activities WHERE object_id = ?`,
				p.ObjectID); err != nil {
				return err
			}
			if latest.Valid && latest.Int64 >= at {
				at = latest.Int64 + 1
			}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO ap_activities (id, actor_id, type, object_id, activity, created_at)
			VALUES (?, ?, ?, NULLIF(?, ''), ?, ?) ON CONFLICT (id) DO NOTHING`,
			p.ActivityID, p.ActorID.String(), p.Type, p.ObjectID, string(p.Activity), at)
		if err != nil {
			return err
		}
		if r := p.Relation; r != nil {
			if err := saveRelation(ctx, tx, *r); err != nil {
				return err
			}
		}
		if p.Direct {
			return s.queueDeliveries(ctx, tx, p)
		}
		events := make([]domain.Event, len(p.Deliveries))
		for i, d := range p.Deliveries {
			events[i] = outbox.EventWithID{ID: d.EventID, Event: d.Event}
		}
		return s.enqueue(ctx, tx, events...)
	})
	if err != nil {
		return fmt.Errorf("publish %s: %w", p.Type, err)
	}
	return nil
}

// RelationByID returns the relation an activity id recorded.
func (s *Store) RelationByID(ctx context.Context, activityID string) (domain.Relation, error) {
	var row sqlrow.Relation
	err := s.read.GetContext(ctx, &row, `SELECT type, actor, object, activity_id FROM ap_relations WHERE activity_id = ?
		ORDER BY type, actor, object LIMIT 1`, activityID)
	if err != nil {
		return domain.Relation{ActivityID: activityID}, sqlrow.NotFound(err, "Entity not found: relation")
	}
	return domain.Relation(row), nil
}

// PublishedActivity returns an activity we published.
func (s *Store) PublishedActivity(ctx context.Context, id string) ([]byte, error) {
	var doc string
	if err := s.read.GetContext(ctx, &doc, `SELECT activity FROM ap_activities WHERE id = ?`, id); err != nil {
		return nil, sqlrow.NotFound(err, "Entity not found: activity")
	}
	return []byte(doc), nil
}

// FollowerInboxes returns where a local user's activities go: one inbox per distinct server
// among their accepted remote followers (the shared inbox when there is one), leaving out
// followers whose actor is not cached. Ordered byte-wise, as SQLite orders text.
func (s *Store) FollowerInboxes(ctx context.Context, user uuid.UUID) ([]string, error) {
	var inboxes []string
	err := s.read.SelectContext(ctx, &inboxes, `SELECT DISTINCT `+s.d.Binary("COALESCE(a.shared_inbox, a.inbox)")+` FROM follows f
		JOIN remote_actors a ON a.url = f.follower_id
		WHERE f.target_kind = 'local' AND f.target_id = ? AND f.follower_kind = 'remote' AND f.status = 'accepted'
		ORDER BY 1`, user.String())
	if err != nil {
		return nil, fmt.Errorf("follower inboxes: %w", err)
	}
	return inboxes, nil
}

// FollowStatus returns the status of follower's follow of target ("" when there is none).
func (s *Store) FollowStatus(ctx context.Context, follower, target domain.SocialIdentity) (string, error) {
	var status string
	err := s.read.GetContext(ctx, &status, `SELECT status FROM follows WHERE follower_kind = ? AND follower_id = ?
		AND target_kind = ? AND target_id = ?`, follower.Kind, follower.ID, target.Kind, target.ID)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read follow: %w", err)
	}
	return status, nil
}

// FederatedReview returns a local review with its movie (KindNotFound for a missing or remote
// one).
func (s *Store) FederatedReview(ctx context.Context, id uuid.UUID) (domain.Review, domain.Movie, error) {
	r, err := reviewWhere(ctx, s.read, `r.id = ? AND r.remote_actor_url IS NULL`, id.String())
	if err != nil {
		return r, domain.Movie{}, err
	}
	m, err := movieWhere(ctx, s.read, `m.id = ?`, r.MovieID.String())
	return r, m, err
}

// LocalReviewsOfMovie lists the ids of a movie's local reviews, but not the quiet ones (imported
// without federation, never announced), in SQLite's order (the ids' text, byte-wise).
func (s *Store) LocalReviewsOfMovie(ctx context.Context, movie uuid.UUID) ([]uuid.UUID, error) {
	var ids []uuid.UUID
	err := s.read.SelectContext(ctx, &ids, `SELECT id FROM reviews WHERE movie_id = ? AND remote_actor_url IS NULL
		AND NOT quiet ORDER BY `+s.d.Binary("id"), movie.String())
	if err != nil {
		return nil, fmt.Errorf("reviews of movie: %w", err)
	}
	return ids, nil
}

// OutboxReviews returns a page of a user's local reviews, newest first, and their count.
func (s *Store) OutboxReviews(ctx context.Context, user uuid.UUID, offset, limit int) ([]domain.Review, []domain.Movie, int, error) {
	total, err := s.reviewCount(ctx, counted{scope: "user_local", key: user.String()})
	if err != nil {
		return nil, nil, 0, fmt.Errorf("count outbox: %w", err)
	}
	rows := sqlrow.PageOf[sqlrow.ReviewMovie](domain.Page{Limit: limit, Offset: offset}, total)
	err = s.read.SelectContext(ctx, &rows, `SELECT `+sqlrow.ReviewColumns+`, `+sqlrow.MovieColumnsAsMovie+` FROM reviews r
		JOIN movies m ON m.id = r.movie_id WHERE r.user_id = ? AND r.remote_actor_url IS NULL
		ORDER BY r.created_at DESC, r.id DESC LIMIT ? OFFSET ?`, user.String(), limit, offset)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("list outbox: %w", err)
	}
	var (
		reviews []domain.Review
		movies  []domain.Movie
	)
	for _, row := range rows {
		r, err := row.Review.Review()
		if err != nil {
			return nil, nil, 0, fmt.Errorf("list outbox: %w", err)
		}
		m, err := row.Movie.Movie()
		if err != nil {
			return nil, nil, 0, fmt.Errorf("list outbox: %w", err)
		}
		reviews, movies = append(reviews, r), append(movies, m)
	}
	return reviews, movies, total, nil
}

// FollowCollection returns a page of the identities that follow a user (followers) or that it
// follows, accepted only, in the order followed, and their count.
func (s *Store) FollowCollection(ctx context.Context, user uuid.UUID, followers bool, offset, limit int) ([]domain.SocialIdentity, int, error) {
	where := `f.target_kind = 'local' AND f.target_id = ?`
	cols, other := `f.follower_kind AS kind, f.follower_id AS id`, `f.follower_id`
	if !followers {
		where, cols, other = `f.follower_kind = 'local' AND f.follower_id = ?`, `f.target_kind AS kind, f.target_id AS id`, `f.target_id`
	}
	where += ` AND f.status = 'accepted'`
	var total int
	if err := s.read.GetContext(ctx, &total, `SELECT count(*) FROM follows f WHERE `+where, user.String()); err != nil {
		return nil, 0, fmt.Errorf("count follows: %w", err)
	}
	rows := sqlrow.PageOf[sqlrow.Identity](domain.Page{Limit: limit, Offset: offset}, total)
	err := s.read.SelectContext(ctx, &rows, `SELECT `+cols+` FROM follows f WHERE `+where+
		` ORDER BY f.created_at, `+s.d.Binary(other)+` LIMIT ? OFFSET ?`, user.String(), limit, offset)
	if err != nil {
		return nil, 0, fmt.Errorf("list follows: %w", err)
	}
	return sqlrow.CastRows(rows, sqlrow.Identity.Identity), total, nil
}

// NodeStats counts the local users and the local reviews, for NodeInfo.
func (s *Store) NodeStats(ctx context.Context) (users, reviews int, err error) {
	err = s.read.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM users),
		(SELECT COALESCE(sum(n), 0) FROM review_counts WHERE scope = 'local' AND key = '')`).Scan(&users, &reviews)
	if err != nil {
		return 0, 0, fmt.Errorf("node stats: %w", err)
	}
	return users, reviews, nil
}

// LatestActivity returns the latest activity we published about an object (its Create, Update
// or Delete). Publish stamps an object's activities strictly in order; the id breaks a tie
// among rows copied from SQLite.
func (s *Store) LatestActivity(ctx context.Context, objectID string) ([]byte, error) {
	var doc string
	err := s.read.GetContext(ctx, &doc, `SELECT activity FROM ap_activities WHERE object_id = ?
		ORDER BY created_at DESC, `+s.d.TieBreak("ap_activities")+` DESC LIMIT 1`, objectID)
	if err != nil {
		return nil, sqlrow.NotFound(err, "Entity not found: object")
	}
	return []byte(doc), nil
}

// ActivityIDs maps each of objectIDs to the id of the latest activity of type typ we published
// about it; objects without one are absent.
func (s *Store) ActivityIDs(ctx context.Context, typ string, objectIDs []string) (map[string]string, error) {
	out := make(map[string]string, len(objectIDs))
	if len(objectIDs) == 0 {
		return out, nil
	}
	var rows []struct {
		ObjectID string `db:"object_id"`
		ID       string `db:"id"`
	}
	query, args, err := sqlx.In(`SELECT object_id, id FROM ap_activities WHERE type = ? AND object_id IN (?)
		ORDER BY created_at, `+s.d.TieBreak("ap_activities"), typ, objectIDs)
	if err != nil {
		return nil, fmt.Errorf("activity ids: %w", err)
	}
	if err := s.read.SelectContext(ctx, &rows, query, args...); err != nil {
		return nil, fmt.Errorf("activity ids: %w", err)
	}
	for _, r := range rows {
		out[r.ObjectID] = r.ID // the latest wins: rows come oldest first
	}
	return out, nil
}

// PruneFederation deletes what federation no longer needs: the ids of inbound activities
// received before now-inboxKeep (the dedup window; the ids carried from movies-diary, adopted_at
// set, are kept: the original refused a replay of any of them, and so do we), and the published activities older than
// now-activityKeep that nothing dereferences any more: an Update superseded by a later activity
// of its object, the Create and Update of an object since deleted, and Accept, Reject and Undo.
// An object's latest activity, the Creates of live objects and every Follow and Block are kept
// ("later" is a later created_at, or the same one with a later TieBreak: Publish keeps an object's
// stamps strictly increasing where writers run concurrently, and SQLite's one writer keeps rowid
// in insertion order).
func (s *Store) PruneFederation(ctx context.Context, now time.Time, inboxKeep, activityKeep time.Duration) (inbox, activities int64, err error) {
	err = s.writeAlone(ctx, func(tx *Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM inbox_activities WHERE received_at < ? AND adopted_at IS NULL`, sqlrow.Millis(now.Add(-inboxKeep)))
		if err != nil {
			return fmt.Errorf("prune inbox activities: %w", err)
		}
		if inbox, err = res.RowsAffected(); err != nil {
			return err
		}
		// An undone reaction is remembered for as long as its activity could still be a
		// redelivery the inbox would take.
		if _, err := tx.ExecContext(ctx, `DELETE FROM undone_reactions WHERE undone_at < ?`, sqlrow.Millis(now.Add(-inboxKeep))); err != nil {
			return fmt.Errorf("prune undone reactions: %w", err)
		}
		res, err = tx.ExecContext(ctx, `DELETE FROM ap_activities AS a WHERE a.created_at < ? AND (
			a.type IN ('Accept', 'Reject', 'Undo')
			OR (a.type = 'Update' AND EXISTS (SELECT 1 FROM ap_activities n WHERE n.object_id = a.object_id
				AND (n.created_at > a.created_at OR (n.created_at = a.created_at AND `+s.d.TieBreak("n")+` > `+s.d.TieBreak("a")+`))))
			OR (a.type IN ('Create', 'Update') AND EXISTS (SELECT 1 FROM ap_activities d WHERE d.object_id = a.object_id
				AND d.type = 'Delete' AND (d.created_at > a.created_at
				OR (d.created_at = a.created_at AND `+s.d.TieBreak("d")+` > `+s.d.TieBreak("a")+`)))))`,
			sqlrow.Millis(now.Add(-activityKeep)))
		if err != nil {
			return fmt.Errorf("prune published activities: %w", err)
		}
		activities, err = res.RowsAffected()
		return err
	})
	return inbox, activities, err
}

// ActorProfile reads what a local actor document shows besides the account: the profile the user
// edits (name, bio, avatar, banner, alias, fields).
func (s *Store) ActorProfile(ctx context.Context, user uuid.UUID) (domain.ActorProfile, error) {
	var row sqlrow.Profile
	if err := s.read.GetContext(ctx, &row, `SELECT `+sqlrow.ProfileColumns+` FROM users WHERE id = ?`, user.String()); err != nil {
		return domain.ActorProfile{}, sqlrow.NotFound(err, "Entity not found: user")
	}
	p := row.Profile()
	ap := domain.ActorProfile{DisplayName: p.DisplayName, Bio: p.Bio, AvatarKey: p.AvatarKey, BannerKey: p.BannerKey,
		Fields: p.Fields}
	if p.AlsoKnownAs != "" {
		ap.AlsoKnownAs = []string{p.AlsoKnownAs}
	}
	return ap, nil
}

func saveRelation(ctx context.Context, tx *Tx, r domain.Relation) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO ap_relations (type, actor, object, activity_id) VALUES (?, ?, ?, ?)
		ON CONFLICT (type, actor, object) DO UPDATE SET activity_id = excluded.activity_id`,
		r.Type, r.Actor, r.Object, r.ActivityID)
	return err
}

// Relation returns the id of the latest Follow or Block from actor to object ("" for none).
func (s *Store) Relation(ctx context.Context, typ, actor, object string) (string, error) {
	var id string
	err := s.read.GetContext(ctx, &id, `SELECT activity_id FROM ap_relations WHERE type = ? AND actor = ? AND object = ?`,
		typ, actor, object)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read relation: %w", err)
	}
	return id, nil
}

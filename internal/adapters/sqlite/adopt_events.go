package sqlite

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/jmoiron/sqlx"
)

// The original's outbox rows still pending (or stranded in processing) when it stopped are
// delivered by our worker, as the events they are. That is right only where our handlers do
// what the original's worker owed: the engine settles an event no handler takes as done, and
// some of the original's events were effected when they were written. So each of its event
// types has a fate here, decided from its code paths (reference: its event catalogue):
//
//   - delivered: our handlers do what its worker would have (legacyDelivered);
//   - settled as done, saying why: nothing is owed (legacySettled);
//   - anything else (a type its last release did not write) is dead-lettered, saying why.
//
// TestLegacyDeliveredTypesHaveHandlers checks every delivered type against our handlers' types.

// legacyDelivered are the original's event types our worker handles as its worker did.
// FollowAccepted is delivered only when outgoing (a remote actor accepted a local user's
// follow: its outbox is imported); migration 0110 labels the carried rows.
var legacyDelivered = []string{
	"ReviewLogged", "ReviewUpdated", "ReviewDeleted", "MovieDiscovered", "MovieDeleted", "MovieEnrichmentRequested",
	"PersonEnrichmentRequested", "ImageStored", "PosterSynced", "SearchReindexRequested", "WatchlistEntryAdded",
	"WatchlistEntryRemoved", "GoalCreated", "GoalUpdated", "GoalDeleted", "UserUpdated", "UserDeleted", "UserAccountMoved",
	"WrapUpRequested", "FederationDeliveryRequested", "BackfillFollower", "FollowAccepted",
}

// legacyEffected is why a pending social event of the original's is settled: its server sent
// the activities (Follow, Undo, Accept, Reject, Block, Undo Block) when it wrote the event,
// each as a FederationDeliveryRequested row of its own (delivered), and its worker had nothing
// more to do; our handlers would send them a second time.
const legacyEffected = "adopted from movies-diary: its server sent this event's activities when it wrote it " +
	"(their deliveries are rows of their own); not repeated"

// legacyUnconsumed is why an event nothing consumed, in the original or here, is settled.
const legacyUnconsumed = "adopted from movies-diary: nothing consumes this event, there or here"

// legacySettled are the original's event types settled as done when pending, with why. An
// incoming FollowAccepted (a local user accepted a follower) is among them: the Accept went
// out inline, and the follower's backfill is its own BackfillFollower row.
var legacySettled = map[string]string{
	"FollowRequested": legacyEffected, "FollowAccepted": legacyEffected, "FollowRejected": legacyEffected,
	"Unfollowed": legacyEffected, "FollowerRemoved": legacyEffected, "ActorBlocked": legacyEffected,
	"ActorUnblocked": legacyEffected, "WatchEventIngested": legacyUnconsumed, "WrapUpCompleted": legacyUnconsumed,
}

// legacyUnknown is the last_error of a dead-lettered row whose type the original did not write.
const legacyUnknown = "adopted from movies-diary: not an event type of its last release, and nothing here handles it"

// settledEvents counts the original's open rows an adoption settled, per event type and fate.
type settledEvents struct {
	eventType, status, reason string
	rows                      int64
}

// settleLegacyEvents gives every open row of the original's outbox its fate. It runs in the
// conversion's transaction after the migrations (0110 labels FollowAccepted's direction) and
// before the adoption enqueues anything of its own.
func settleLegacyEvents(ctx context.Context, tx *sqlx.Tx) ([]settledEvents, error) {
	const open = `status IN ('pending', 'processing')`
	var out []settledEvents
	types := slices.Sorted(maps.Keys(legacySettled))
	for _, t := range types {
		where := `event_type = ?`
		if t == "FollowAccepted" {
			where += ` AND json_extract(payload, '$.data.direction') IS NOT 'outgoing'`
		}
		res, err := tx.ExecContext(ctx, `UPDATE event_queue SET status = 'done', last_error = ?, claimed_at = NULL
			WHERE `+open+` AND `+where, legacySettled[t], t)
		if err != nil {
			return nil, fmt.Errorf("settle the original's %s events: %w", t, err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return nil, err
		} else if n > 0 {
			out = append(out, settledEvents{t, "done", legacySettled[t], n})
		}
	}
	known, err := json.Marshal(append(slices.Clone(legacyDelivered), types...))
	if err != nil {
		return nil, err
	}
	const unknown = `event_type NOT IN (SELECT value FROM json_each(?))`
	var rows []struct {
		Type string `db:"event_type"`
		N    int64  `db:"n"`
	}
	if err := tx.SelectContext(ctx, &rows, `SELECT event_type, count(*) AS n FROM event_queue WHERE `+open+` AND `+unknown+`
		GROUP BY event_type ORDER BY event_type`, string(known)); err != nil {
		return nil, fmt.Errorf("read the original's open events: %w", err)
	}
	if len(rows) == 0 {
		return out, nil
	}
	if _, err := tx.ExecContext(ctx, `UPDATE event_queue SET status = 'dead_lettered', last_error = ?, claimed_at = NULL
		WHERE `+open+` AND `+unknown, legacyUnknown, string(known)); err != nil {
		return nil, fmt.Errorf("dead-letter the original's unknown events: %w", err)
	}
	for _, r := range rows {
		out = append(out, settledEvents{r.Type, "dead_lettered", legacyUnknown, r.N})
	}
	return out, nil
}

package postgres

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/federation"
)

// The conversion's steps that SQL does not say well: they run in its transaction, in Go.

// carryOutbox copies the original's outbox rows, on a deployment on the database bus, into the
// event_queue our migration 0100 creates, in its shape (text times); 0101 converts them as it
// converts any. On NATS there is no outbox to copy.
func carryOutbox(ctx context.Context, tx *sqlx.Tx) (int64, error) {
	var queue bool
	if err := tx.QueryRowContext(ctx, `SELECT to_regclass('legacy_event_queue') IS NOT NULL`).Scan(&queue); err != nil || !queue {
		return 0, err
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO event_queue (id, event_type, payload, status, attempts, created_at,
			next_attempt_at, last_error) OVERRIDING SYSTEM VALUE
		SELECT id, event_type, payload, status, attempts, `+ts("created_at")+`, `+ts("next_attempt_at")+`, last_error
		FROM legacy_event_queue`)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, err
	}
	if _, err := tx.ExecContext(ctx, `SELECT setval(pg_get_serial_sequence('event_queue', 'id'), max(id))
		FROM event_queue HAVING count(*) > 0`); err != nil {
		return 0, err
	}
	return n, nil
}

// rekeyRemoteReviews gives every carried remote review the id our inbound path gives its
// object id (federation.RemoteReviewID): the original's were random, so an Update from its
// author would not find the row. Nothing references the reviews yet.
func rekeyRemoteReviews(ctx context.Context, tx *sqlx.Tx) (int64, error) {
	var rows []struct {
		ID   string `db:"id"`
		APID string `db:"ap_id"`
	}
	if err := tx.SelectContext(ctx, &rows, `SELECT id, ap_id FROM reviews
		WHERE remote_actor_url IS NOT NULL AND ap_id IS NOT NULL`); err != nil {
		return 0, err
	}
	for _, r := range rows {
		if _, err := tx.ExecContext(ctx, `UPDATE reviews SET id = $1 WHERE id = $2`,
			federation.RemoteReviewID(r.APID).String(), r.ID); err != nil {
			return 0, err
		}
	}
	return int64(len(rows)), nil
}

// rekeyWatches gives the watch events carried with a title-based dedup key the key our code
// computes (domain.WatchEvent.DedupKey: Unicode case folding and trimming, which SQL's lower()
// and trim() do not promise), then drops the original's table.
func rekeyWatches(ctx context.Context, tx *sqlx.Tx) (int64, error) {
	var rows []struct {
		ID         string           `db:"id"`
		Title      string           `db:"title"`
		Year       sql.Null[int]    `db:"year"`
		ExternalID sql.Null[string] `db:"external_id"`
		Key        string           `db:"dedup_key"`
	}
	if err := tx.SelectContext(ctx, &rows, `SELECT e.id, e.title, e.year, e.external_id, e.dedup_key FROM watch_events e
		JOIN legacy_watch_events w ON w.id = e.id WHERE e.external_id IS NULL`); err != nil {
		return 0, err
	}
	var changed int64
	for _, r := range rows {
		key := domain.WatchEvent{Title: r.Title, Year: sqlrow.Ptr(r.Year), ExternalID: sqlrow.Ptr(r.ExternalID)}.DedupKey()
		if key == r.Key {
			continue
		}
		if _, err := tx.ExecContext(ctx, `UPDATE watch_events SET dedup_key = $1 WHERE id = $2`, key, r.ID); err != nil {
			return 0, err
		}
		changed++
	}
	if _, err := tx.ExecContext(ctx, `DROP TABLE legacy_watch_events`); err != nil {
		return 0, err
	}
	return changed, nil
}

// legacyFields are the original's mapping fields (serde's names) and ours.
var legacyFields = map[string]string{
	"Title": "title", "ReleaseYear": "release_year", "Director": "director", "Rating": "rating",
	"WatchedAt": "watched_at", "Comment": "comment", "ExternalMetadataId": "external_metadata_id",
}

// carryImportProfiles carries the original's import profiles as SQLite's migration 0187 does:
// its serde mappings ([{"source_column": …, "domain_field": "Rating", "transform":
// {"RatingScale": 0.5}}, …]) become ours (domain_field in snake case, rating_scale and
// date_format members, left out when unset); an element not in its shape is left out, and a
// profile whose mappings are not a JSON array is kept with none. Then the original's table is
// dropped.
func carryImportProfiles(ctx context.Context, tx *sqlx.Tx) (int64, error) {
	var rows []struct {
		ID       string `db:"id"`
		UserID   string `db:"user_id"`
		Name     string `db:"name"`
		Mappings string `db:"field_mappings"`
		Created  string `db:"created"`
	}
	if err := tx.SelectContext(ctx, &rows, `SELECT id, user_id, name, field_mappings, `+tsOrNow("created_at")+` AS created
		FROM legacy_import_profiles WHERE user_id IN (SELECT id FROM users)`); err != nil {
		return 0, err
	}
	var n int64
	for _, r := range rows {
		res, err := tx.ExecContext(ctx, `INSERT INTO import_profiles (id, user_id, name, mappings, created_at)
			VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`, r.ID, r.UserID, r.Name, convertMappings(r.Mappings), r.Created)
		if err != nil {
			return 0, err
		}
		c, _ := res.RowsAffected()
		n += c
	}
	if _, err := tx.ExecContext(ctx, `DROP TABLE legacy_import_profiles`); err != nil {
		return 0, err
	}
	return n, nil
}

// convertMappings is one profile's mappings in our shape (JSON), "[]" when the original's are
// not a JSON array.
func convertMappings(original string) string {
	dec := json.NewDecoder(bytes.NewReader([]byte(original)))
	dec.UseNumber() // a scale keeps its spelling (2.0)
	var elems []any
	if err := dec.Decode(&elems); err != nil || dec.More() {
		return "[]"
	}
	type mapping struct {
		SourceColumn string      `json:"source_column"`
		Field        string      `json:"domain_field"`
		RatingScale  json.Number `json:"rating_scale,omitempty"`
		DateFormat   string      `json:"date_format,omitempty"`
	}
	out := []mapping{}
	for _, e := range elems {
		m, ok := e.(map[string]any)
		if !ok {
			continue
		}
		col, ok := m["source_column"].(string)
		field, known := legacyFields[fmt.Sprint(m["domain_field"])]
		if !ok || !known {
			continue
		}
		mp := mapping{SourceColumn: col, Field: field}
		if t, ok := m["transform"].(map[string]any); ok {
			if s, ok := t["RatingScale"].(json.Number); ok {
				mp.RatingScale = s
			}
			if f, ok := t["DateFormat"].(string); ok {
				mp.DateFormat = f
			}
		}
		out = append(out, mp)
	}
	b, _ := json.Marshal(out)
	return string(b)
}

// markAdoptedHistory marks the carried history adopted now (what SQLite's migration 0300 does
// from the list the adoption leaves it): the federation pruner keeps carried inbound ids for
// good, and the wrap-up reaper counts a carried wrap-up's day and week from the adoption. Every
// row of both tables is a carried one at this point.
func markAdoptedHistory(ctx context.Context, tx *sqlx.Tx) (int64, error) {
	at := time.Now()
	a, err := tx.ExecContext(ctx, `UPDATE inbox_activities SET adopted_at = $1`, at.UnixMilli())
	if err != nil {
		return 0, err
	}
	w, err := tx.ExecContext(ctx, `UPDATE wrapups SET adopted_at = $1`, at.UTC().Format("2006-01-02T15:04:05.000Z"))
	if err != nil {
		return 0, err
	}
	na, _ := a.RowsAffected()
	nw, _ := w.RowsAffected()
	return na + nw, nil
}

// settledEvents counts the original's open rows an adoption settled, per event type and fate.
type settledEvents struct {
	eventType, status, reason string
	rows                      int64
}

// settleLegacyEvents gives every open row of the original's outbox its fate
// (domain.LegacyEventFate). It first labels the original's FollowAccepted rows with their
// direction, as SQLite's migration 0110 does: outgoing when the owner follows the remote
// requester and the requester does not follow the owner, incoming otherwise (the safe side).
func settleLegacyEvents(ctx context.Context, tx *sqlx.Tx) ([]settledEvents, error) {
	var accepted []struct {
		ID      int64  `db:"id"`
		Status  string `db:"status"`
		Payload string `db:"payload"`
	}
	if err := tx.SelectContext(ctx, &accepted, `SELECT id, status, payload FROM event_queue
		WHERE event_type = 'FollowAccepted' ORDER BY id`); err != nil {
		return nil, fmt.Errorf("read the original's FollowAccepted events: %w", err)
	}
	outgoing := []int64{} // not nil: NOT (id = ANY(NULL)) would match nothing
	for _, a := range accepted {
		var p struct {
			Data map[string]any `json:"data"`
		}
		if json.Unmarshal([]byte(a.Payload), &p) != nil || p.Data == nil {
			continue
		}
		dir, labelled := p.Data["direction"].(string)
		if !labelled {
			dir = "incoming"
			owner, _ := p.Data["owner_id"].(string)
			requester, _ := p.Data["requester_id"].(string)
			if p.Data["requester_kind"] == "remote" {
				var out bool
				if err := tx.QueryRowContext(ctx, `SELECT
					EXISTS (SELECT 1 FROM follows WHERE follower_kind = 'local' AND follower_id = $1
						AND target_kind = 'remote' AND target_id = $2)
					AND NOT EXISTS (SELECT 1 FROM follows WHERE follower_kind = 'remote' AND follower_id = $2
						AND target_kind = 'local' AND target_id = $1)`, owner, requester).Scan(&out); err != nil {
					return nil, err
				}
				if out {
					dir = "outgoing"
				}
			}
			if _, err := tx.ExecContext(ctx, `UPDATE event_queue SET payload = jsonb_set(payload::jsonb, '{data,direction}',
				to_jsonb($1::text))::text WHERE id = $2`, dir, a.ID); err != nil {
				return nil, err
			}
		}
		if dir == "outgoing" {
			outgoing = append(outgoing, a.ID)
		}
	}

	const open = `status IN ('pending', 'processing')`
	settled := domain.LegacySettledTypes()
	types := slices.Sorted(maps.Keys(settled))
	var out []settledEvents
	for _, t := range types {
		res, err := tx.ExecContext(ctx, `UPDATE event_queue SET status = 'done', last_error = $1, claimed_at = NULL
			WHERE `+open+` AND event_type = $2 AND NOT (id = ANY($3))`, settled[t], t, outgoing)
		if err != nil {
			return nil, fmt.Errorf("settle the original's %s events: %w", t, err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return nil, err
		} else if n > 0 {
			out = append(out, settledEvents{t, "done", settled[t], n})
		}
	}
	known := append(domain.LegacyDeliveredTypes(), types...)
	var rows []struct {
		Type string `db:"event_type"`
		N    int64  `db:"n"`
	}
	if err := tx.SelectContext(ctx, &rows, `SELECT event_type, count(*) AS n FROM event_queue
		WHERE `+open+` AND event_type <> ALL($1) GROUP BY event_type ORDER BY event_type`, known); err != nil {
		return nil, fmt.Errorf("read the original's open events: %w", err)
	}
	if len(rows) == 0 {
		return out, nil
	}
	if _, err := tx.ExecContext(ctx, `UPDATE event_queue SET status = 'dead_lettered', last_error = $1, claimed_at = NULL
		WHERE `+open+` AND event_type <> ALL($2)`, domain.LegacyUnknown, known); err != nil {
		return nil, fmt.Errorf("dead-letter the original's unknown events: %w", err)
	}
	for _, r := range rows {
		out = append(out, settledEvents{r.Type, "dead_lettered", domain.LegacyUnknown, r.N})
	}
	return out, nil
}

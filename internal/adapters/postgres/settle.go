package postgres

import (
	"context"

	"moviesdiary/internal/delivery"
)

// settleAckedSQL settles a batch of acks in one statement: the ledger marks land (conditioned on
// their tokens, as the transaction's settle does), and each row whose every mark landed, or
// whose handler's row was already done before (another delivery finished it), is done. The
// rows' update is the Ack of outbox.Lifecycle.Settle: not conditioned on the claim, from
// pending or processing. A data-modifying CTE runs to completion whether or not it is read; the
// ids returned are the rows counted complete, whatever their update found.
const settleAckedSQL = `WITH m AS (
		SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[]) AS m (event_id, handler, started_at)),
	landed AS (
		UPDATE processed_events p SET status = 'done', processed_at = $4
		FROM m WHERE p.event_id = m.event_id AND p.handler = m.handler AND p.started_at = m.started_at
			AND p.status = 'in_progress'
		RETURNING p.event_id, p.handler),
	r AS (
		SELECT * FROM unnest($5::bigint[], $6::text[]) AS r (id, event_id)),
	complete AS (
		SELECT r.id FROM r WHERE NOT EXISTS (
			SELECT 1 FROM m WHERE m.event_id = r.event_id
				AND NOT EXISTS (SELECT 1 FROM landed l WHERE l.event_id = m.event_id AND l.handler = m.handler)
				AND NOT EXISTS (SELECT 1 FROM processed_events p WHERE p.event_id = m.event_id AND p.handler = m.handler
					AND p.status = 'done'))),
	acked AS (
		UPDATE event_queue e SET status = 'done', claimed_at = NULL, last_error = NULL
		FROM complete c WHERE e.id = c.id AND e.status IN ('pending', 'processing'))
	SELECT id FROM complete`

// SettleAckedAlone is sqlstore.AloneClaimer's one-statement settle of acked rows: a round trip
// instead of BEGIN, the ledger marks, the rows, COMMIT (issue 34). It commits durably.
func (cl claims) SettleAckedAlone(ctx context.Context, now int64, marks []delivery.Mark, rows map[int64]string) ([]int64, error) {
	events, handlers, tokens := make([]string, len(marks)), make([]string, len(marks)), make([]int64, len(marks))
	for i, m := range marks {
		events[i], handlers[i], tokens[i] = m.EventID, m.Handler, m.Token
	}
	ids, rowEvents := make([]int64, 0, len(rows)), make([]string, 0, len(rows))
	for id, e := range rows {
		ids, rowEvents = append(ids, id), append(rowEvents, e)
	}
	var complete []int64
	err := cl.db.SelectContext(ctx, &complete, settleAckedSQL, events, handlers, tokens, now, ids, rowEvents)
	return complete, err
}

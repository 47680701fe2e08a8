package sqlite

// RowID is the claimed row's event_queue id: the delivery log names a foreign writer's row (which
// has no event id) by it.
func (r rowRef) RowID() int64 { return r.id }

var _ interface{ RowID() int64 } = rowRef{}

// rowFields are the fields naming a row in a delivery log line: its event id, and for a foreign
// writer's row, which has none, its row id (what `worker events show <row id>` finds it by), as
// the delivery engine's lines do.
func rowFields(eventID string, row int64) []any {
	if eventID == "" {
		return []any{"event_id", eventID, "row_id", row}
	}
	return []any{"event_id", eventID}
}

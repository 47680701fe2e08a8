package sqlite

// RowID is the claimed row's event_queue id: the delivery log names a foreign writer's row (which
// has no event id) by it.
func (r rowRef) RowID() int64 { return r.id }

var _ interface{ RowID() int64 } = rowRef{}

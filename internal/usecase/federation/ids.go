package federation

import (
	"strconv"
	"strings"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// idSpace is the UUIDv5 namespace of the ids this package derives. It is fixed: changing it
// changes every derived id, and a replay after an upgrade would then send new ids.
var idSpace = uuid.MustParse("8a0c58f4-3bd4-5b43-9b6e-6b0f1a7c2d11")

// ActivityID is the id of the activity of kind ("Create", "Update", "Follow"...) that the event
// eventID causes: {base}/activities/{UUIDv5(eventID/kind)}. The same event always gives the
// same id, so a replay re-sends the activity instead of minting a new one.
func ActivityID(base, eventID, kind string) string {
	return strings.TrimRight(base, "/") + "/activities/" + uuid.NewSHA1(idSpace, []byte(eventID+"/"+kind)).String()
}

// DeliveryID is the outbox event id of the delivery of activityID to inbox.
func DeliveryID(activityID, inbox string) uuid.UUID {
	return uuid.NewSHA1(idSpace, []byte(activityID+" "+inbox))
}

// RemoteUserID is the user id a remote actor's reviews carry: UUIDv5(URL namespace, actor URL).
func RemoteUserID(actorURL string) uuid.UUID {
	return uuid.NewSHA1(uuid.NameSpaceURL, []byte(actorURL))
}

// RowKey is what a handler passes as the event id of an outbox row that has none (a foreign
// writer's row): its row id, stable across replays of that row. Two such rows with equal
// payloads (two identical edits) are then two events, where a payload hash made them one and
// sent a single Update.
func RowKey(row int64) string { return "row/" + strconv.FormatInt(row, 10) }

// Key is the event id a handler passes for an outbox event: its event id, or RowKey of its row
// when it has none (a foreign writer's row) and the source knows the row (row > 0); empty when
// neither is known, and eventKey then falls back to a hash of the payload.
func Key(eventID string, row int64) string {
	if eventID == "" && row > 0 {
		return RowKey(row)
	}
	return eventID
}

// eventKey is what activity ids derive from: the event id (or RowKey of an id-less row); with
// neither, a hash of the payload, so those ids still repeat on a replay.
func eventKey(eventID string, e domain.Event) string {
	if eventID != "" {
		return eventID
	}
	payload, _ := domain.Encode(e)
	return uuid.NewSHA1(idSpace, payload).String()
}

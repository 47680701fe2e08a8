package domain

import (
	"encoding/json"

	"github.com/google/uuid"
)

// ActivityReceived is an inbound ActivityPub activity that an inbox verified and stored once by
// its id; the worker processes it (follows, remote reviews, deletes) asynchronously.
type ActivityReceived struct {
	ActivityID string          `json:"activity_id"`
	ActorURL   string          `json:"actor_url"` // ActorURL is the signer, checked against the activity's actor.
	Activity   json.RawMessage `json:"activity"`
	// RecipientID is the local user whose inbox received it; nil for the shared inbox.
	RecipientID *uuid.UUID `json:"recipient_id,omitempty"`
}

// EventType returns "ActivityReceived".
func (ActivityReceived) EventType() string { return "ActivityReceived" }

// Validate checks the ids, the actor and that the activity is a JSON object.
func (e ActivityReceived) Validate() error {
	return firstErr(
		needText("activity_id", e.ActivityID),
		needText("actor_url", e.ActorURL),
		needObject("activity", e.Activity),
		needOptID("recipient_id", e.RecipientID),
	)
}

package domain

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/google/uuid"
)

// FederationDeliveryRequested asks the worker to POST one signed ActivityPub activity to one
// remote inbox; every federation broadcast emits one per follower inbox.
type FederationDeliveryRequested struct {
	InboxURL       string          `json:"inbox_url"`
	ActivityJSON   json.RawMessage `json:"activity_json"`    // ActivityJSON is the full activity, embedded as JSON.
	SigningActorID uuid.UUID       `json:"signing_actor_id"` // SigningActorID is the local user whose key signs the request.
}

// EventType returns "FederationDeliveryRequested".
func (FederationDeliveryRequested) EventType() string { return "FederationDeliveryRequested" }

// Validate checks the inbox URL, that the activity is a JSON object and the signing actor id.
func (e FederationDeliveryRequested) Validate() error {
	return firstErr(
		needText("inbox_url", e.InboxURL),
		needObject("activity_json", e.ActivityJSON),
		needID("signing_actor_id", e.SigningActorID),
	)
}

// needObject rejects raw JSON that is missing or not an object.
func needObject(field string, raw json.RawMessage) error {
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		return errors.New(field + ": must be a JSON object")
	}
	return nil
}

package domain

import "github.com/google/uuid"

// UserUpdated means a user changed their profile; the profile use cases emit it and federation
// broadcasts an Update of the user's actor.
type UserUpdated struct {
	UserID uuid.UUID `json:"user_id"`
}

// EventType returns "UserUpdated".
func (UserUpdated) EventType() string { return "UserUpdated" }

// Validate checks the user id.
func (e UserUpdated) Validate() error { return needID("user_id", e.UserID) }

// UserDeleted means a user deleted their account; the delete-account use case emits it and
// federation sends a Delete of the actor to followers.
type UserDeleted struct {
	UserID uuid.UUID `json:"user_id"`
}

// EventType returns "UserDeleted".
func (UserDeleted) EventType() string { return "UserDeleted" }

// Validate checks the user id.
func (e UserDeleted) Validate() error { return needID("user_id", e.UserID) }

// UserAccountMoved means a user's also_known_as alias changed; the profile update emits it and
// federation broadcasts a Move to the new actor.
type UserAccountMoved struct {
	UserID      uuid.UUID `json:"user_id"`
	NewActorURL string    `json:"new_actor_url"`
}

// EventType returns "UserAccountMoved".
func (UserAccountMoved) EventType() string { return "UserAccountMoved" }

// Validate checks the user id and that the new actor URL is not empty.
func (e UserAccountMoved) Validate() error {
	return firstErr(needID("user_id", e.UserID), needText("new_actor_url", e.NewActorURL))
}

// WatchEventIngested means a media-server webhook (Jellyfin, Plex) reported a watch that was saved
// to the user's watch queue; the ingest use case emits it. No consumer.
type WatchEventIngested struct {
	UserID uuid.UUID `json:"user_id"`
	Title  string    `json:"title"`  // Title is the title as the media server reported it.
	Source string    `json:"source"` // Source names the media server.
}

// EventType returns "WatchEventIngested".
func (WatchEventIngested) EventType() string { return "WatchEventIngested" }

// Validate checks the user id.
func (e WatchEventIngested) Validate() error { return needID("user_id", e.UserID) }

// GoalCreated means a user set a yearly viewing goal; the goals use case emits it and federation
// broadcasts it as a Create.
type GoalCreated struct {
	GoalID      uuid.UUID `json:"goal_id"`
	UserID      uuid.UUID `json:"user_id"`
	Year        uint16    `json:"year"`
	TargetCount uint32    `json:"target_count"` // TargetCount is how many movies the user aims to watch.
}

// EventType returns "GoalCreated".
func (GoalCreated) EventType() string { return "GoalCreated" }

// Validate checks the ids.
func (e GoalCreated) Validate() error {
	return firstErr(needID("goal_id", e.GoalID), needID("user_id", e.UserID))
}

// GoalUpdated means a user changed a yearly goal; the goals use case emits it and federation
// broadcasts it as an Update.
type GoalUpdated struct {
	GoalID      uuid.UUID `json:"goal_id"`
	UserID      uuid.UUID `json:"user_id"`
	Year        uint16    `json:"year"`
	TargetCount uint32    `json:"target_count"` // TargetCount is how many movies the user aims to watch.
}

// EventType returns "GoalUpdated".
func (GoalUpdated) EventType() string { return "GoalUpdated" }

// Validate checks the ids.
func (e GoalUpdated) Validate() error {
	return firstErr(needID("goal_id", e.GoalID), needID("user_id", e.UserID))
}

// GoalDeleted means a user deleted a yearly goal; the goals use case emits it and federation sends
// a Delete of the goal's Tombstone.
type GoalDeleted struct {
	GoalID uuid.UUID `json:"goal_id"`
	UserID uuid.UUID `json:"user_id"`
	Year   uint16    `json:"year"`
}

// EventType returns "GoalDeleted".
func (GoalDeleted) EventType() string { return "GoalDeleted" }

// Validate checks the ids.
func (e GoalDeleted) Validate() error {
	return firstErr(needID("goal_id", e.GoalID), needID("user_id", e.UserID))
}

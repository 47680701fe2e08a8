package domain

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/google/uuid"
)

// variants holds a zero value of every event; it is the single list the registry, EventTypes and
// the tests are built from.
var variants = []Event{
	ReviewLogged{}, ReviewUpdated{}, ReviewDeleted{},
	MovieDiscovered{}, MovieDeleted{}, MovieEnrichmentRequested{}, MovieResolutionRequested{}, MoviesMerged{}, PosterSynced{},
	MovieImagesRequested{}, ImageStored{},
	SearchReindexRequested{}, PersonEnrichmentRequested{},
	WatchlistEntryAdded{}, WatchlistEntryRemoved{},
	FollowRequested{}, FollowAccepted{}, FollowRejected{}, Unfollowed{}, FollowerRemoved{},
	ActorBlocked{}, ActorUnblocked{}, BackfillFollower{},
	UserUpdated{}, UserDeleted{}, UserAccountMoved{}, WatchEventIngested{},
	GoalCreated{}, GoalUpdated{}, GoalDeleted{},
	WrapUpRequested{}, WrapUpCompleted{},
	FederationDeliveryRequested{}, ActivityReceived{},
	PasswordResetRequested{}, EmailConfirmationRequested{}, UserRegistered{},
}

// registry maps an event type name to the Go type of its variant.
var registry = func() map[string]reflect.Type {
	m := make(map[string]reflect.Type, len(variants))
	for _, v := range variants {
		if _, dup := m[v.EventType()]; dup {
			panic("domain: duplicate event type " + v.EventType())
		}
		m[v.EventType()] = reflect.TypeOf(v)
	}
	return m
}()

// EventTypes returns the names of all event variants, sorted.
func EventTypes() []string {
	names := make([]string, 0, len(registry))
	for name := range registry {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// newEvent returns a pointer to a zero value of the variant named typ, ready for json.Unmarshal.
func newEvent(typ string) (Event, bool) {
	t, ok := registry[typ]
	if !ok {
		return nil, false
	}
	return reflect.New(t).Interface().(Event), true
}

// derefEvent turns the pointer made by newEvent back into the variant's value type.
func derefEvent(e Event) Event {
	v := reflect.ValueOf(e)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return e
	}
	return v.Elem().Interface().(Event)
}

// firstErr returns the first non-nil error, so Validate reports one problem at a time.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// needID rejects a missing or nil UUID.
func needID(field string, id uuid.UUID) error {
	if id == uuid.Nil {
		return fmt.Errorf("%s: missing or nil UUID", field)
	}
	return nil
}

// needOptID rejects a present but nil UUID.
func needOptID(field string, id *uuid.UUID) error {
	if id == nil {
		return nil
	}
	return needID(field, *id)
}

// needText rejects an empty or blank string.
func needText(field, s string) error {
	if strings.TrimSpace(s) == "" {
		return fmt.Errorf("%s: must not be empty", field)
	}
	return nil
}

// needOptText rejects a present but empty or blank string.
func needOptText(field string, s *string) error {
	if s == nil {
		return nil
	}
	return needText(field, *s)
}

// needTime rejects a missing timestamp.
func needTime(field string, t UnixTime) error {
	if t.IsZero() {
		return fmt.Errorf("%s: missing timestamp", field)
	}
	return nil
}

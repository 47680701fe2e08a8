package domain

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Event is a fact recorded in the outbox in the same transaction as the change that caused it.
// EventType is the variant name (e.g. "ReviewLogged"); it fills event_queue.event_type and the
// "type" key of the payload.
type Event interface {
	EventType() string
}

// Validator is implemented by events whose fields carry rules beyond their JSON types; Decode
// calls it so a payload that breaks them is rejected as permanent.
type Validator interface {
	Validate() error
}

// envelope is the wire shape of a payload, kept from the original system so rows written by it
// (or by a foreign writer) still decode: {"type": "<EventType>", "data": {...}}.
type envelope struct {
	Type string          `json:"type"`
	Data json.RawMessage `json:"data,omitempty"`
}

// Encode returns the payload stored in event_queue.payload and published on the bus.
func Encode(e Event) ([]byte, error) {
	typ, err := json.Marshal(e.EventType())
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", e.EventType(), err)
	}
	// The envelope is written by hand: marshalling it would scan the data a second time, and
	// this runs inside every write transaction.
	out := append([]byte(`{"type":`), typ...)
	if _, unit := e.(unitEvent); !unit {
		data, err := json.Marshal(e)
		if err != nil {
			return nil, fmt.Errorf("encode %s: %w", e.EventType(), err)
		}
		out = append(append(out, `,"data":`...), data...)
	}
	return append(out, '}'), nil
}

// Decode parses a payload. eventType is the event_type column (or bus subject) it came with; an
// empty eventType accepts whatever the payload says. Every failure is permanent: the same bytes
// will never decode.
func Decode(eventType string, payload []byte) (Event, error) {
	if eventType != "" {
		if _, ok := newEvent(eventType); !ok {
			return nil, Permanent(fmt.Errorf("unknown event type %q", eventType))
		}
	}
	var env envelope
	if err := json.Unmarshal(payload, &env); err != nil {
		return nil, Permanent(fmt.Errorf("decode payload: %w", err))
	}
	if env.Type == "" {
		return nil, Permanent(fmt.Errorf("decode payload: missing \"type\""))
	}
	if eventType != "" && env.Type != eventType {
		return nil, Permanent(fmt.Errorf("decode payload: event_type %q but payload type %q", eventType, env.Type))
	}
	e, ok := newEvent(env.Type)
	if !ok {
		return nil, Permanent(fmt.Errorf("unknown event type %q", env.Type))
	}
	if _, unit := e.(unitEvent); !unit {
		if len(env.Data) == 0 || bytes.Equal(env.Data, []byte("null")) {
			return nil, Permanent(fmt.Errorf("decode %s: missing \"data\"", env.Type))
		}
		if err := json.Unmarshal(env.Data, e); err != nil {
			return nil, Permanent(fmt.Errorf("decode %s: %w", env.Type, err))
		}
	}
	if v, ok := e.(Validator); ok {
		if err := v.Validate(); err != nil {
			return nil, Permanent(fmt.Errorf("decode %s: %w", env.Type, err))
		}
	}
	return derefEvent(e), nil
}

// unitEvent marks events without fields; they encode with no "data" key.
type unitEvent interface {
	Event
	unit()
}

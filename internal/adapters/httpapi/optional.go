package httpapi

import (
	"bytes"
	"encoding/json"
)

// optional is a JSON field that tells absent (Set false) from null (Null true) from a value, so
// a PATCH can leave, clear or change a field.
type optional[T any] struct {
	Set   bool
	Null  bool
	Value T
}

// UnmarshalJSON records that the field was present, and whether it was null.
func (o *optional[T]) UnmarshalJSON(b []byte) error {
	o.Set = true
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		o.Null = true
		return nil
	}
	return json.Unmarshal(b, &o.Value)
}

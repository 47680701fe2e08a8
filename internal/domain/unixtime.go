package domain

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"
)

// UnixTime is an instant carried in event payloads as whole Unix seconds in UTC, the encoding of
// watched_at and added_at in the original system; sub-second precision is dropped.
type UnixTime struct{ t time.Time }

// NewUnixTime returns t truncated to the second and moved to UTC, as it will read back after a
// round trip through a payload.
func NewUnixTime(t time.Time) UnixTime { return UnixFrom(t.Unix()) }

// UnixFrom returns the UnixTime sec seconds after the Unix epoch.
func UnixFrom(sec int64) UnixTime { return UnixTime{t: time.Unix(sec, 0).UTC()} }

// Time returns the instant as a UTC time.Time.
func (t UnixTime) Time() time.Time { return t.t }

// IsZero reports whether t is the zero value, which is what a missing or null field decodes to.
func (t UnixTime) IsZero() bool { return t.t.IsZero() }

// String formats t as RFC 3339 in UTC.
func (t UnixTime) String() string { return t.t.Format(time.RFC3339) }

// MarshalJSON encodes t as an integer number of Unix seconds.
func (t UnixTime) MarshalJSON() ([]byte, error) {
	return strconv.AppendInt(nil, t.t.Unix(), 10), nil
}

// UnmarshalJSON decodes an integer number of Unix seconds; null leaves t unchanged.
func (t *UnixTime) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		return nil
	}
	var sec int64
	if err := json.Unmarshal(b, &sec); err != nil {
		return err
	}
	*t = UnixFrom(sec)
	return nil
}

package integration

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"moviesdiary/internal/domain"
)

// Report is a finished movie as a media server described it, before it is queued.
type Report struct {
	Title string
	Year  *int
	// ExternalID is tmdb:N (preferred, as the original did) or tt…, or empty.
	ExternalID string
}

// title is a reported title as the watch queue keeps it: without the control characters the
// text rule refuses (domain.StripControl: a media server's title is kept, not refused, since the
// watch would be lost for a byte the user cannot fix), trimmed; empty when nothing is left.
func title(s string) string { return strings.TrimSpace(domain.StripControl(s, false)) }

// malformed answers a body that is not the provider's JSON.
func malformed(provider string, err error) error {
	return domain.Invalid("malformed %s payload: %v", provider, err)
}

// externalID picks the id to name the movie by: TMDb first, else IMDb; ids that are not of
// their provider's form are ignored.
func externalID(tmdb, imdb string) string {
	if t := strings.TrimSpace(tmdb); t != "" {
		if id, err := domain.NormalizeExternalID("tmdb:" + t); err == nil {
			return id
		}
	}
	if id, err := domain.NormalizeExternalID(imdb); err == nil {
		return id
	}
	return ""
}

// flexBool is a JSON boolean that a hand-written template may also send as a string ("True").
type flexBool bool

func (b *flexBool) UnmarshalJSON(data []byte) error {
	data = bytes.Trim(data, `"`)
	if len(data) == 0 || string(data) == "null" {
		*b = false
		return nil
	}
	v, err := strconv.ParseBool(strings.ToLower(string(data)))
	if err != nil {
		return err
	}
	*b = flexBool(v)
	return nil
}

// flexInt is a JSON integer that may also come as a string ("1995"); empty or null is none.
type flexInt struct{ v *int }

func (n *flexInt) UnmarshalJSON(data []byte) error {
	data = bytes.Trim(data, `"`)
	if len(data) == 0 || string(data) == "null" {
		n.v = nil
		return nil
	}
	v, err := strconv.Atoi(string(data))
	if err != nil {
		return err
	}
	n.v = &v
	return nil
}

// flexString is a JSON string that may also come as a number (a TMDb id); null is empty.
type flexString string

func (s *flexString) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		*s = ""
		return nil
	}
	if len(data) > 0 && data[0] == '"' {
		var v string
		if err := json.Unmarshal(data, &v); err != nil {
			return err
		}
		*s = flexString(v)
		return nil
	}
	var v json.Number
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*s = flexString(v.String())
	return nil
}

// decodeObject decodes a JSON object into v; anything else is malformed.
func decodeObject(provider string, body []byte, v any) error {
	body = bytes.TrimSpace(body)
	if len(body) == 0 || body[0] != '{' {
		return malformed(provider, errNotObject)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return malformed(provider, err)
	}
	return nil
}

type notObject struct{}

func (notObject) Error() string { return "not a JSON object" }

var errNotObject error = notObject{}

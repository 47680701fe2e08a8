package tabular

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// jsonRows reads a JSON array of objects element by element. The columns are the first
// object's keys in their order; a later object's other keys are ignored and its missing ones are
// empty. Strings are taken as they are, null is empty, numbers and booleans are their JSON text.
type jsonRows struct {
	dec    *json.Decoder
	header []string
	first  map[string]json.RawMessage
	n      int
}

func openJSON(br *bufio.Reader) (Rows, error) {
	if head, _ := br.Peek(len(bom)); bytes.Equal(head, bom) {
		_, _ = br.Discard(len(bom))
	}
	dec := json.NewDecoder(br)
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return nil, errors.New("JSON: expected an array of objects")
	}
	if !dec.More() {
		return nil, ErrNoHeader
	}
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("JSON: %w", err)
	}
	keys, err := objectKeys(raw)
	if err != nil {
		return nil, errors.New("JSON: the first element is not an object")
	}
	h, err := header(keys)
	if err != nil {
		return nil, err
	}
	var first map[string]json.RawMessage
	_ = json.Unmarshal(raw, &first)
	return &jsonRows{dec: dec, header: h, first: first}, nil
}

// objectKeys lists the keys of a JSON object in document order.
func objectKeys(raw json.RawMessage) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("not an object")
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}

func (j *jsonRows) Format() string   { return JSON }
func (j *jsonRows) Header() []string { return j.header }
func (j *jsonRows) Close() error     { return nil }

func (j *jsonRows) Next() ([]string, string, error) {
	j.n++
	var obj map[string]json.RawMessage
	if j.first != nil {
		obj, j.first = j.first, nil
	} else {
		if !j.dec.More() {
			if _, err := j.dec.Token(); err != nil {
				return nil, "", fmt.Errorf("JSON: %w", err)
			}
			return nil, "", io.EOF
		}
		var raw json.RawMessage
		if err := j.dec.Decode(&raw); err != nil {
			return nil, "", fmt.Errorf("JSON: %w", err)
		}
		if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
			return nil, fmt.Sprintf("element %d is not an object", j.n), nil
		}
	}
	cells := make([]string, len(j.header))
	for i, k := range j.header {
		cells[i] = cellText(obj[k])
	}
	return cells, "", nil
}

// cellText is a JSON value as cell text.
func cellText(v json.RawMessage) string {
	s := strings.TrimSpace(string(v))
	if s == "" || s == "null" {
		return ""
	}
	var str string
	if s[0] == '"' && json.Unmarshal(v, &str) == nil {
		return str
	}
	return s
}

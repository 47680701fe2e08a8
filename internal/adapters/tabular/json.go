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
	keys   []string // the first object's keys, as the header's cells before cleaning
	first  map[string]json.RawMessage
	n      int
	cols   map[string]bool // the keys, as a set
}

// inHeader keeps a later element's member only for a column of the header.
func (j *jsonRows) inHeader(k string) bool {
	if j.cols == nil {
		j.cols = make(map[string]bool, len(j.keys))
		for _, k := range j.keys {
			j.cols[k] = true
		}
	}
	return j.cols[k]
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
	var keys []string
	first, err := objectFields(raw, func(k string) bool {
		keys = append(keys, k)
		return true
	}, MaxColumns)
	if errors.Is(err, errTooManyKeys) {
		return nil, limitError("the first object has more than %d keys", MaxColumns)
	}
	if err != nil {
		return nil, errors.New("JSON: the first element is not an object")
	}
	keys = trimHeader(keys)
	h, err := header(keys)
	if err != nil {
		return nil, err
	}
	return &jsonRows{dec: dec, keys: keys, header: h, first: first}, nil
}

// errTooManyKeys stops objectFields at its limit.
var errTooManyKeys = errors.New("too many keys")

// objectFields reads a JSON object's members in document order and keeps the values of the keys
// keep takes (the last one of a repeated key); past limit members (0: none) it stops with
// errTooManyKeys. Values not kept are skipped, so an element with a million keys costs no map.
func objectFields(raw json.RawMessage, keep func(string) bool, limit int) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("not an object")
	}
	out := map[string]json.RawMessage{}
	for n := 1; dec.More(); n++ {
		if limit > 0 && n > limit {
			return nil, errTooManyKeys
		}
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		if keep(k) {
			out[k] = v
		}
	}
	return out, nil
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
		var err error
		if obj, err = objectFields(raw, j.inHeader, 0); err != nil {
			return nil, fmt.Sprintf("element %d is not an object", j.n), nil
		}
	}
	cells := make([]string, len(j.keys))
	for i, k := range j.keys {
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

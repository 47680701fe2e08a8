package httpapi

import (
	"bytes"
	"encoding/json"
	"io"

	"moviesdiary/internal/domain"
)

// checkText refuses a JSON body (already decoded once, so well formed) in which a string holds a
// control character — C0, DEL or C1: a NUL inside a title, an escape sequence in a name — except
// newline, carriage return and tab in prose fields: domain.CheckText, the rule every entry point keeps. Each string is judged by the nearest
// object key above it, so the elements of an array take the array's field.
func checkText(body []byte) error {
	type frame struct {
		object  bool
		wantKey bool   // wantKey: the next string of this object is a key
		key     string // key is the field the values in this frame belong to
	}
	stack := []frame{{}}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	valueDone := func() {
		if top := &stack[len(stack)-1]; top.object {
			top.wantKey = true
		}
	}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return badRequest("malformed JSON: " + err.Error())
		}
		top := &stack[len(stack)-1]
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				stack = append(stack, frame{object: true, wantKey: true, key: top.key})
			case '[':
				stack = append(stack, frame{key: top.key})
			default:
				stack = stack[:len(stack)-1]
				valueDone()
			}
		case string:
			if top.object && top.wantKey {
				if err := textOK("field name", t, false); err != nil {
					return err
				}
				top.key, top.wantKey = t, false
				continue
			}
			if err := textOK(top.key, t, domain.Prose(top.key)); err != nil {
				return err
			}
			valueDone()
		default:
			valueDone()
		}
	}
}

// textOK is domain.CheckText as a 400.
func textOK(field, s string, prose bool) error {
	if err := domain.CheckText(field, s, prose); err != nil {
		return badRequest(err.Error())
	}
	return nil
}

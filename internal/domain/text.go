package domain

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The text rule, one for every way text enters (REST, web forms, imports, media-server webhooks,
// federation): text holds no control character — C0 (NUL among them: PostgreSQL cannot store it),
// DEL or C1 — except newline, carriage return and tab in prose (a comment, a bio), and is valid
// UTF-8. What a person sends (REST, forms, import rows) is refused by CheckText, naming the field;
// what a machine relays (a media server's title, a remote server's note) is kept without the
// characters by StripControl, since refusing it would lose the watch or the review for a byte the
// sender cannot fix. Both stores then hold the same text.

// proseFields are the fields of prose a person types, where newline, carriage return and tab are
// text; everywhere else (titles, names, handles, e-mails) they are not.
var proseFields = map[string]bool{
	"comment": true, "bio": true, "summary": true, "description": true, "overview": true, "notes": true,
}

// Prose reports whether field (a JSON or form field name) holds prose.
func Prose(field string) bool { return proseFields[field] }

// allowed reports whether r may stand in text: not a control character, or, in prose, a
// newline, carriage return or tab.
func allowed(r rune, prose bool) bool {
	return !unicode.IsControl(r) || prose && (r == '\n' || r == '\r' || r == '\t')
}

// CheckText refuses s when it holds a control character (but newline, carriage return and tab in
// prose) or is not valid UTF-8; the KindInvalid error names field.
func CheckText(field, s string, prose bool) error {
	if field == "" {
		field = "value"
	}
	if !utf8.ValidString(s) {
		return Invalid("%s: not valid UTF-8", field)
	}
	for _, r := range s {
		if !allowed(r, prose) {
			return Invalid("%s: control character %U is not allowed", field, r)
		}
	}
	return nil
}

// StripControl returns s without the characters CheckText refuses (invalid UTF-8 becomes U+FFFD).
func StripControl(s string, prose bool) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if strings.IndexFunc(s, func(r rune) bool { return !allowed(r, prose) }) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if allowed(r, prose) {
			return r
		}
		return -1
	}, s)
}

package domain

import (
	"strconv"
	"strings"
)

// ManualMovieKey is the identity of a film typed in by hand, which has no external id: its
// title, year and director (if any), folded to lower case with runs of spaces made one. The
// stores keep it in movies.manual_key under a unique index, so concurrent writers of one new
// film store one movie on both engines (issue 33). Text reaching it has passed CheckText, so the
// unit separator cannot occur in a part.
func ManualMovieKey(title string, year int, director *string) string {
	var b strings.Builder
	b.WriteString(fold(title))
	b.WriteByte(0x1f)
	b.WriteString(strconv.Itoa(year))
	b.WriteByte(0x1f)
	if director != nil {
		b.WriteString(fold(*director))
	}
	return b.String()
}

// fold is s in lower case with its runs of white space made one space, trimmed.
func fold(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

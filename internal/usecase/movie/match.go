package movie

import (
	"slices"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Candidate is one film a metadata provider answered to a title search or an IMDb find.
type Candidate struct {
	TMDbID        int64
	Title         string
	OriginalTitle string
	Year          int // Year is the release year, 0 when the provider has no date.
	PosterPath    string
	// Directors are the film's directors when known (a details call found them); nil when
	// nobody asked yet.
	Directors []string
}

// ExternalID is the candidate's external id, "tmdb:N".
func (c Candidate) ExternalID() string { return "tmdb:" + strconv.FormatInt(c.TMDbID, 10) }

// Wanted is what a client named a film by: a title, a release year and perhaps a director.
type Wanted struct {
	Title    string
	Year     int
	Director string
}

// Verdict is what Match decided.
type Verdict struct {
	// Film is the confident match when OK.
	Film Candidate
	OK   bool
	// NeedDirectors lists the candidates that agree on title and year when more than one does
	// and a director was given: with their Directors filled in, Match may tell them apart.
	NeedDirectors []Candidate
	// Reason says why there is no match ("no candidate", "ambiguous", …), for logs.
	Reason string
}

// Match picks the one candidate that is the film w names, or none; it never guesses. Titles are
// compared after Normalize (case, accents, punctuation, a leading article), against the
// candidate's title and its original title.
//
//   - The year must agree exactly. Only when no candidate has the year, the title is the same as
//     the candidate's but for case and surrounding space, and that candidate is the only one with
//     the title at all, is a year one off accepted (a festival premiere the year before the
//     release, a diary that logs the local release): a lone exact title is strong evidence, and
//     a remake or a namesake would make it not lone.
//   - When several candidates agree on title and year, a given director decides: the verdict
//     asks for their directors (NeedDirectors) when some are unknown, and matches when exactly
//     one candidate has the director. Without a director they stay ambiguous: no match.
//   - When a single candidate agrees and its directors are known, a given director must be one
//     of them. Directors are not fetched for a lone candidate (it costs a call per resolution).
func Match(w Wanted, cands []Candidate) Verdict {
	title := Normalize(w.Title)
	if title == "" || w.Year == 0 {
		return Verdict{Reason: "no title or year to match"}
	}
	var titled []Candidate
	seen := map[int64]bool{}
	for _, c := range cands {
		if c.TMDbID <= 0 || seen[c.TMDbID] {
			continue
		}
		if Normalize(c.Title) == title || (c.OriginalTitle != "" && Normalize(c.OriginalTitle) == title) {
			seen[c.TMDbID] = true
			titled = append(titled, c)
		}
	}
	if len(titled) == 0 {
		return Verdict{Reason: "no candidate with the title"}
	}
	var dated []Candidate
	for _, c := range titled {
		if c.Year == w.Year {
			dated = append(dated, c)
		}
	}
	if len(dated) == 0 {
		c := titled[0]
		if len(titled) == 1 && c.Year != 0 && abs(c.Year-w.Year) == 1 && sameExactTitle(w.Title, c) {
			dated = titled
		} else {
			return Verdict{Reason: "no candidate with the title and year"}
		}
	}
	director := directorNames(w.Director)
	if len(dated) == 1 {
		c := dated[0]
		if director != nil && c.Directors != nil && !directs(c, director) {
			return Verdict{Reason: "the one candidate has another director"}
		}
		return Verdict{Film: c, OK: true}
	}
	if director == nil {
		return Verdict{Reason: "ambiguous: several candidates with the title and year"}
	}
	if slices.ContainsFunc(dated, func(c Candidate) bool { return c.Directors == nil }) {
		return Verdict{NeedDirectors: dated, Reason: "ambiguous until the directors are known"}
	}
	var directed []Candidate
	for _, c := range dated {
		if directs(c, director) {
			directed = append(directed, c)
		}
	}
	if len(directed) != 1 {
		return Verdict{Reason: "ambiguous: the director does not single out one candidate"}
	}
	return Verdict{Film: directed[0], OK: true}
}

// directs reports whether one of c's directors is one of names.
func directs(c Candidate, names []string) bool {
	for _, d := range c.Directors {
		if slices.Contains(names, Normalize(d)) {
			return true
		}
	}
	return false
}

// directorNames is a director as given, normalised, and each name of it when it lists several
// ("Lana Wachowski, Lilly Wachowski", "Joel & Ethan Coen" stays one name too).
func directorNames(s string) []string {
	whole := Normalize(s)
	if whole == "" {
		return nil
	}
	out := []string{whole}
	s = strings.NewReplacer(";", ",", "/", ",", "&", ",", " and ", ",").Replace(s)
	for part := range strings.SplitSeq(s, ",") {
		if n := Normalize(part); n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

func sameExactTitle(title string, c Candidate) bool {
	t := strings.TrimSpace(title)
	return strings.EqualFold(t, strings.TrimSpace(c.Title)) || strings.EqualFold(t, strings.TrimSpace(c.OriginalTitle))
}

// articles are the leading articles Normalize drops, in the languages film titles are most often
// typed in. "l" is French and Italian "l'" once the apostrophe became a space.
var articles = []string{
	"the", "a", "an", // English
	"der", "die", "das", "ein", "eine", // German
	"le", "la", "les", "l", "un", "une", // French
	"el", "los", "las", "il", "lo", "gli", // Spanish, Italian
	"de", "het", "een", // Dutch
	"o", "os", "as", // Portuguese
}

// trailingArticle matches a title filed under its noun, "Matrix, The".
var trailingArticles = func() []string {
	out := make([]string, 0, len(articles))
	for _, a := range articles {
		if len(a) > 1 {
			out = append(out, ", "+a)
		}
	}
	return out
}()

// Normalize is the form titles and names are compared in: accents removed (NFKD, combining marks
// dropped), lower case, "&" as "and", an apostrophe dropped ("Schindler's" is "schindlers")
// except after a one-letter elision ("L'Avventura" is "l avventura"), every other run of
// punctuation or space one space, and one leading article dropped (also when filed at the end:
// "Matrix, The") unless nothing would be left. "Amélie" and "amelie", "The Thing" and "Thing",
// "L'Avventura" and "Avventura" compare equal.
func Normalize(s string) string {
	s = strings.ToLower(strings.TrimSpace(norm.NFKD.String(s)))
	for _, a := range trailingArticles {
		if rest, ok := strings.CutSuffix(s, a); ok && rest != "" {
			s = a[2:] + " " + rest
			break
		}
	}
	s = strings.ReplaceAll(s, "&", " and ")
	var b strings.Builder
	space, word := false, 0 // word: letters and digits of the current word so far
	for _, r := range s {
		switch {
		case unicode.Is(unicode.Mn, r):
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			word++
			b.WriteRune(r)
		case (r == '\'' || r == '\u2019' || r == '\u02bc') && word > 1:
			// a possessive or a contraction: part of the word
		default:
			space, word = true, 0
		}
	}
	words := strings.Fields(b.String())
	if len(words) > 1 && slices.Contains(articles, words[0]) {
		words = words[1:]
	}
	return strings.Join(words, " ")
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

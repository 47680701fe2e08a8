package movie_test

import (
	"testing"

	"moviesdiary/internal/usecase/movie"
)

func TestNormalize(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"The Thing":                      "thing",
		"  THE   thing ":                 "thing",
		"Amélie":                         "amelie",
		"Le Fabuleux Destin d'Amélie":    "fabuleux destin d amelie",
		"L'Avventura":                    "avventura",
		"Schindler's List":               "schindlers list",
		"Schindler’s List":               "schindlers list",
		"Matrix, The":                    "matrix",
		"Das Boot":                       "boot",
		"Die Hard":                       "hard",
		"El Laberinto del Fauno":         "laberinto del fauno",
		"Les Misérables":                 "miserables",
		"Crouching Tiger, Hidden Dragon": "crouching tiger hidden dragon",
		"Mr. & Mrs. Smith":               "mr and mrs smith",
		"Léon: The Professional":         "leon the professional",
		"The":                            "the", // nothing would be left
		"A":                              "a",
		"M*A*S*H":                        "m a s h",
		"Ｆｕｌｌｗｉｄｔｈ":                      "fullwidth",
		"":                               "",
	}
	for in, want := range cases {
		if got := movie.Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMatch(t *testing.T) {
	t.Parallel()
	arrival := movie.Candidate{TMDbID: 329865, Title: "Arrival", OriginalTitle: "Arrival", Year: 2016}
	thing82 := movie.Candidate{TMDbID: 1091, Title: "The Thing", OriginalTitle: "The Thing", Year: 1982}
	thing11 := movie.Candidate{TMDbID: 60935, Title: "The Thing", OriginalTitle: "The Thing", Year: 2011}
	thingDoc := movie.Candidate{TMDbID: 900001, Title: "The Thing", Year: 1982}
	amelie := movie.Candidate{TMDbID: 194, Title: "Amélie", OriginalTitle: "Le Fabuleux Destin d'Amélie Poulain", Year: 2001}
	solaris := movie.Candidate{TMDbID: 593, Title: "Solaris", OriginalTitle: "Солярис", Year: 1972}
	with := func(c movie.Candidate, directors ...string) movie.Candidate { c.Directors = directors; return c }

	cases := []struct {
		name  string
		want  movie.Wanted
		cands []movie.Candidate
		match int64 // 0: no match
		need  int   // len(NeedDirectors)
	}{
		{name: "exact title and year", want: movie.Wanted{Title: "Arrival", Year: 2016}, cands: []movie.Candidate{arrival}, match: 329865},
		{name: "case, article and punctuation", want: movie.Wanted{Title: "thing, the", Year: 1982},
			cands: []movie.Candidate{thing82, thing11}, match: 1091},
		{name: "accents", want: movie.Wanted{Title: "Amelie", Year: 2001}, cands: []movie.Candidate{amelie}, match: 194},
		{name: "original title", want: movie.Wanted{Title: "Le fabuleux destin d’Amélie Poulain", Year: 2001},
			cands: []movie.Candidate{amelie}, match: 194},
		{name: "original title in another script", want: movie.Wanted{Title: "Солярис", Year: 1972},
			cands: []movie.Candidate{solaris}, match: 593},
		{name: "year off by one, exact lone title", want: movie.Wanted{Title: "Arrival", Year: 2017},
			cands: []movie.Candidate{arrival}, match: 329865},
		{name: "year off by one, title only equal after normalising", want: movie.Wanted{Title: "arrival!", Year: 2017},
			cands: []movie.Candidate{arrival}},
		{name: "year off by one with a namesake", want: movie.Wanted{Title: "The Thing", Year: 1983},
			cands: []movie.Candidate{thing82, thing11}},
		{name: "year off by two", want: movie.Wanted{Title: "Arrival", Year: 2018}, cands: []movie.Candidate{arrival}},
		{name: "title differs", want: movie.Wanted{Title: "Arrivals", Year: 2016}, cands: []movie.Candidate{arrival}},
		{name: "no candidates", want: movie.Wanted{Title: "Arrival", Year: 2016}},
		{name: "candidate without a date", want: movie.Wanted{Title: "Arrival", Year: 2016},
			cands: []movie.Candidate{{TMDbID: 5, Title: "Arrival"}}},
		{name: "garbage candidates are ignored", want: movie.Wanted{Title: "Arrival", Year: 2016},
			cands: []movie.Candidate{{TMDbID: 0, Title: "Arrival", Year: 2016}, {TMDbID: -3, Title: "Arrival", Year: 2016}, arrival, arrival},
			match: 329865},
		{name: "two with title and year, no director", want: movie.Wanted{Title: "The Thing", Year: 1982},
			cands: []movie.Candidate{thing82, thingDoc}},
		{name: "two with title and year, director unknown yet", want: movie.Wanted{Title: "The Thing", Year: 1982, Director: "John Carpenter"},
			cands: []movie.Candidate{thing82, thingDoc, thing11}, need: 2},
		{name: "director decides", want: movie.Wanted{Title: "The Thing", Year: 1982, Director: "john carpenter"},
			cands: []movie.Candidate{with(thing82, "John Carpenter"), with(thingDoc, "Someone Else")}, match: 1091},
		{name: "director among several", want: movie.Wanted{Title: "The Thing", Year: 1982, Director: "Bill Lancaster, John Carpenter"},
			cands: []movie.Candidate{with(thing82, "John Carpenter"), with(thingDoc, "Someone Else")}, match: 1091},
		{name: "director matches neither", want: movie.Wanted{Title: "The Thing", Year: 1982, Director: "Nobody"},
			cands: []movie.Candidate{with(thing82, "John Carpenter"), with(thingDoc, "Someone Else")}},
		{name: "director matches both", want: movie.Wanted{Title: "The Thing", Year: 1982, Director: "John Carpenter"},
			cands: []movie.Candidate{with(thing82, "John Carpenter"), with(thingDoc, "John Carpenter")}},
		{name: "lone candidate with a known other director", want: movie.Wanted{Title: "Arrival", Year: 2016, Director: "Someone"},
			cands: []movie.Candidate{with(arrival, "Denis Villeneuve")}},
		{name: "lone candidate, director not fetched", want: movie.Wanted{Title: "Arrival", Year: 2016, Director: "Denis Villeneuve"},
			cands: []movie.Candidate{arrival}, match: 329865},
		{name: "no year", want: movie.Wanted{Title: "Arrival"}, cands: []movie.Candidate{arrival}},
		{name: "title is only punctuation", want: movie.Wanted{Title: "!!!", Year: 2016},
			cands: []movie.Candidate{{TMDbID: 9, Title: "???", Year: 2016}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v := movie.Match(tc.want, tc.cands)
			switch {
			case tc.match == 0 && v.OK:
				t.Errorf("matched %d (%q), want no match", v.Film.TMDbID, v.Film.Title)
			case tc.match != 0 && (!v.OK || v.Film.TMDbID != tc.match):
				t.Errorf("verdict %+v, want a match of %d", v, tc.match)
			}
			if len(v.NeedDirectors) != tc.need {
				t.Errorf("asks for the directors of %d candidates, want %d", len(v.NeedDirectors), tc.need)
			}
			if !v.OK && v.Reason == "" {
				t.Error("no match without a reason")
			}
		})
	}
}

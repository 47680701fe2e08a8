package tmdbtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"moviesdiary/internal/usecase/movie"
)

// Film is a film the fake's search, /find and /movie know beside the fixtures.
type Film struct {
	ID            int64
	IMDbID        string
	Title         string
	OriginalTitle string
	ReleaseDate   string // "2016-11-10"; "" for a film TMDb has no date for
	Director      string
	PosterPath    string
	BackdropPath  string  // "" for none (TMDb's null)
	Cast          []Actor // billed cast, in order; none unless given
}

// Actor is one billed actor of a Film.
type Actor struct {
	ID          int64
	Name        string
	Character   string
	ProfilePath string // "" for none (TMDb's null)
}

// Films are the fake's catalogue: real films with their real TMDb and IMDb ids (namesakes of
// other years included: two Solaris, two The Thing), and one synthetic pair sharing title and
// year that only the director tells apart.
var Films = []Film{
	{ID: 78, IMDbID: "tt0083658", Title: "Blade Runner", ReleaseDate: "1982-06-25", Director: "Ridley Scott",
		PosterPath: "/63N9uy8nd9j7Eog2axPQ8lbr3Wj.jpg"},
	{ID: 329865, IMDbID: "tt2543164", Title: "Arrival", ReleaseDate: "2016-11-10", Director: "Denis Villeneuve",
		PosterPath: "/x2FJsf1ElAgr63Y3PNPtJrcmpoe.jpg"},
	{ID: 593, IMDbID: "tt0069293", Title: "Solaris", OriginalTitle: "Солярис", ReleaseDate: "1972-03-20",
		Director: "Andrei Tarkovsky", PosterPath: "/bJtREYwvXzgWqm4NxIpGy2sk6tZ.jpg"},
	{ID: 2103, IMDbID: "tt0307479", Title: "Solaris", ReleaseDate: "2002-11-27", Director: "Steven Soderbergh",
		PosterPath: "/xZrF3RRPBQvGmtwMlb2DkzBTmBS.jpg"},
	{ID: 1091, IMDbID: "tt0084787", Title: "The Thing", ReleaseDate: "1982-06-25", Director: "John Carpenter",
		PosterPath: "/tzGY49kseSE9QAKk47uuDGwnSCu.jpg"},
	{ID: 60935, IMDbID: "tt0905372", Title: "The Thing", ReleaseDate: "2011-10-12", Director: "Matthijs van Heijningen Jr.",
		PosterPath: "/jgv6IbWKxzFbWBMJpJPlSDf2QzK.jpg"},
	{ID: 194, IMDbID: "tt0211915", Title: "Amélie", OriginalTitle: "Le Fabuleux Destin d'Amélie Poulain",
		ReleaseDate: "2001-04-25", Director: "Jean-Pierre Jeunet", PosterPath: "/nSxDa3M9aMvGVLoItzWTepQ5h5d.jpg"},
	{ID: 949, IMDbID: "tt0113277", Title: "Heat", ReleaseDate: "1995-12-15", Director: "Michael Mann",
		PosterPath: "/umSVjVdbVwtx5ryCA2QXL44Durm.jpg"},
	// A diary's worth more, for the import tests: widely logged films, foreign ones under their
	// English title with the original beside it, and namesakes told apart by year (two Dune,
	// two Little Women, two Crash; Alien and Aliens, which a search for "Alien" both finds).
	// Their poster paths have TMDb's shape; the fake serves the same image for any.
	{ID: 238, IMDbID: "tt0068646", Title: "The Godfather", ReleaseDate: "1972-03-14", Director: "Francis Ford Coppola",
		PosterPath: "/3bhkrj58Vtu7enYsRolD1fZdja1.jpg"},
	{ID: 680, IMDbID: "tt0110912", Title: "Pulp Fiction", ReleaseDate: "1994-09-10", Director: "Quentin Tarantino",
		PosterPath: "/d5iIlFn5s0ImszYzBPb8JPIfbXD.jpg"},
	{ID: 550, IMDbID: "tt0137523", Title: "Fight Club", ReleaseDate: "1999-10-15", Director: "David Fincher",
		PosterPath: "/pB8BM7pdSp6B6Ih7QZ4DrQ3PmJK.jpg"},
	{ID: 603, IMDbID: "tt0133093", Title: "The Matrix", ReleaseDate: "1999-03-31", Director: "Lana Wachowski",
		PosterPath: "/f89U3ADr1oiB1s9GkdPOEpXUk5H.jpg"},
	{ID: 27205, IMDbID: "tt1375666", Title: "Inception", ReleaseDate: "2010-07-15", Director: "Christopher Nolan",
		PosterPath: "/oYuLEt3zVCKq57qu2F8dT7NIa6f.jpg"},
	{ID: 157336, IMDbID: "tt0816692", Title: "Interstellar", ReleaseDate: "2014-11-05", Director: "Christopher Nolan",
		PosterPath: "/gEU2QniE6E77NI6lCU6MxlNBvIx.jpg"},
	{ID: 496243, IMDbID: "tt6751668", Title: "Parasite", OriginalTitle: "기생충", ReleaseDate: "2019-05-30",
		Director: "Bong Joon-ho", PosterPath: "/7IiTTgloJzvGI1TAYymCfbfl3vT.jpg"},
	{ID: 129, IMDbID: "tt0245429", Title: "Spirited Away", OriginalTitle: "千と千尋の神隠し", ReleaseDate: "2001-07-20",
		Director: "Hayao Miyazaki", PosterPath: "/39wmItIWsg5sZMyRUHLkWBcuVCM.jpg"},
	{ID: 348, IMDbID: "tt0078748", Title: "Alien", ReleaseDate: "1979-05-25", Director: "Ridley Scott",
		PosterPath: "/vfrQk5IPloGg1v9Rzbh2Eg3VGyM.jpg"},
	{ID: 679, IMDbID: "tt0090605", Title: "Aliens", ReleaseDate: "1986-07-18", Director: "James Cameron",
		PosterPath: "/r1x5JGpyqZU8PYhbs4UcrO1Xb6x.jpg"},
	{ID: 62, IMDbID: "tt0062622", Title: "2001: A Space Odyssey", ReleaseDate: "1968-04-02", Director: "Stanley Kubrick",
		PosterPath: "/ve72VxNqjGM69Uky4WTo2bK6rfq.jpg"},
	{ID: 76341, IMDbID: "tt1392190", Title: "Mad Max: Fury Road", ReleaseDate: "2015-05-13", Director: "George Miller",
		PosterPath: "/hA2ple9q4qnwxp3hKVNhroipsir.jpg"},
	{ID: 244786, IMDbID: "tt2582802", Title: "Whiplash", ReleaseDate: "2014-10-10", Director: "Damien Chazelle",
		PosterPath: "/7fn624j5lj3xTme2SgiLCeuedmO.jpg"},
	{ID: 376867, IMDbID: "tt4975722", Title: "Moonlight", ReleaseDate: "2016-10-21", Director: "Barry Jenkins",
		PosterPath: "/qLnfEmPrDjJfPyyddLJPkXmshkp.jpg"},
	{ID: 419430, IMDbID: "tt5052448", Title: "Get Out", ReleaseDate: "2017-02-24", Director: "Jordan Peele",
		PosterPath: "/tFXcEccSQMf3lfhfXKSU9iRBpa3.jpg"},
	{ID: 438631, IMDbID: "tt1160419", Title: "Dune", ReleaseDate: "2021-09-15", Director: "Denis Villeneuve",
		PosterPath: "/d5NXSklXo0qyIYkgV94XAgMIckC.jpg"},
	{ID: 841, IMDbID: "tt0087182", Title: "Dune", ReleaseDate: "1984-12-14", Director: "David Lynch",
		PosterPath: "/5z4b6X1ySHu1DuG5Ef55mLSGsI3.jpg"},
	{ID: 531428, IMDbID: "tt8613070", Title: "Portrait of a Lady on Fire", OriginalTitle: "Portrait de la jeune fille en feu",
		ReleaseDate: "2019-09-18", Director: "Céline Sciamma", PosterPath: "/2LquGwEhbg3soxSCs9VNyh5VJd9.jpg"},
	{ID: 346, IMDbID: "tt0047478", Title: "Seven Samurai", OriginalTitle: "七人の侍", ReleaseDate: "1954-04-26",
		Director: "Akira Kurosawa", PosterPath: "/8OKmBV5BUFzmozIC3pPWKHy17kx.jpg"},
	{ID: 694, IMDbID: "tt0081505", Title: "The Shining", ReleaseDate: "1980-05-23", Director: "Stanley Kubrick",
		PosterPath: "/xazWoLealQwEgqZ89MLZklLZD3k.jpg"},
	{ID: 670, IMDbID: "tt0364569", Title: "Oldboy", OriginalTitle: "올드보이", ReleaseDate: "2003-11-21",
		Director: "Park Chan-wook", PosterPath: "/pWDtjs568ZfOTMbURQBYuT4Qxka.jpg"},
	{ID: 1018, IMDbID: "tt0166924", Title: "Mulholland Drive", ReleaseDate: "2001-05-16", Director: "David Lynch",
		PosterPath: "/x7A59t6ySylr1L7aubOQjA5cNER.jpg"},
	{ID: 331482, IMDbID: "tt3281548", Title: "Little Women", ReleaseDate: "2019-12-25", Director: "Greta Gerwig",
		PosterPath: "/yn5ihODtZ7ofn8pDYfxCmxh8AXI.jpg"},
	{ID: 9587, IMDbID: "tt0110367", Title: "Little Women", ReleaseDate: "1994-12-21", Director: "Gillian Armstrong",
		PosterPath: "/1ZzH1XMcKAe5NdrKL5MfcqZHHsZ.jpg"},
	{ID: 884, IMDbID: "tt0115964", Title: "Crash", ReleaseDate: "1996-10-04", Director: "David Cronenberg",
		PosterPath: "/rPBXVbLxZ8Y7XSVr2cY1AuU4SBI.jpg"},
	{ID: 1640, IMDbID: "tt0375679", Title: "Crash", ReleaseDate: "2004-09-10", Director: "Paul Haggis",
		PosterPath: "/86BnRRdWcDWhHWTMuJZ9p6Rc9mG.jpg"},
	{ID: 900001, IMDbID: "tt9900001", Title: "Twin Film", ReleaseDate: "2000-05-01", Director: "Ann Director"},
	{ID: 900002, IMDbID: "tt9900002", Title: "Twin Film", ReleaseDate: "2000-09-01", Director: "Bob Director"},
}

// pageSize is TMDb's search page size.
const pageSize = 20

func (f Film) original() string {
	if f.OriginalTitle != "" {
		return f.OriginalTitle
	}
	return f.Title
}

func (f Film) year() int {
	if len(f.ReleaseDate) < 4 {
		return 0
	}
	y, _ := strconv.Atoi(f.ReleaseDate[:4])
	return y
}

// result is a film as TMDb's search and /find list it.
func (f Film) result() map[string]any {
	return map[string]any{
		"adult": false, "backdrop_path": orNull(f.BackdropPath), "genre_ids": []int{18}, "id": f.ID, "original_language": "en",
		"original_title": f.original(), "overview": "", "popularity": 10.5, "poster_path": orNull(f.PosterPath),
		"release_date": f.ReleaseDate, "title": f.Title, "video": false, "vote_average": 7.5, "vote_count": 1000,
	}
}

// details is a film as /movie/{id}?append_to_response=credits,keywords answers it.
func (f Film) details() map[string]any {
	d := f.result()
	delete(d, "genre_ids")
	d["imdb_id"] = f.IMDbID
	d["runtime"] = 100
	d["genres"] = []map[string]any{{"id": 18, "name": "Drama"}}
	d["keywords"] = map[string]any{"keywords": []any{}}
	cast := []map[string]any{}
	for i, a := range f.Cast {
		// TMDb's shape of a cast credit, ids and all.
		cast = append(cast, map[string]any{"adult": false, "gender": 0, "id": a.ID, "known_for_department": "Acting",
			"name": a.Name, "original_name": a.Name, "popularity": 12.5, "profile_path": orNull(a.ProfilePath),
			"cast_id": i + 1, "character": a.Character, "credit_id": fmt.Sprintf("52fe4%019d", a.ID), "order": i})
	}
	d["credits"] = map[string]any{"cast": cast, "crew": []map[string]any{
		{"id": f.ID + 5_000_000, "name": f.Director, "job": "Director", "department": "Directing",
			"known_for_department": "Directing", "profile_path": nil},
	}}
	return d
}

// orNull is s, or JSON null for "", as TMDb writes a missing path.
func orNull(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// catalogue is a fake's films, indexed: titles normalised once, so a search of thousands of
// films (a benchmark's) costs microseconds, not a Normalize per film.
type catalogue struct {
	films  []Film
	titles [][2]string // normalised title and original title, by index
	byID   map[string]Film
	byIMDb map[string]Film
}

func newCatalogue(films []Film) *catalogue {
	c := &catalogue{films: slices.Clone(films), titles: make([][2]string, len(films)), byID: map[string]Film{},
		byIMDb: map[string]Film{}}
	for i, f := range films {
		c.titles[i] = [2]string{movie.Normalize(f.Title), movie.Normalize(f.original())}
		if _, ok := c.byID[strconv.FormatInt(f.ID, 10)]; !ok {
			c.byID[strconv.FormatInt(f.ID, 10)] = f
		}
		if _, ok := c.byIMDb[f.IMDbID]; !ok && f.IMDbID != "" {
			c.byIMDb[f.IMDbID] = f
		}
	}
	return c
}

// search answers GET /3/search/movie the way TMDb does: films whose title or original title
// contains the query (case and accents aside), narrowed by year or primary_release_year, a page
// of 20.
func (c *catalogue) search(w http.ResponseWriter, q url.Values) {
	query := movie.Normalize(q.Get("query"))
	year, _ := strconv.Atoi(q.Get("year"))
	primary, _ := strconv.Atoi(q.Get("primary_release_year"))
	page, _ := strconv.Atoi(q.Get("page"))
	page = max(page, 1)
	var hits []map[string]any
	for i, f := range c.films {
		if query == "" || !strings.Contains(c.titles[i][0], query) && !strings.Contains(c.titles[i][1], query) {
			continue
		}
		if year != 0 && f.year() != year || primary != 0 && f.year() != primary {
			continue
		}
		hits = append(hits, f.result())
	}
	total := len(hits)
	from := min((page-1)*pageSize, total)
	results := slices.Clone(hits[from:min(from+pageSize, total)])
	if results == nil {
		results = []map[string]any{}
	}
	writeJSON(w, map[string]any{"page": page, "results": results, "total_pages": max((total+pageSize-1)/pageSize, 1),
		"total_results": total})
}

func writeJSON(w http.ResponseWriter, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	_, _ = w.Write(b)
}

package tmdbtest

import (
	"encoding/json"
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
	var poster any
	if f.PosterPath != "" {
		poster = f.PosterPath
	}
	return map[string]any{
		"adult": false, "backdrop_path": nil, "genre_ids": []int{18}, "id": f.ID, "original_language": "en",
		"original_title": f.original(), "overview": "", "popularity": 10.5, "poster_path": poster,
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
	d["credits"] = map[string]any{"cast": []any{}, "crew": []map[string]any{
		{"id": f.ID + 5_000_000, "name": f.Director, "job": "Director", "department": "Directing",
			"known_for_department": "Directing", "profile_path": nil},
	}}
	return d
}

// search answers GET /3/search/movie the way TMDb does: films whose title or original title
// contains the query (case and accents aside), narrowed by year or primary_release_year, a page
// of 20.
func search(w http.ResponseWriter, q url.Values) {
	query := movie.Normalize(q.Get("query"))
	year, _ := strconv.Atoi(q.Get("year"))
	primary, _ := strconv.Atoi(q.Get("primary_release_year"))
	page, _ := strconv.Atoi(q.Get("page"))
	page = max(page, 1)
	var hits []map[string]any
	for _, f := range Films {
		if query == "" || !strings.Contains(movie.Normalize(f.Title), query) && !strings.Contains(movie.Normalize(f.original()), query) {
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

func film(match func(Film) bool) (Film, bool) {
	i := slices.IndexFunc(Films, match)
	if i < 0 {
		return Film{}, false
	}
	return Films[i], true
}

func writeJSON(w http.ResponseWriter, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	_, _ = w.Write(b)
}

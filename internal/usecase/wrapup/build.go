package wrapup

import (
	"cmp"
	"slices"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// The report's ranking sizes and thresholds.
const (
	// TopPeople is how many directors and actors are ranked.
	TopPeople = 5
	// TopGenres is how many genres are ranked.
	TopGenres = 5
	// TopKeywords is how many keywords are ranked.
	TopKeywords = 20
	// MinViewings is how many viewings a director, actor or genre needs in the range to be
	// ranked (or named highest / lowest rated), so one-off names do not fill the lists.
	MinViewings = 2
	// TopBilling is how many of a movie's top-billed actors count as its cast.
	TopBilling = 4
	// maxMonths bounds movies_per_month (a century).
	maxMonths = 1200
)

// BuildReport computes the report of a wrap-up from its viewings, oldest first. It is a pure
// function of its inputs (ties break by name, then by first viewing), so a resumed generation
// computes the same report.
func BuildReport(w domain.WrapUp, viewings []Viewing, now time.Time) Report {
	r := Report{
		Scope:       Scope{User: w.UserID},
		DateRange:   DateRange{Start: w.StartDate.String(), End: w.EndDate.String()},
		GeneratedAt: now.UTC().Format(time.RFC3339),
		TotalMovies: len(viewings),
	}
	r.MoviesPerMonth, r.BusiestMonth = months(w, viewings)
	r.BusiestDayOfWeek = busiestDay(viewings)

	var (
		directors, actors, genres  = newTally(), newTally(), newTally()
		keywords, languages, media = newTally(), newTally(), newTally()
		budgetSum, budgets         int64
		ratingSum                  int
	)
	for _, v := range viewings {
		if v.Runtime != nil && *v.Runtime > 0 {
			r.TotalWatchTimeMinutes += *v.Runtime
		}
		if v.Rating >= domain.MinRating && v.Rating <= domain.MaxRating {
			r.RatingDistribution[v.Rating-1]++
		}
		ratingSum += v.Rating
		if v.Director != nil && *v.Director != "" {
			directors.add(*v.Director, v.DirectorID, nil, v.Rating)
		}
		for i, c := range v.Cast {
			if i < TopBilling {
				actors.add(c.Name, &c.PersonID, c.ProfilePath, v.Rating)
			}
		}
		for _, g := range v.Genres {
			genres.add(g, nil, nil, v.Rating)
		}
		for _, k := range v.Keywords {
			keywords.add(k, nil, nil, v.Rating)
		}
		if v.Language != nil && *v.Language != "" {
			languages.add(*v.Language, nil, nil, v.Rating)
		}
		if v.Medium != nil && *v.Medium != "" {
			media.add(*v.Medium, nil, nil, v.Rating)
		}
		if v.Budget != nil && *v.Budget > 0 {
			budgetSum, budgets = budgetSum+*v.Budget, budgets+1
		}
	}
	if n := len(viewings); n > 0 {
		avg := float64(ratingSum) / float64(n)
		r.AvgRating = &avg
	}
	if budgets > 0 {
		avg := budgetSum / budgets
		r.TotalBudgetWatched, r.AvgBudget = &budgetSum, &avg
	}

	r.TopDirectors, r.DirectorDiversity = people(directors), len(directors.byName)
	r.TopActors, r.ActorDiversity = people(actors), len(actors.byName)
	r.TopCastProfilePaths = []string{}
	for _, a := range r.TopActors {
		if p := actors.byName[a.Name].profile; p != nil && *p != "" {
			r.TopCastProfilePaths = append(r.TopCastProfilePaths, *p)
		}
	}
	r.GenreDiversity = len(genres.byName)
	r.TopGenres = []GenreStat{}
	for _, e := range genres.ranked(TopGenres, 1) {
		r.TopGenres = append(r.TopGenres, GenreStat{Genre: e.name, Count: e.count, AvgRating: e.avg()})
	}
	r.HighestRatedGenre, r.LowestRatedGenre = ratedExtremes(genres)
	r.TopKeywords = []KeywordStat{}
	for _, e := range keywords.ranked(TopKeywords, 1) {
		r.TopKeywords = append(r.TopKeywords, KeywordStat{Keyword: e.name, Count: e.count})
	}
	r.LanguageDistribution = []LanguageStat{}
	for _, e := range languages.ranked(len(languages.byName), 1) {
		r.LanguageDistribution = append(r.LanguageDistribution, LanguageStat{Language: e.name, Count: e.count})
	}
	r.WatchMediumDistribution = []MediumStat{}
	for _, e := range media.ranked(len(media.byName), 1) {
		r.WatchMediumDistribution = append(r.WatchMediumDistribution, MediumStat{Medium: e.name, Count: e.count})
	}

	movieHighlights(&r, viewings)
	rewatches(&r, viewings)
	if w.UserID == nil {
		instanceStats(&r, viewings)
	}
	r.PosterPaths = []string{}
	seen := map[string]bool{}
	for _, v := range viewings {
		if v.Poster != nil && *v.Poster != "" && !seen[*v.Poster] {
			seen[*v.Poster] = true
			r.PosterPaths = append(r.PosterPaths, *v.Poster)
		}
	}
	return r
}

// months is every month of the range with its viewings, and the label of the busiest one
// (the earliest of a tie; nil without viewings).
func months(w domain.WrapUp, viewings []Viewing) ([]MonthCount, *string) {
	counts := map[string]int{}
	for _, v := range viewings {
		counts[v.WatchedAt.UTC().Format("2006-01")]++
	}
	out := []MonthCount{}
	var busiest *string
	best := 0
	start := time.Date(w.StartDate.Time().Year(), w.StartDate.Time().Month(), 1, 0, 0, 0, 0, time.UTC)
	for m := start; !m.After(w.EndDate.Time()) && len(out) < maxMonths; m = m.AddDate(0, 1, 0) {
		mc := MonthCount{YearMonth: m.Format("2006-01"), Label: m.Format("Jan 2006"), Count: counts[m.Format("2006-01")]}
		out = append(out, mc)
		if mc.Count > best {
			best, busiest = mc.Count, &mc.Label
		}
	}
	return out, busiest
}

// busiestDay is the weekday with the most viewings, Monday first on a tie; nil without any.
func busiestDay(viewings []Viewing) *string {
	if len(viewings) == 0 {
		return nil
	}
	var counts [7]int // Monday..Sunday
	for _, v := range viewings {
		counts[(int(v.WatchedAt.UTC().Weekday())+6)%7]++
	}
	best := 0
	for i, c := range counts {
		if c > counts[best] {
			best = i
		}
	}
	day := time.Weekday((best + 1) % 7).String()
	return &day
}

// ref is the MovieRef of a viewing's movie.
func ref(v Viewing) *MovieRef {
	id := v.MovieID
	return &MovieRef{MovieID: &id, Title: v.Title, Year: v.Year, RuntimeMinutes: v.Runtime, PosterPath: v.Poster}
}

// extreme is the viewing better ranks first (the earliest viewing of a tie), or nil.
func extreme(viewings []Viewing, ok func(Viewing) bool, better func(a, b Viewing) bool) *MovieRef {
	var best *Viewing
	for i := range viewings {
		if ok(viewings[i]) && (best == nil || better(viewings[i], *best)) {
			best = &viewings[i]
		}
	}
	if best == nil {
		return nil
	}
	return ref(*best)
}

func movieHighlights(r *Report, viewings []Viewing) {
	all := func(Viewing) bool { return true }
	timed := func(v Viewing) bool { return v.Runtime != nil && *v.Runtime > 0 }
	dated := func(v Viewing) bool { return v.Year > 0 }
	r.LongestMovie = extreme(viewings, timed, func(a, b Viewing) bool { return *a.Runtime > *b.Runtime })
	r.ShortestMovie = extreme(viewings, timed, func(a, b Viewing) bool { return *a.Runtime < *b.Runtime })
	r.OldestMovie = extreme(viewings, dated, func(a, b Viewing) bool { return a.Year < b.Year })
	r.NewestMovie = extreme(viewings, dated, func(a, b Viewing) bool { return a.Year > b.Year })
	r.HighestRatedMovie = extreme(viewings, all, func(a, b Viewing) bool { return a.Rating > b.Rating })
	r.LowestRatedMovie = extreme(viewings, all, func(a, b Viewing) bool { return a.Rating < b.Rating })
	if n := len(viewings); n > 0 {
		r.FirstMovieOfPeriod, r.LastMovieOfPeriod = ref(viewings[0]), ref(viewings[n-1])
	}
}

// rewatches fills the rewatch figures: viewings beyond the first of each movie, the movie seen
// most often, and the mean change from a rewatched movie's first rating to its last.
func rewatches(r *Report, viewings []Viewing) {
	byMovie, order := groupBy(viewings, func(v Viewing) uuid.UUID { return v.MovieID })
	var changes []float64
	best := 1
	for _, id := range order {
		vs := byMovie[id]
		if len(vs) < 2 {
			continue
		}
		r.TotalRewatches += len(vs) - 1
		changes = append(changes, float64(vs[len(vs)-1].Rating-vs[0].Rating))
		if len(vs) > best {
			best, r.MostRewatchedMovie = len(vs), ref(vs[0])
		}
	}
	if len(changes) > 0 {
		sum := 0.0
		for _, c := range changes {
			sum += c
		}
		avg := sum / float64(len(changes))
		r.AvgRatingChangeOnRewatch = &avg
	}
}

// instanceStats fills the instance-wide figures: active users, the most active one, the movie
// watched most often.
func instanceStats(r *Report, viewings []Viewing) {
	users := 0
	r.TotalUsersActive = &users
	byUser, userOrder := groupBy(viewings, func(v Viewing) uuid.UUID { return v.UserID })
	users = len(userOrder)
	best := 0
	for _, id := range userOrder {
		if vs := byUser[id]; len(vs) > best {
			best, r.MostActiveUser = len(vs), &UserRef{UserID: id, DisplayName: vs[0].UserName}
		}
	}
	byMovie, movieOrder := groupBy(viewings, func(v Viewing) uuid.UUID { return v.MovieID })
	best = 0
	for _, id := range movieOrder {
		if vs := byMovie[id]; len(vs) > best {
			best, r.MostWatchedMovieGlobal = len(vs), ref(vs[0])
		}
	}
}

// groupBy groups viewings by key, keeping the order keys first appear in (oldest viewing first).
func groupBy(viewings []Viewing, key func(Viewing) uuid.UUID) (map[uuid.UUID][]Viewing, []uuid.UUID) {
	out := map[uuid.UUID][]Viewing{}
	var order []uuid.UUID
	for _, v := range viewings {
		k := key(v)
		if _, ok := out[k]; !ok {
			order = append(order, k)
		}
		out[k] = append(out[k], v)
	}
	return out, order
}

// tally counts viewings and sums ratings by name.
type tally struct{ byName map[string]*tallyEntry }

type tallyEntry struct {
	name      string
	id        *uuid.UUID
	profile   *string
	count     int
	ratingSum int
}

func (e tallyEntry) avg() float64 { return float64(e.ratingSum) / float64(e.count) }

func newTally() tally { return tally{byName: map[string]*tallyEntry{}} }

func (t tally) add(name string, id *uuid.UUID, profile *string, rating int) {
	e := t.byName[name]
	if e == nil {
		e = &tallyEntry{name: name}
		t.byName[name] = e
	}
	if e.id == nil && id != nil {
		cp := *id
		e.id = &cp
	}
	if e.profile == nil && profile != nil {
		e.profile = profile
	}
	e.count++
	e.ratingSum += rating
}

// ranked is at most n entries with at least min viewings: most viewings first, then the higher
// mean rating, then by name.
func (t tally) ranked(n, min int) []tallyEntry {
	out := make([]tallyEntry, 0, len(t.byName))
	for _, e := range t.byName {
		if e.count >= min {
			out = append(out, *e)
		}
	}
	slices.SortFunc(out, func(a, b tallyEntry) int {
		return cmp.Or(b.count-a.count, cmp.Compare(b.avg(), a.avg()), cmp.Compare(a.name, b.name))
	})
	if len(out) > n {
		out = out[:n]
	}
	return out
}

func people(t tally) []PersonStat {
	out := []PersonStat{}
	for _, e := range t.ranked(TopPeople, MinViewings) {
		out = append(out, PersonStat{PersonID: e.id, Name: e.name, Count: e.count, AvgRating: e.avg()})
	}
	return out
}

// ratedExtremes are the genres with the highest and the lowest mean rating among those with
// MinViewings (more viewings first on a tie, then by name); nil when none qualifies.
func ratedExtremes(genres tally) (highest, lowest *string) {
	var hi, lo *tallyEntry
	for _, e := range genres.ranked(len(genres.byName), MinViewings) {
		if hi == nil || e.avg() > hi.avg() {
			hi = &e
		}
		if lo == nil || e.avg() < lo.avg() {
			lo = &e
		}
	}
	if hi != nil {
		highest, lowest = &hi.name, &lo.name
	}
	return highest, lowest
}

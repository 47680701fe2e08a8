package web

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"io/fs"
	"math"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-chi/chi/v5/middleware"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/endpoint"
	"moviesdiary/internal/usecase/wrapup"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static/style.css
var styleCSS []byte

// styleETag versions the stylesheet so browsers may keep it.
var styleETag = func() string {
	sum := sha256.Sum256(styleCSS)
	return `"` + hex.EncodeToString(sum[:8]) + `"`
}()

// pages are the parsed templates: each page is the layout plus its own file.
type pages map[string]*template.Template

// funcs are the templates' helpers: formatting only, no rule.
var funcs = template.FuncMap{
	"stars": func(n int) string {
		n = max(0, min(n, domain.MaxRating))
		return strings.Repeat("★", n) + strings.Repeat("☆", domain.MaxRating-n)
	},
	"reviewStars":  reviewStars,
	"reviewRating": reviewRating,
	"date":         func(t time.Time) string { return t.UTC().Format("2 Jan 2006") },
	"isodate":      func(t time.Time) string { return t.UTC().Format("2006-01-02") },
	"str": func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	},
	"medium": mediumLabel,
	"img":    imageURL,
	"thumb":  thumbURL,
	// srcset and initials are the grid's poster and the cast's placeholder (grid.go).
	"srcset":   posterSrcset,
	"initials": initials,
	"pickOf":   pickOf,
	"rating": func(p *float64) string {
		if p == nil {
			return "–"
		}
		return strconv.FormatFloat(*p, 'f', 1, 64)
	},
	"add": func(a, b int) int { return a + b },
	// count writes a number with its noun: "1 review", "2 reviews", "0 reviews".
	"count": func(n int, one, many string) string {
		if n == 1 {
			return "1 " + one
		}
		return strconv.Itoa(n) + " " + many
	},
	"itoa": strconv.Itoa,
	// most is the largest count of a month list or a rating distribution, the bars' scale.
	"most": func(v any) int {
		m := 1
		switch l := v.(type) {
		case []wrapup.MonthCount:
			for _, c := range l {
				m = max(m, c.Count)
			}
		case [5]int:
			for _, c := range l {
				m = max(m, c)
			}
		}
		return m
	},
	"seq": func(n int) []int {
		out := make([]int, n)
		for i := range out {
			out[i] = i + 1
		}
		return out
	},
}

func parsePages() (pages, error) {
	layout, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html")
	if err != nil {
		return nil, fmt.Errorf("web: layout: %w", err)
	}
	files, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return nil, err
	}
	p := pages{}
	for _, f := range files {
		name := strings.TrimSuffix(path.Base(f), ".html")
		if name == "layout" {
			continue
		}
		t, err := template.Must(layout.Clone()).ParseFS(templateFS, f)
		if err != nil {
			return nil, fmt.Errorf("web: %s: %w", f, err)
		}
		p[name] = t
	}
	return p, nil
}

// view is what the layout gets: the page's title and data, the viewer, the CSRF token and an
// error or notice to show above the content.
type view struct {
	Title  string
	Me     *domain.User
	Admin  bool
	CSRF   string
	Error  string
	Notice string
	Path   string
	Data   any
	// Waiting is how many watches wait in the viewer's queue; the navigation links it when
	// there are any.
	Waiting int
	// SignOn names the single sign-on provider the log-in page offers, "" for none.
	SignOn string
}

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// render writes page name with data. The page is rendered into a buffer first, so a template
// failure is a clean error page instead of half a page.
func (s *Server) render(w http.ResponseWriter, r *http.Request, v visit, status int, name, title string, data any) error {
	t, ok := s.pages[name]
	if !ok {
		return fmt.Errorf("web: no page %q", name)
	}
	vw := view{Title: title, Me: v.me, CSRF: v.csrf, Path: r.URL.Path, Data: data,
		Notice: noticeText(r.URL.Query().Get("done")), SignOn: s.signOnName()}
	if v.me != nil {
		vw.Admin = v.me.Role == domain.RoleAdmin
		if s.Integrations != nil {
			// The queue fills from media servers while nobody looks: the navigation says so.
			n, err := s.Integrations.Waiting(r.Context(), v.me.ID)
			if err != nil {
				s.log.WarnContext(r.Context(), "count the watch queue", "error", err)
			}
			vw.Waiting = n
		}
	}
	if e, ok := data.(interface{ errorText() string }); ok {
		vw.Error = e.errorText()
	}
	buf := bufPool.Get().(*bytes.Buffer)
	buf.Reset()
	defer bufPool.Put(buf)
	if err := t.ExecuteTemplate(buf, "layout.html", vw); err != nil {
		return fmt.Errorf("web: render %s: %w", name, err)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = buf.WriteTo(w)
	return nil
}

// fail renders err as an error page: its status and safe message, a generic one (logged) for
// our own failures.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, v visit, err error) {
	status, msg := endpoint.StatusOf(err)
	if status >= 500 {
		s.log.ErrorContext(r.Context(), "web page failed", "error", err, "path", r.URL.Path,
			"request_id", middleware.GetReqID(r.Context()))
		msg = "Something went wrong on our side. Try again in a moment."
	}
	if status == http.StatusUnauthorized && v.me == nil {
		msg = "Sign in to do that."
	}
	if rerr := s.render(w, r, v, status, "error", http.StatusText(status), errorPage{Status: status, Message: msg}); rerr != nil {
		s.log.ErrorContext(r.Context(), "web error page failed", "error", rerr)
		http.Error(w, msg, status)
	}
}

type errorPage struct {
	Status  int
	Message string
}

// notices are the confirmations a redirect after a form asks for with ?done=.
var notices = map[string]string{
	"logged": "Review logged.", "edited": "Review saved.", "deleted": "Review deleted.",
	"added": "Added to your watchlist.", "removed": "Removed from your watchlist.",
	"followed": "Follow requested.", "unfollowed": "Unfollowed.", "accepted": "Follower accepted.",
	"rejected": "Follow request rejected.", "follower-removed": "Follower removed.", "blocked": "Blocked.",
	"unblocked": "Unblocked.", "saved": "Settings saved.", "registered": "Account created. Welcome!",
	"requested":      "Wrap-up requested: it appears here when the worker has built it.",
	"domain-blocked": "Domain blocked.", "domain-unblocked": "Domain unblocked.",
	"token-deleted": "Webhook token deleted.", "watch-confirmed": "Watch logged as a review.",
	"watch-dismissed": "Watch dismissed.", "mapped": "Columns saved.",
	"imported": "Import done.",
	"pending":  "Account created. An admin must approve it before you can log in.",
	"password": "Password changed. Your other sessions are signed out.", "email": "E-mail changed.",
	"username": "Username changed.", "session-ended": "Session signed out.",
	"account-deleted": "Your account is deleted.", "approved": "Account approved: it can log in now.",
	"token-revoked": "Token revoked.", "two-factor-off": "Two-factor authentication is off.",
}

func noticeText(key string) string { return cmp.Or(notices[key], mailNotices[key]) }

// formState is a form's echo after a refused post: the fields as typed and the reason.
type formState struct {
	Err    string
	Values map[string]string
}

func (f formState) errorText() string { return f.Err }

// V is the value typed into field name.
func (f formState) V(name string) string { return f.Values[name] }

// formValues keeps the posted fields to show them again.
func formValues(r *http.Request, names ...string) map[string]string {
	m := make(map[string]string, len(names))
	for _, n := range names {
		m[n] = r.PostFormValue(n)
	}
	return m
}

// messageOf is the message a refused form shows.
func messageOf(err error) string {
	_, msg := endpoint.StatusOf(err)
	return msg
}

// redirect answers a form post with 303 See Other to target (post, redirect, get).
func redirect(w http.ResponseWriter, r *http.Request, target string) error {
	http.Redirect(w, r, target, http.StatusSeeOther)
	return nil
}

// imageURL is where an image path points: a remote https URL as it is, a stored key under
// /images/, nothing for anything else (a remote http: URL would be mixed content and a beacon).
func imageURL(p *string) string {
	if p == nil || *p == "" {
		return ""
	}
	switch v := *p; {
	case strings.HasPrefix(v, "https://"):
		return v
	case imageKey.MatchString(v):
		return "/images/" + v
	default:
		return ""
	}
}

// thumbURL is where the width-wide thumbnail of an image path (a *string or a string) is: for a
// stored image thumbnailed in that width, the thumbnail's key, which GET /images answers with
// the full image until the worker made it; for anything else, what imageURL says.
func thumbURL(p any, width int) string {
	var key *string
	switch v := p.(type) {
	case *string:
		key = v
	case string:
		key = &v
	}
	u := imageURL(key)
	if strings.HasPrefix(u, "/images/") && domain.HasThumb(*key, width) {
		return "/images/" + domain.ThumbKey(*key, width)
	}
	return u
}

// imageKey is the shape of a stored image's key (posters/…, avatars/…).
var imageKey = regexp.MustCompile(`^[A-Za-z0-9_-][A-Za-z0-9/_.-]*$`)

var mediumLabels = map[domain.WatchMedium]string{
	domain.MediumCinema: "Cinema", domain.MediumStreaming: "Streaming", domain.MediumTV: "TV",
	domain.MediumPhysicalMedia: "Physical media", domain.MediumDownload: "Download",
	domain.MediumMediaServer: "Media server",
}

// media are the watch media in the order the forms offer them.
var media = []domain.WatchMedium{domain.MediumCinema, domain.MediumStreaming, domain.MediumTV,
	domain.MediumPhysicalMedia, domain.MediumDownload, domain.MediumMediaServer}

func mediumLabel(m *domain.WatchMedium) string {
	if m == nil {
		return ""
	}
	if l, ok := mediumLabels[*m]; ok {
		return l
	}
	return string(*m)
}

// serveCSS serves the embedded stylesheet, cacheable and revalidated by its ETag.
func serveCSS(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=86400")
	w.Header().Set("ETag", styleETag)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if r.Header.Get("If-None-Match") == styleETag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	_, _ = w.Write(styleCSS)
}

// hstsMaxAge matches the API's: two years.
const hstsMaxAge = "max-age=63072000; includeSubDomains"

// contentPolicy allows only our stylesheet, our images and remote https posters, our web
// manifest, no script at
// all, and forms posting only to us: hostile text that slipped through escaping still could not
// run or send anything anywhere.
const contentPolicy = "default-src 'none'; style-src 'self'; img-src 'self' https:; manifest-src 'self'; form-action 'self'; " +
	"frame-ancestors 'none'; base-uri 'none'"

// contentPolicyFor is contentPolicy with the provider's image CDN allowed too when it is not
// https (a CDN on a private network, the tests' fake); https is allowed already.
func contentPolicyFor(providerImages string) string {
	u, err := url.Parse(providerImages)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		return contentPolicy
	}
	return strings.Replace(contentPolicy, "img-src 'self' https:", "img-src 'self' https: http://"+u.Host, 1)
}

// headers sets the pages' security headers; pages depend on the session cookie, so no cache
// may keep them.
func (s *Server) headers(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", cmp.Or(s.csp, contentPolicy))
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cache-Control", "no-store")
		h.Set("Vary", "Cookie")
		if s.secure {
			h.Set("Strict-Transport-Security", hstsMaxAge)
		}
		next.ServeHTTP(w, r)
	})
}

// statusOf is the HTTP status of a failure, by the one mapping every adapter shares.
func statusOf(err error) int {
	st, _ := endpoint.StatusOf(err)
	return st
}

// reviewStars draws a review's rating at its precision: five stars, a half one (½) where the
// precise rating has it (Letterboxd's 4.5 is ★★★★½, not ★★★★★).
func reviewStars(r domain.Review) string {
	if r.RatingPrecise == nil {
		n := max(0, min(r.Rating, domain.MaxRating))
		return strings.Repeat("★", n) + strings.Repeat("☆", domain.MaxRating-n)
	}
	halves := int(math.Round(*r.RatingPrecise * 2))
	halves = max(0, min(halves, 2*domain.MaxRating))
	full, half := halves/2, halves%2
	return strings.Repeat("★", full) + strings.Repeat("½", half) + strings.Repeat("☆", domain.MaxRating-full-half)
}

// reviewRating is a review's rating as a number at its precision: "4.5", "5".
func reviewRating(r domain.Review) string {
	if r.RatingPrecise != nil {
		return strconv.FormatFloat(*r.RatingPrecise, 'f', -1, 64)
	}
	return strconv.Itoa(r.Rating)
}

package web

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"time"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/endpoint"
	"moviesdiary/internal/usecase/auth"
)

// The session is the API's own pair of tokens, kept in two cookies: the short-lived access token
// and the refresh token. When the access token has expired the refresh token is rotated (the
// auth use case's families and replay detection apply), so a session lasts as long as the
// refresh token, not 15 minutes. Both cookies are HttpOnly and SameSite=Strict, and Secure and
// __Host- prefixed when BASE_URL is https.
const (
	accessCookie  = "md_access"
	refreshCookie = "md_refresh"
	csrfCookie    = "md_csrf"
	csrfField     = "csrf"
)

// visit is what a page knows of its request: the signed-in user (nil for a visitor) and the
// CSRF token its forms carry.
type visit struct {
	me   *domain.User
	csrf string
}

// signedIn reports whether a user is signed in.
func (v visit) signedIn() bool { return v.me != nil }

// access is who may open a page.
type access int

const (
	anyone access = iota // anyone may open it
	member               // a signed-in user; visitors go to the log-in page
)

// pageFunc is a page: it writes its response or returns the failure for page to render.
type pageFunc func(w http.ResponseWriter, r *http.Request, v visit) error

// cookieName is name with the __Host- prefix over https (the cookie then cannot be set by a
// sibling subdomain or over plain HTTP).
func (s *Server) cookieName(name string) string {
	if s.secure {
		return "__Host-" + name
	}
	return name
}

func (s *Server) setCookie(w http.ResponseWriter, name, value string, maxAge time.Duration) {
	http.SetCookie(w, &http.Cookie{
		Name: s.cookieName(name), Value: value, Path: "/", MaxAge: int(maxAge.Seconds()),
		HttpOnly: true, Secure: s.secure, SameSite: http.SameSiteStrictMode,
	})
}

func (s *Server) clearCookie(w http.ResponseWriter, name string) {
	http.SetCookie(w, &http.Cookie{Name: s.cookieName(name), Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, Secure: s.secure, SameSite: http.SameSiteStrictMode})
}

func (s *Server) cookie(r *http.Request, name string) string {
	c, err := r.Cookie(s.cookieName(name))
	if err != nil {
		return ""
	}
	return c.Value
}

// startSession keeps a logged-in (or refreshed) session in the cookies.
func (s *Server) startSession(w http.ResponseWriter, sess auth.Session) {
	s.setCookie(w, accessCookie, sess.Token, s.RefreshTTL)
	s.setCookie(w, refreshCookie, sess.RefreshToken, s.RefreshTTL)
}

// beginSession starts the session of a log-in and gives it a new CSRF token: a token known before
// the log-in (say, planted in a shared browser) does not carry over into the session.
func (s *Server) beginSession(w http.ResponseWriter, sess auth.Session) {
	s.startSession(w, sess)
	s.newCSRFToken(w)
}

func (s *Server) endSession(w http.ResponseWriter) {
	s.clearCookie(w, accessCookie)
	s.clearCookie(w, refreshCookie)
}

// viewer is the request's signed-in user, refreshing an expired access token; nil for a visitor.
// A session that can no longer be refreshed is cleared.
func (s *Server) viewer(w http.ResponseWriter, r *http.Request) (*domain.User, error) {
	ctx := r.Context()
	if tok := s.cookie(r, accessCookie); tok != "" {
		id, err := s.Authenticate(ctx, tok)
		if err == nil {
			u, err := s.Profiles.Get(ctx, id)
			if err == nil {
				return &u, nil
			}
			if !errors.Is(err, domain.ErrNotFound) {
				return nil, err
			}
		} else if status, _ := endpoint.StatusOf(err); status != http.StatusUnauthorized {
			return nil, err
		}
	}
	rt := s.cookie(r, refreshCookie)
	if rt == "" {
		if s.cookie(r, accessCookie) != "" {
			s.endSession(w)
		}
		return nil, nil
	}
	sess, err := s.refresher.refresh(ctx, rt)
	if err != nil {
		if status, _ := endpoint.StatusOf(err); status != http.StatusUnauthorized {
			return nil, err
		}
		s.endSession(w)
		return nil, nil
	}
	s.startSession(w, sess)
	u := sess.User
	return &u, nil
}

// csrfToken is the request's CSRF token, a new one set in its cookie when it has none. Forms
// echo it in a hidden field (double submit): another site can make a browser post to us, but
// it can neither read nor set this cookie, so it cannot know the value to put in the form.
func (s *Server) csrfToken(w http.ResponseWriter, r *http.Request) string {
	if t := s.cookie(r, csrfCookie); len(t) == 43 {
		return t
	}
	return s.newCSRFToken(w)
}

// newCSRFToken sets a new random CSRF token in its cookie and returns it. The token outlives a
// session, so a log-in form opened before signing in stays valid.
func (s *Server) newCSRFToken(w http.ResponseWriter) string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	t := base64.RawURLEncoding.EncodeToString(b)
	s.setCookie(w, csrfCookie, t, 365*24*time.Hour)
	return t
}

// errCSRF refuses a form post without the right token.
var errCSRF = endpoint.Fail(http.StatusForbidden,
	"This form has expired or did not come from this site. Go back, reload the page and try again.")

// checkCSRF accepts a POST whose form carries the cookie's token.
func (s *Server) checkCSRF(r *http.Request) error {
	want := s.cookie(r, csrfCookie)
	got := r.PostFormValue(csrfField)
	if want == "" || subtle.ConstantTimeCompare([]byte(want), []byte(got)) != 1 {
		return errCSRF
	}
	return nil
}

// maxForm bounds a form body (the profile form's images are the largest).
const maxForm = 5 << 20

// page wraps a page: it finds the viewer, sends visitors of member pages to log in, checks the
// CSRF token of every POST and renders a failure as an error page.
func (s *Server) page(who access, h pageFunc) http.HandlerFunc {
	return s.pageLimit(who, maxForm, h)
}

// pageLimit is page with a form body of up to limit bytes (the import form's file).
func (s *Server) pageLimit(who access, limit int64, h pageFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		v := visit{}
		var err error
		if v.me, err = s.viewer(w, r); err != nil {
			s.fail(w, r, v, err)
			return
		}
		v.csrf = s.csrfToken(w, r)
		if r.Method == http.MethodPost {
			r.Body = http.MaxBytesReader(w, r.Body, limit)
			if err := s.parseForm(r); err != nil {
				s.fail(w, r, v, err)
				return
			}
			if err := s.checkCSRF(r); err != nil {
				s.fail(w, r, v, err)
				return
			}
		}
		if who == member && v.me == nil {
			if r.Method == http.MethodGet {
				http.Redirect(w, r, "/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
				return
			}
			s.fail(w, r, v, domain.Errorf(domain.KindUnauthorized, "Sign in first."))
			return
		}
		if sent, err := s.sendToEnrol(w, r, v); sent || err != nil { // credentials.go
			if err != nil {
				s.fail(w, r, v, err)
			}
			return
		}
		if err := h(w, r, v); err != nil {
			s.fail(w, r, v, err)
		}
	}
}

// parseForm reads a urlencoded or multipart form.
func (s *Server) parseForm(r *http.Request) error {
	var err error
	if ct := r.Header.Get("Content-Type"); len(ct) >= 19 && ct[:19] == "multipart/form-data" {
		err = r.ParseMultipartForm(maxForm)
	} else {
		err = r.ParseForm()
	}
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return endpoint.Fail(http.StatusRequestEntityTooLarge, "The form is too large.")
		}
		return endpoint.Fail(http.StatusBadRequest, "The form could not be read.")
	}
	// The text rule every entry point keeps (domain.CheckText), on every field at once.
	for name, values := range r.Form {
		for _, v := range values {
			if err := domain.CheckText(name, v, domain.Prose(name)); err != nil {
				return err
			}
		}
	}
	return nil
}

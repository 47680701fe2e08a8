package web

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/endpoint"
)

// routes are every page and form target.
func (s *Server) routes(r chi.Router) {
	if !s.RootToClient {
		r.Get("/", s.page(anyone, s.home))
	}
	r.Get("/login", s.page(anyone, s.loginForm))
	r.Post("/login", s.page(anyone, s.login))
	r.Get("/register", s.page(anyone, s.registerForm))
	r.Post("/register", s.page(anyone, s.register))
	r.Post("/logout", s.page(anyone, s.logout))
	if s.SignOn != nil {
		r.Get("/auth/oidc/login", s.page(anyone, s.signOnLogin))
		r.Get("/auth/oidc/callback", s.page(anyone, s.signOnCallback))
	}
	r.Get("/password-reset", s.page(anyone, s.forgotForm))
	r.Post("/password-reset", s.page(anyone, s.forgot))
	r.Post("/password-reset/confirm", s.page(anyone, s.resetPassword))
	r.Get("/confirm-email", s.page(anyone, s.confirmEmailForm))
	r.Post("/confirm-email", s.page(anyone, s.confirmEmail))

	r.Get("/log", s.page(member, s.logForm))
	r.Post("/log", s.page(member, s.logReview))
	r.Get("/log/search", s.page(member, s.logSearch))
	r.Post("/log/pick", s.page(member, s.pickFilm))
	r.Get("/review/{id}/edit", s.page(member, s.editForm))
	r.Post("/review/{id}/edit", s.page(member, s.editReview))
	r.Post("/review/{id}/delete", s.page(member, s.deleteReview))
	r.Get("/diary", s.page(anyone, s.diary))

	r.Get("/movie/{id}", s.page(anyone, s.movie))
	r.Get("/person/{id}", s.page(anyone, s.person))
	r.Get("/search", s.page(anyone, s.search))

	r.Get("/watchlist", s.page(member, s.watchlist))
	r.Post("/watchlist/add", s.page(member, s.watchlistAdd))
	r.Post("/watchlist/remove", s.page(member, s.watchlistRemove))

	r.Get("/u/{id}", s.page(anyone, s.profile))
	if s.ActorPages {
		r.Get("/users/{id}", s.page(anyone, s.profile))
	}
	r.Get("/people", s.page(member, s.people))
	r.Post("/follow", s.page(member, s.follow))
	r.Post("/social/{action}", s.page(member, s.socialAction))
	r.Get("/blocked", s.page(member, s.blocked))

	r.Get("/wrapups", s.page(member, s.wrapUps))
	r.Get("/wrapups/{id}", s.page(member, s.wrapUp))
	r.Post("/wrapups", s.page(member, s.generateWrapUp))
	r.Get("/u/{id}/wrapup/{year}", s.page(anyone, s.sharedWrapUp))
	r.Get("/wrapup/{year}", s.page(anyone, s.sharedWrapUp))

	r.Get("/account", s.page(member, s.account))
	r.Post("/account/password", s.page(member, s.changePassword))
	r.Post("/account/email", s.page(member, s.changeEmail))
	r.Post("/account/email/resend", s.page(member, s.resendConfirmation))
	r.Post("/account/username", s.page(member, s.changeUsername))
	r.Post("/account/sessions/{id}/end", s.page(member, s.endLoginSession))
	r.Post("/account/delete", s.page(member, s.deleteAccount))
	s.credentialRoutes(r) // credentials.go

	r.Get("/settings", s.page(member, s.settings))
	r.Post("/settings/profile", s.page(member, s.saveProfile))
	r.Post("/settings/fields", s.page(member, s.saveFields))
	r.Post("/settings/federation", s.page(member, s.saveFederation))
	r.Post("/settings/goals", s.page(member, s.saveGoal))
	r.Post("/settings/wrapups", s.page(member, s.saveWrapUpVisibility))
	if s.Integrations != nil {
		r.Post("/settings/webhooks", s.page(member, s.createToken))
		r.Post("/settings/webhooks/{id}/delete", s.page(member, s.deleteToken))
		r.Post("/settings/queue/{id}/confirm", s.page(member, s.confirmWatch))
		r.Post("/settings/queue/{id}/dismiss", s.page(member, s.dismissWatch))
	}
	if s.Imports != nil {
		r := r.With(longRequest)
		r.Post("/settings/import", s.pageLimit(member, maxImportForm, s.uploadImport))
		r.Get("/import/{id}", s.page(member, s.importSession))
		r.Post("/import/{id}/mapping", s.page(member, s.mapImport))
		r.Post("/import/{id}/confirm", s.page(member, s.confirmImport))
	}
	if s.Export != nil {
		r.With(longRequest).Get("/settings/export", s.page(member, s.exportDiary))
	}
	if s.Archive != nil {
		r := r.With(longRequest)
		r.Get("/settings/archive", s.page(member, s.downloadArchive))
		r.Post("/settings/archive", s.pageLimit(member, maxArchiveForm, s.importArchive))
	}

	r.Get("/admin/domains", s.page(member, s.domains))
	r.Post("/admin/domains", s.page(member, s.domainAction))
	if s.Auth != nil {
		r.Get("/admin/accounts", s.page(member, s.adminAccounts))
		r.Post("/admin/accounts", s.page(member, s.adminAccountAction))
	}
}

// pathID is the {name} UUID of the path, routed here or (the actor page) by the federation's
// router.
func pathID(r *http.Request, name string) (uuid.UUID, error) {
	v := chi.URLParam(r, name)
	if v == "" {
		v = r.PathValue(name)
	}
	id, err := uuid.Parse(v)
	if err != nil {
		return uuid.Nil, endpoint.Fail(http.StatusNotFound, "No such page.")
	}
	return id, nil
}

// pager is a list's position and the links to its neighbours.
type pager struct {
	Number, Pages, Total int
	Prev, Next           string
}

// pageOf reads ?page=N (from 1) as a window of size items.
func pageOf(r *http.Request, size int) domain.Page {
	n, err := strconv.Atoi(r.URL.Query().Get("page"))
	if err != nil || n < 1 {
		n = 1
	}
	n = min(n, 1_000_000/size)
	return domain.Page{Limit: size, Offset: (n - 1) * size}
}

// newPager links the pages of a list of total items around p, keeping the request's other query
// parameters.
func newPager(r *http.Request, p domain.Page, total int) pager {
	n := p.Offset/p.Limit + 1
	pg := pager{Number: n, Total: total, Pages: max(1, (total+p.Limit-1)/p.Limit)}
	link := func(to int) string {
		q := url.Values{}
		for k, v := range r.URL.Query() {
			q[k] = v
		}
		q.Set("page", strconv.Itoa(to))
		return r.URL.Path + "?" + q.Encode()
	}
	if n > 1 {
		pg.Prev = link(n - 1)
	}
	if n < pg.Pages {
		pg.Next = link(n + 1)
	}
	return pg
}

// optionalUUID parses a form or query value that may be empty.
func optionalUUID(v string) (*uuid.UUID, error) {
	if v == "" {
		return nil, nil
	}
	id, err := uuid.Parse(v)
	if err != nil {
		return nil, domain.Invalid("Not a valid id: %q", v)
	}
	return &id, nil
}

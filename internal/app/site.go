package app

import (
	"net/http"

	"moviesdiary/internal/adapters/httpapi"
	"moviesdiary/internal/adapters/web"
	"moviesdiary/internal/usecase/movie"
)

// Site is the server's whole HTTP surface: the web pages (adapters/web) in front of the REST API
// and the federation routes, over the same use cases.
type Site struct {
	API *httpapi.Server
	Web *web.Server
}

// NewSite builds the API with NewAPI and the web pages over its use cases. The pages answer
// their own paths and hand every other request to the API; with federation they also answer
// browsers at actor URLs (/users/{id}), which serve ActivityPub JSON to federation clients.
// With Options.RootToClient, "/" stays the API's (WEB_CLIENT_DIR's client).
func NewSite(store Store, o Options) (*Site, error) {
	api, err := NewAPI(store, o)
	if err != nil {
		return nil, err
	}
	d := api.Deps
	ui, err := web.New(web.Deps{
		Log: d.Log, Observe: d.Observe, BaseURL: o.BaseURL, RefreshTTL: o.RefreshTTL, Authenticate: d.Authenticate,
		AuthRateLimit: o.AuthRateLimit, TrustedProxies: o.TrustedProxies,
		Auth: d.Auth, Reviews: d.Reviews, Movies: d.Movies, Watchlist: d.Watchlist, Social: d.Social,
		WrapUps: d.WrapUps, Users: d.Users, Search: d.Search, Profiles: d.Profiles, Goals: d.Goals,
		Moderation: d.Moderation, Integrations: d.Integrations, Imports: d.Imports, Export: d.Export, Archive: d.Archive,
		RootToClient: o.RootToClient, ActorPages: o.Federation == nil,
		Finder: movie.NewFinder(store, o.Metadata), ProviderImageURL: o.MetadataImageURL,
	})
	if err != nil {
		return nil, err
	}
	if o.SignOn != nil {
		ui.SignOn = o.SignOn.pages(d.Auth, store, o.Secret, d.Log)
	}
	if o.Federation != nil {
		o.Federation.SetBrowserPage(ui.ProfilePage())
	}
	return &Site{API: api, Web: ui}, nil
}

// Handler is the pages in front of the API's router.
func (s *Site) Handler() http.Handler { return s.Web.Handler(s.API.Handler()) }

// Package app assembles the server's HTTP API over a store: the token signer, the use cases and
// the router. cmd/server calls it with its configuration; tests and the benchmark call it with
// theirs, so all three run the same wiring.
package app

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/netip"
	"net/url"
	"os"
	"time"

	"moviesdiary/internal/adapters/activitypub"
	"moviesdiary/internal/adapters/httpapi"
	"moviesdiary/internal/adapters/metrics"
	"moviesdiary/internal/adapters/tabular"
	"moviesdiary/internal/adapters/token"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/endpoint"
	"moviesdiary/internal/usecase/archive"
	"moviesdiary/internal/usecase/auth"
	"moviesdiary/internal/usecase/goal"
	"moviesdiary/internal/usecase/importer"
	"moviesdiary/internal/usecase/integration"
	"moviesdiary/internal/usecase/moderation"
	"moviesdiary/internal/usecase/movie"
	"moviesdiary/internal/usecase/profile"
	"moviesdiary/internal/usecase/review"
	"moviesdiary/internal/usecase/search"
	"moviesdiary/internal/usecase/social"
	"moviesdiary/internal/usecase/user"
	"moviesdiary/internal/usecase/watchlist"
	"moviesdiary/internal/usecase/wrapup"
)

// Options configure the API; zero fields take the defaults of the packages they go to.
type Options struct {
	Log     *slog.Logger
	Ready   httpapi.Readiness // default: the store answers a read and can take writes
	BaseURL string
	// Secret signs access tokens (at least token.MinSecretLen bytes).
	Secret     []byte
	TokenTTL   time.Duration
	RefreshTTL time.Duration
	// Registration is who may register (REGISTRATION_MODE); empty: nobody (closed).
	Registration domain.RegistrationMode
	// AllowRegistration is the original's open registration where the first account becomes
	// the admin (tests, benchmarks); it overrides Registration. cmd/server never sets it: the
	// first admin there comes from the setup link or the CLI.
	AllowRegistration bool
	AuthRateLimit     int
	// TrustedProxies may name the client in X-Forwarded-For (TRUSTED_PROXIES); nil for none.
	TrustedProxies []netip.Prefix
	// Metadata resolves unknown external ids (TMDb); nil for none.
	Metadata movie.Metadata
	// MetadataImageURL is the provider's image CDN (TMDB_IMAGE_URL) the log form's search results
	// show posters from; empty for none.
	MetadataImageURL string
	// Images is the image store (directory or S3 bucket) GET /images/{key} serves and profile
	// uploads go to; nil for none.
	Images httpapi.ImageStore
	// Hasher hashes passwords; zero for auth.DefaultHasher.
	Hasher auth.Hasher
	// Mail is true when the worker sends mail (SMTP_HOST): password reset links, and e-mail
	// changes and registrations confirmed by a link.
	Mail bool
	// Metrics, when set, counts every request. The API does not serve them: cmd/server does, on
	// SERVER_METRICS_ADDR, apart from the public port.
	Metrics *metrics.Server
	// Federation, when set, serves the ActivityPub routes and lets users follow remote actors.
	Federation *activitypub.Federation
	// CORSOrigins may call the API from a browser with credentials; nil: any origin, without.
	CORSOrigins []string
	// WebClientDir is a built web client to serve at /app/; empty for none.
	WebClientDir string
	// RootToClient leaves "/" to the API (WEB_CLIENT_DIR's client) instead of the web pages'
	// home page (NewSite).
	RootToClient bool
	// SignOn, when set, offers single sign-on with an OpenID provider on the web pages (NewSite).
	SignOn *SignOn
	// RequireTwoFactor makes every user turn two factors on before anything else
	// (REQUIRE_TWO_FACTOR).
	RequireTwoFactor bool
}

// NewAPI builds the HTTP server with every use case over store.
func NewAPI(store Store, o Options) (*httpapi.Server, error) {
	signer, err := token.New(o.Secret, o.TokenTTL)
	if err != nil {
		return nil, err
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.Ready == nil {
		o.Ready = func(ctx context.Context) error {
			if err := store.Ping(ctx); err != nil {
				return err
			}
			return store.CheckWritable(ctx)
		}
	}
	// Title searches are cached: an import names the same films many times, and each row's
	// resolution starts with the same search.
	md := o.Metadata
	if md != nil {
		md = movie.NewSearchCache(md, movie.SearchCacheConfig{})
	}
	resolver := movie.NewResolver(store, md, o.Log)
	soc, err := social.NewService(store, o.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("BASE_URL: %w", err)
	}
	var webClient fs.FS
	if o.WebClientDir != "" {
		// os.Root keeps every served path inside the directory, symlinks included.
		root, err := os.OpenRoot(o.WebClientDir)
		if err != nil {
			return nil, fmt.Errorf("WEB_CLIENT_DIR: %w", err)
		}
		webClient = root.FS()
	}
	var routes []endpoint.Route
	if f := o.Federation; f != nil {
		soc.SetRemoteResolver(f.ResolveHandle)
		routes = f.Routes()
	}
	var observe func(string, string, int, time.Duration)
	if o.Metrics != nil {
		observe = o.Metrics.ObserveRequest
	}
	authn := auth.NewAuthenticator(signer.Verify, store, 0, nil)
	exporter, profiles, users := review.NewExporter(store), profile.NewService(store, imageObjects(o.Images)), user.NewService(store)
	wl, goals, wrapups := watchlist.NewService(store, resolver), goal.NewService(store), wrapup.NewService(store)
	imports := importer.NewService(store, openTabular, resolver, o.Log)
	arch, err := archive.NewService(archive.Deps{BaseURL: o.BaseURL, Accounts: profiles, Users: store, Settings: users,
		WrapUps: wrapups, Diary: exporter, Watchlist: wl, Goals: goals, Social: soc, Imports: imports})
	if err != nil {
		return nil, fmt.Errorf("BASE_URL: %w", err)
	}
	return httpapi.New(httpapi.Deps{
		Observe: observe, Log: o.Log, Ready: o.Ready, BaseURL: o.BaseURL, Verify: signer.Verify, AuthRateLimit: o.AuthRateLimit,
		Authenticate: authn.Authenticate, TrustedProxies: o.TrustedProxies,
		Auth: auth.New(store, signer, auth.Config{
			Registration: registration(o), FirstUserAdmin: o.AllowRegistration, RefreshTTL: o.RefreshTTL, Hasher: o.Hasher,
			Forget: authn.Forget, Mail: o.Mail, Challenges: signer, RequireTwoFactor: o.RequireTwoFactor, Issuer: issuer(o.BaseURL),
		}),
		Reviews:   review.NewService(store, store, resolver),
		Export:    exporter,
		Feeds:     review.NewFeeds(store),
		Movies:    movie.NewService(store),
		Watchlist: wl,
		Social:    soc,
		WrapUps:   wrapups,
		Users:     users,
		Search:    search.NewService(store, store),
		Images:    o.Images,
		Routes:    routes,

		DataVersion: store.DataVersion,

		Profiles:    profiles,
		Goals:       goals,
		Moderation:  moderation.NewService(store),
		CORSOrigins: o.CORSOrigins, WebClient: webClient,
		// Integrations share the reviews' resolver: a confirmed watch names its movie as POST /reviews does.
		Integrations: integration.NewService(store, resolver, nil),
		Imports:      imports,
		Archive:      arch,
	}), nil
}

// registration is the mode the options ask for.
func registration(o Options) domain.RegistrationMode {
	if o.AllowRegistration {
		return domain.RegistrationOpen
	}
	return cmp.Or(o.Registration, domain.RegistrationClosed)
}

// issuer names the instance in authenticator apps: BASE_URL's host.
func issuer(baseURL string) string {
	if u, err := url.Parse(baseURL); err == nil && u.Host != "" {
		return u.Host
	}
	return ""
}

// openTabular reads an import upload with the tabular parser.
func openTabular(r io.Reader, format string) (importer.File, error) { return tabular.Open(r, format) }

// imageObjects is the image store as the profile uploads' storage, nil when there is none
// (uploads are then refused) or it cannot be written.
func imageObjects(images httpapi.ImageStore) profile.Objects {
	if o, ok := images.(profile.Objects); ok {
		return o
	}
	return nil
}

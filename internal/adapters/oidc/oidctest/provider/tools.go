//go:build tools

// Package provider pins the OpenID provider the single sign-on tests run: zitadel/oidc's example
// provider (Apache 2.0), a real OpenID Connect server with in-memory users and an HTML login form.
// It is its own module so its dependencies stay out of moviesdiary's go.mod; oidctest builds the
// binary from here.
package provider

import _ "github.com/zitadel/oidc/v3/example/server"

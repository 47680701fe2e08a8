package oidc

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	gooidc "github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/auth"
)

// AuthURL is where the browser goes to sign in at the provider: the authorization request
// carries state (which must come back in the callback's query), nonce (which must come back in
// the ID token) and the S256 challenge of the PKCE verifier (which the code's exchange sends).
func (p *Provider) AuthURL(ctx context.Context, state, nonce, verifier string) (string, error) {
	oc, _, err := p.discover(ctx)
	if err != nil {
		return "", err
	}
	return oc.AuthCodeURL(state, gooidc.Nonce(nonce), oauth2.S256ChallengeOption(verifier)), nil
}

// The failures of a callback: the request's (400) or the provider's answer's.
var (
	errCodeRefused = domain.Invalid("The sign-in provider refused the sign-in code (it may be used or expired). Start the sign-in again")
	errNonce       = domain.Invalid("The sign-in's ID token was not made for this sign-in (its nonce differs). Start the sign-in again")
)

// Exchange redeems a callback's code with the sign-in's PKCE verifier, verifies the ID token
// (signature, issuer, audience, expiry, and the sign-in's nonce) and reads the person's claims
// from it and from the UserInfo endpoint (providers put the profile claims in either).
func (p *Provider) Exchange(ctx context.Context, code, verifier, nonce string) (auth.Claims, error) {
	oc, idVerifier, err := p.discover(ctx)
	if err != nil {
		return auth.Claims{}, err
	}
	hctx := p.withClient(ctx)
	tok, err := oc.Exchange(hctx, code, oauth2.VerifierOption(verifier))
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) && re.Response != nil && re.Response.StatusCode < 500 {
			return auth.Claims{}, errCodeRefused
		}
		return auth.Claims{}, errUnreachable(err)
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return auth.Claims{}, domain.Invalid("The sign-in provider sent no ID token: is the openid scope allowed?")
	}
	idt, err := idVerifier.Verify(hctx, raw)
	if err != nil {
		return auth.Claims{}, domain.Invalid("The sign-in provider's ID token did not verify: %v", err)
	}
	if idt.Nonce != nonce {
		return auth.Claims{}, errNonce
	}
	var claims map[string]any
	if err := idt.Claims(&claims); err != nil {
		return auth.Claims{}, domain.Invalid("The sign-in provider's ID token has unreadable claims: %v", err)
	}
	if info, err := p.userInfo(hctx, tok); err != nil {
		return auth.Claims{}, err
	} else if info != nil {
		if sub, _ := info["sub"].(string); sub != idt.Subject {
			return auth.Claims{}, domain.Invalid("The sign-in provider's UserInfo names another subject than its ID token")
		}
		for k, v := range info { // the ID token's claims win: they are signed
			if _, ok := claims[k]; !ok {
				claims[k] = v
			}
		}
	}
	return p.claims(idt.Issuer, idt.Subject, claims), nil
}

// userInfo is the UserInfo endpoint's claims, nil when the provider has none.
func (p *Provider) userInfo(ctx context.Context, tok *oauth2.Token) (map[string]any, error) {
	p.mu.Lock()
	provider := p.provider
	p.mu.Unlock()
	if provider.UserInfoEndpoint() == "" {
		return nil, nil
	}
	info, err := provider.UserInfo(ctx, oauth2.StaticTokenSource(tok))
	if err != nil {
		return nil, errUnreachable(fmt.Errorf("userinfo: %w", err))
	}
	var claims map[string]any
	if err := info.Claims(&claims); err != nil {
		return nil, domain.Invalid("The sign-in provider's UserInfo is unreadable: %v", err)
	}
	return claims, nil
}

// claims picks what the auth use case needs out of the merged claims.
func (p *Provider) claims(issuer, subject string, m map[string]any) auth.Claims {
	str := func(k string) string { s, _ := m[k].(string); return s }
	c := auth.Claims{Identity: domain.Identity{Issuer: issuer, Subject: subject},
		Email: str("email"), PreferredUsername: str("preferred_username"), Name: str("name"),
		Groups: groups(m, p.cfg.GroupsClaim)}
	switch v := m["email_verified"].(type) { // some providers send the string "true"
	case bool:
		c.EmailVerified = v
	case string:
		c.EmailVerified = v == "true"
	}
	return c
}

// groups reads the groups claim at path (object keys joined by dots): a list of strings, one
// string, or an object whose keys are the groups; nil when absent.
func groups(m map[string]any, path string) []string {
	var v any = m
	if _, ok := m[path]; ok { // a top-level claim whose name has dots
		v = m[path]
	} else {
		for _, key := range strings.Split(path, ".") {
			obj, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = obj[key]
		}
	}
	switch g := v.(type) {
	case string:
		return []string{g}
	case []any:
		var out []string
		for _, e := range g {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	case map[string]any:
		var out []string
		for k := range g {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	return nil
}

package domain

// Identity names a person at an OpenID Connect provider: its issuer URL and their subject (the
// ID token's iss and sub). The provider never gives the pair to anyone else, so it, not the
// e-mail address, is what ties a single sign-on to a local account.
type Identity struct {
	Issuer  string
	Subject string
}

package domain

// Actor is the other party in a social list: a local user (Username set) or a remote actor.
type Actor struct {
	Identity    SocialIdentity
	Username    string
	DisplayName *string
}

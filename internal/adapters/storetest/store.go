package storetest

import "testing"

// Store is every area of the repository suite that RunStore covers: what both SQL stores
// implement.
type Store interface {
	Users
	UserAdmin
	Accounts
	MailLinks
	Credentials
	Reviews
	Movies
	Goals
	WrapUps
	DomainBlocks
	Images
	WatchQueue
	Inbound
	Social
	Watchlist
	EventCounter
	AtomicWrites
}

// RunStore runs each area of the repository suite as a subtest named for it, against the stores
// open returns: the one list both adapters' TestStoreSuite register.
func RunStore[S Store](t *testing.T, open func(*testing.T, *Faults) S) {
	t.Run("Users", func(t *testing.T) {
		RunUsers(t, func(t *testing.T, f *Faults) Users { return open(t, f) })
	})
	t.Run("UserAdmin", func(t *testing.T) {
		RunUserAdmin(t, func(t *testing.T, f *Faults) UserAdmin { return open(t, f) })
	})
	t.Run("Accounts", func(t *testing.T) {
		RunAccounts(t, func(t *testing.T, f *Faults) Accounts { return open(t, f) })
	})
	t.Run("MailLinks", func(t *testing.T) {
		RunMailLinks(t, func(t *testing.T, f *Faults) MailLinks { return open(t, f) })
	})
	t.Run("Credentials", func(t *testing.T) {
		RunCredentials(t, func(t *testing.T, f *Faults) Credentials { return open(t, f) })
	})
	t.Run("Reviews", func(t *testing.T) {
		RunReviews(t, func(t *testing.T, f *Faults) Reviews { return open(t, f) })
	})
	t.Run("Movies", func(t *testing.T) {
		RunMovies(t, func(t *testing.T, f *Faults) Movies { return open(t, f) })
	})
	t.Run("Goals", func(t *testing.T) {
		RunGoals(t, func(t *testing.T, f *Faults) Goals { return open(t, f) })
	})
	t.Run("WrapUps", func(t *testing.T) {
		RunWrapUps(t, func(t *testing.T, f *Faults) WrapUps { return open(t, f) })
	})
	t.Run("DomainBlocks", func(t *testing.T) {
		RunDomainBlocks(t, func(t *testing.T, f *Faults) DomainBlocks { return open(t, f) })
	})
	t.Run("Images", func(t *testing.T) {
		RunImages(t, func(t *testing.T, f *Faults) Images { return open(t, f) })
	})
	t.Run("WatchQueue", func(t *testing.T) {
		RunWatchQueue(t, func(t *testing.T, f *Faults) WatchQueue { return open(t, f) })
	})
	t.Run("Inbound", func(t *testing.T) {
		RunInbound(t, func(t *testing.T, f *Faults) Inbound { return open(t, f) })
	})
	t.Run("Social", func(t *testing.T) {
		RunSocial(t, func(t *testing.T, f *Faults) Social { return open(t, f) })
	})
	t.Run("Watchlist", func(t *testing.T) {
		RunWatchlist(t, func(t *testing.T, f *Faults) Watchlist { return open(t, f) })
	})
	t.Run("EventsSince", func(t *testing.T) {
		RunEventsSince(t, func(t *testing.T, f *Faults) EventCounter { return open(t, f) })
	})
	t.Run("AtomicWrites", func(t *testing.T) {
		RunAtomicWrites(t, func(t *testing.T, f *Faults) AtomicWrites { return open(t, f) })
	})
}

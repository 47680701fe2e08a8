package social

import (
	"context"
	"errors"
	"testing"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// fakeStore knows one user, bob, and records follows; other methods panic.
type fakeStore struct {
	Store
	bob      domain.User
	followed []domain.SocialIdentity
}

func (f *fakeStore) UserByUsername(_ context.Context, name string) (domain.User, error) {
	if name == "bob" || name == "Bob" {
		return f.bob, nil
	}
	return domain.User{}, domain.NotFound("no user %s", name)
}

func (f *fakeStore) UserByID(_ context.Context, id uuid.UUID) (domain.User, error) {
	if id == f.bob.ID {
		return f.bob, nil
	}
	return domain.User{}, domain.NotFound("no user %s", id)
}

func (f *fakeStore) Follow(_ context.Context, _ uuid.UUID, target domain.SocialIdentity) error {
	f.followed = append(f.followed, target)
	return nil
}

func TestFollowHandles(t *testing.T) {
	me := uuid.New()
	f := &fakeStore{bob: domain.User{ID: uuid.New(), Username: "bob"}}
	s, err := NewService(f, "https://diary.example:8443/")
	if err != nil {
		t.Fatal(err)
	}
	bobURL := s.ActorURL(f.bob.ID)
	if bobURL != "https://diary.example:8443/users/"+f.bob.ID.String() {
		t.Fatalf("ActorURL = %s", bobURL)
	}
	for _, h := range []string{"bob", "@bob", "Bob", "bob@diary.example:8443", "@bob@DIARY.example:8443", bobURL, "local:" + f.bob.ID.String()} {
		f.followed = nil
		if err := s.Follow(context.Background(), me, h); err != nil || len(f.followed) != 1 || f.followed[0] != domain.LocalIdentity(f.bob.ID) {
			t.Errorf("follow %q: %v, followed %v", h, err, f.followed)
		}
	}
	for h, want := range map[string]error{
		"@bob@mastodon.social":              domain.ErrUnsupported,
		"https://mastodon.social/users/bob": domain.ErrUnsupported,
		"carol":                             domain.ErrNotFound,
		"local:" + uuid.NewString():         domain.ErrNotFound,
		"@":                                 domain.ErrInvalid,
		"https://diary.example:8443/users/not-a-uuid": domain.ErrInvalid,
	} {
		if err := s.Follow(context.Background(), me, h); !errors.Is(err, want) {
			t.Errorf("follow %q: %v, want %v", h, err, want)
		}
	}
	if err := s.Follow(context.Background(), f.bob.ID, "bob"); !errors.Is(err, domain.ErrInvalid) {
		t.Errorf("self-follow: %v, want invalid", err)
	}
}

func TestParseActor(t *testing.T) {
	s, _ := NewService(nil, "http://localhost:3000")
	id := uuid.New()
	for in, want := range map[string]domain.SocialIdentity{
		"http://localhost:3000/users/" + id.String(): domain.LocalIdentity(id),
		"local:" + id.String():                       domain.LocalIdentity(id),
		"https://remote.example/users/alice":         domain.RemoteIdentity("https://remote.example/users/alice"),
	} {
		if got, err := s.ParseActor(in); err != nil || got != want {
			t.Errorf("ParseActor(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"alice", "ftp://remote.example/alice", "local:x", "https://"} {
		if _, err := s.ParseActor(in); !errors.Is(err, domain.ErrInvalid) {
			t.Errorf("ParseActor(%q) = %v, want invalid", in, err)
		}
	}
}

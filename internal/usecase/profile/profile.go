// Package profile is the own-profile use cases: read it, replace its text and images, set its
// fields. Every change commits UserUpdated (federation sends Update(Person)) and, when the alias
// changes, UserAccountMoved (federation sends Move) with it.
package profile

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// Store reads users and changes profiles.
type Store interface {
	UserByID(ctx context.Context, id uuid.UUID) (domain.User, error)
	// UpdateProfile runs update on the stored profile and saves the result with the events update
	// returns, in one transaction.
	UpdateProfile(ctx context.Context, id uuid.UUID, update func(p *domain.Profile) ([]domain.Event, error)) error
}

// Objects is the image storage the originals are written to; the worker converts them.
type Objects interface {
	Put(ctx context.Context, key string, data []byte) error
}

// Service runs the profile use cases.
type Service struct {
	store   Store
	objects Objects
}

// NewService builds the service; objects nil refuses image uploads.
func NewService(store Store, objects Objects) *Service {
	return &Service{store: store, objects: objects}
}

// Get returns the caller's account with its profile.
func (s *Service) Get(ctx context.Context, me uuid.UUID) (domain.User, error) {
	return s.store.UserByID(ctx, me)
}

// UpdateCommand replaces the caller's profile text (an empty field clears it, as in the
// original) and, when given, an image (nil keeps the current one).
type UpdateCommand struct {
	UserID      uuid.UUID
	DisplayName string
	Bio         string
	AlsoKnownAs string
	Avatar      []byte
	Banner      []byte
}

// errNoStorage refuses an upload on a server without image storage.
var errNoStorage = domain.Errorf(domain.KindUnsupported, "image uploads are not available on this server")

// Update validates the command, stores each new image's original under a key derived from its
// content, and saves the profile with UserUpdated, UserAccountMoved when the alias changes to
// another actor, and ImageStored for each new image (the worker converts it to WebP).
func (s *Service) Update(ctx context.Context, c UpdateCommand) error {
	name, bio, aka, err := domain.NewProfileText(c.DisplayName, c.Bio, c.AlsoKnownAs)
	if err != nil {
		return err
	}
	current, err := s.store.UserByID(ctx, c.UserID)
	if err != nil {
		return err
	}
	avatar, err := s.storeImage(ctx, AvatarKind, c.UserID, c.Avatar, current.Profile.AvatarKey)
	if err != nil {
		return err
	}
	banner, err := s.storeImage(ctx, BannerKind, c.UserID, c.Banner, current.Profile.BannerKey)
	if err != nil {
		return err
	}
	return s.store.UpdateProfile(ctx, c.UserID, func(p *domain.Profile) ([]domain.Event, error) {
		events := []domain.Event{domain.UserUpdated{UserID: c.UserID}}
		if aka != "" && aka != p.AlsoKnownAs {
			events = append(events, domain.UserAccountMoved{UserID: c.UserID, NewActorURL: aka})
		}
		p.DisplayName, p.Bio, p.AlsoKnownAs = name, bio, aka
		for _, img := range []struct {
			key string
			dst *string
		}{{avatar, &p.AvatarKey}, {banner, &p.BannerKey}} {
			if img.key != "" && !sameImage(img.key, *img.dst) {
				*img.dst = img.key
				events = append(events, domain.ImageStored{Key: img.key})
			}
		}
		return events, nil
	})
}

// SetFields replaces the caller's profile fields, with UserUpdated.
func (s *Service) SetFields(ctx context.Context, me uuid.UUID, fields []domain.ProfileField) error {
	fields, err := domain.NewProfileFields(fields)
	if err != nil {
		return err
	}
	return s.store.UpdateProfile(ctx, me, func(p *domain.Profile) ([]domain.Event, error) {
		p.Fields = fields
		return []domain.Event{domain.UserUpdated{UserID: me}}, nil
	})
}

// storeImage validates an upload and writes its original unless the profile already shows it
// (or its conversion). It returns the key, "" when there is no upload.
func (s *Service) storeImage(ctx context.Context, kind string, user uuid.UUID, data []byte, current string) (string, error) {
	if data == nil {
		return "", nil
	}
	format, err := CheckImage(kind, data)
	if err != nil {
		return "", err
	}
	key := imageKey(kind, user, data, format)
	if sameImage(key, current) {
		return key, nil
	}
	if s.objects == nil {
		return "", errNoStorage
	}
	if err := s.objects.Put(ctx, key, data); err != nil {
		return "", fmt.Errorf("store %s: %w", kind, err)
	}
	return key, nil
}

// sameImage reports whether the profile's current key is key or its conversion.
func sameImage(key, current string) bool {
	return current != "" && (current == key || current == domain.ConvertedKey(key))
}

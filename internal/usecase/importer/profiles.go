package importer

import (
	"context"
	"strings"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// maxProfileName bounds a profile's name, in bytes.
const maxProfileName = 255

// SaveProfile saves a session's current mapping under name and returns the profile's id.
func (s *Service) SaveProfile(ctx context.Context, userID, sessionID uuid.UUID, name string) (uuid.UUID, error) {
	name = strings.TrimSpace(name)
	if name == "" || len(name) > maxProfileName {
		return uuid.Nil, domain.Invalid("name must be 1 to %d characters", maxProfileName)
	}
	sess, err := s.Get(ctx, userID, sessionID)
	if err != nil {
		return uuid.Nil, err
	}
	if sess.Mappings == nil {
		return uuid.Nil, domain.Invalid("the session has no mapping to save")
	}
	id, err := uuid.NewV7()
	if err != nil {
		return uuid.Nil, err
	}
	p := Profile{ID: id, UserID: userID, Name: name, Mappings: sess.Mappings, CreatedAt: s.now().UTC()}
	if err := s.store.SaveImportProfile(ctx, p); err != nil {
		return uuid.Nil, err
	}
	return id, nil
}

// Profiles lists the user's saved profiles, oldest first.
func (s *Service) Profiles(ctx context.Context, userID uuid.UUID) ([]Profile, error) {
	return s.store.ImportProfiles(ctx, userID)
}

// DeleteProfile deletes one of the user's profiles (another user's is KindNotFound).
func (s *Service) DeleteProfile(ctx context.Context, userID, id uuid.UUID) error {
	return s.store.DeleteImportProfile(ctx, userID, id)
}

// ApplyProfile sets a session's mapping from one of the user's profiles and returns the row count.
func (s *Service) ApplyProfile(ctx context.Context, userID, sessionID, profileID uuid.UUID) (int, error) {
	p, err := s.store.ImportProfile(ctx, userID, profileID)
	if err != nil {
		return 0, err
	}
	return s.applyMappings(ctx, userID, sessionID, p.Mappings)
}

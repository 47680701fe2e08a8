package importer

import (
	"context"
	"strings"
	"time"

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

// RestoreProfile saves a profile an account archive holds, under its name and creation time,
// unless the user has a profile of that name already; it reports whether it saved one. The
// mappings are checked as a mapping request is (known fields, a positive rating scale).
func (s *Service) RestoreProfile(ctx context.Context, userID uuid.UUID, name string, ms []Mapping, createdAt time.Time) (bool, error) {
	name = strings.TrimSpace(name)
	if name == "" || len(name) > maxProfileName {
		return false, domain.Invalid("import profile name must be 1 to %d characters", maxProfileName)
	}
	for _, m := range ms {
		if !m.Field.known() {
			return false, domain.Invalid("import profile %q maps onto an unknown field %q", name, m.Field)
		}
		if m.RatingScale != nil && !(*m.RatingScale > 0) {
			return false, domain.Invalid("import profile %q has a rating scale that is not positive", name)
		}
	}
	have, err := s.store.ImportProfiles(ctx, userID)
	if err != nil {
		return false, err
	}
	for _, p := range have {
		if p.Name == name {
			return false, nil
		}
	}
	id, err := uuid.NewV7()
	if err != nil {
		return false, err
	}
	if createdAt.IsZero() {
		createdAt = s.now()
	}
	return true, s.store.SaveImportProfile(ctx, Profile{ID: id, UserID: userID, Name: name, Mappings: ms, CreatedAt: createdAt.UTC()})
}

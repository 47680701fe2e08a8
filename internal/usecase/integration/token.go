package integration

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// maxLabelBytes bounds a token's label.
const maxLabelBytes = 100

// TokenRequest is a new webhook token as a user asks for it.
type TokenRequest struct {
	Provider          string
	Label             *string
	AutoConfirmRating *int
}

// CreateToken makes a webhook token: 32 random bytes shown once as 64 hex characters (the
// returned string); only its SHA-256 is stored.
func (s *Service) CreateToken(ctx context.Context, userID uuid.UUID, req TokenRequest) (domain.WebhookToken, string, error) {
	provider, err := domain.ParseWatchSource(req.Provider)
	if err != nil {
		return domain.WebhookToken{}, "", err
	}
	label, err := normalizeLabel(req.Label)
	if err != nil {
		return domain.WebhookToken{}, "", err
	}
	if req.AutoConfirmRating != nil {
		if err := domain.ValidateRating(*req.AutoConfirmRating); err != nil {
			return domain.WebhookToken{}, "", err
		}
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return domain.WebhookToken{}, "", err
	}
	secret := hex.EncodeToString(raw)
	id, err := uuid.NewV7()
	if err != nil {
		return domain.WebhookToken{}, "", err
	}
	t := domain.WebhookToken{
		ID: id, UserID: userID, Provider: provider, Label: label, Hash: HashToken(secret),
		AutoConfirmRating: req.AutoConfirmRating, CreatedAt: s.now().UTC(),
	}
	if err := s.store.CreateWebhookToken(ctx, t); err != nil {
		return domain.WebhookToken{}, "", err
	}
	return t, secret, nil
}

func normalizeLabel(l *string) (*string, error) {
	if l == nil {
		return nil, nil
	}
	s := strings.TrimSpace(*l)
	if s == "" {
		return nil, nil
	}
	if len(s) > maxLabelBytes {
		return nil, domain.Invalid("Label exceeds %d characters", maxLabelBytes)
	}
	return &s, nil
}

// Tokens lists the user's webhook tokens (never the tokens themselves).
func (s *Service) Tokens(ctx context.Context, userID uuid.UUID) ([]domain.WebhookToken, error) {
	return s.store.WebhookTokens(ctx, userID)
}

// RevokeToken deletes one of the user's tokens; another user's is not found.
func (s *Service) RevokeToken(ctx context.Context, userID, id uuid.UUID) error {
	return s.store.DeleteWebhookToken(ctx, userID, id)
}

// HashToken is the stored form of a webhook token: its SHA-256, hex.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// errBadToken answers a missing, unknown or revoked token, and one made for another provider.
var errBadToken = domain.Errorf(domain.KindUnauthorized, "Unauthorized: invalid webhook token")

// Authenticate returns the token a webhook request carries, for the route of source, and
// records its use.
func (s *Service) Authenticate(ctx context.Context, source domain.WatchSource, token string) (domain.WebhookToken, error) {
	token = strings.TrimSpace(token)
	if token == "" {
		return domain.WebhookToken{}, domain.Errorf(domain.KindUnauthorized, "Unauthorized: missing webhook token")
	}
	t, err := s.store.UseWebhookToken(ctx, HashToken(token), source, s.now().UTC())
	if errors.Is(err, domain.ErrNotFound) {
		return domain.WebhookToken{}, errBadToken
	}
	return t, err
}

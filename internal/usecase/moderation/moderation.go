// Package moderation is the instance admin's domain blocks: instances whose federation traffic
// is refused both ways. Federation enforces them on every inbound and outbound exchange by
// reading the same table, so a block takes effect at once.
package moderation

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// Store keeps the domain blocks.
type Store interface {
	UserByID(ctx context.Context, id uuid.UUID) (domain.User, error)
	DomainBlocks(ctx context.Context) ([]domain.DomainBlock, error)
	// BlockDomain blocks host (or updates its reason).
	BlockDomain(ctx context.Context, host, reason string) error
	// UnblockDomain lifts a block; none is KindNotFound.
	UnblockDomain(ctx context.Context, host string) error
}

// Service runs the moderation use cases; every one is for admins only.
type Service struct{ store Store }

// NewService builds the service.
func NewService(store Store) *Service { return &Service{store: store} }

// DomainBlocks lists the blocked domains.
func (s *Service) DomainBlocks(ctx context.Context, caller uuid.UUID) ([]domain.DomainBlock, error) {
	if err := s.requireAdmin(ctx, caller); err != nil {
		return nil, err
	}
	return s.store.DomainBlocks(ctx)
}

// BlockDomain blocks an instance (and its subdomains); blocking it again replaces the reason.
func (s *Service) BlockDomain(ctx context.Context, caller uuid.UUID, host, reason string) error {
	if err := s.requireAdmin(ctx, caller); err != nil {
		return err
	}
	host, err := domain.NormalizeBlockedDomain(host)
	if err != nil {
		return err
	}
	reason = strings.TrimSpace(reason)
	if utf8.RuneCountInString(reason) > domain.MaxBlockReasonLength {
		return domain.Invalid("Reason exceeds %d characters", domain.MaxBlockReasonLength)
	}
	return s.store.BlockDomain(ctx, host, reason)
}

// UnblockDomain lifts the block of an instance.
func (s *Service) UnblockDomain(ctx context.Context, caller uuid.UUID, host string) error {
	if err := s.requireAdmin(ctx, caller); err != nil {
		return err
	}
	host, err := domain.NormalizeBlockedDomain(host)
	if err != nil {
		return err
	}
	return s.store.UnblockDomain(ctx, host)
}

func (s *Service) requireAdmin(ctx context.Context, id uuid.UUID) error {
	u, err := s.store.UserByID(ctx, id)
	if err != nil {
		if domain.KindOf(err) == domain.KindNotFound {
			return domain.Errorf(domain.KindUnauthorized, "Unauthorized: unknown user")
		}
		return err
	}
	if u.Role != domain.RoleAdmin {
		return domain.Forbidden("Forbidden: admin only")
	}
	return nil
}

package sqlstore

import (
	"context"
	"fmt"
	"strings"

	"moviesdiary/internal/adapters/sqlrow"
	"moviesdiary/internal/domain"
)

// DomainBlocks lists the blocked instances with their reasons, by domain. (BlockDomain adds one,
// DomainBlocked checks a host against them.)
func (s *Store) DomainBlocks(ctx context.Context) ([]domain.DomainBlock, error) {
	var rows []sqlrow.DomainBlock
	if err := s.read.SelectContext(ctx, &rows, `SELECT lower(domain) AS domain, COALESCE(reason, '') AS reason, blocked_at
		FROM domain_blocks ORDER BY 1`); err != nil {
		return nil, fmt.Errorf("read domain blocks: %w", err)
	}
	return sqlrow.CastRows(rows, sqlrow.DomainBlock.Block), nil
}

// UnblockDomain lifts the block of host; a host that is not blocked is KindNotFound.
func (s *Store) UnblockDomain(ctx context.Context, host string) error {
	err := s.write(ctx, func(tx *Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM domain_blocks WHERE domain = ?`, host)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return domain.NotFound("Entity not found: domain block %s", host)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("unblock domain: %w", err)
	}
	return nil
}

// BlockDomain blocks an instance (and its subdomains) with a reason; blocking it again replaces
// the reason.
func (s *Store) BlockDomain(ctx context.Context, host, reason string) error {
	return s.write(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO domain_blocks (domain, reason) VALUES (?, NULLIF(?, ''))
			ON CONFLICT (domain) DO UPDATE SET reason = excluded.reason`, strings.ToLower(host), reason)
		if err != nil {
			return fmt.Errorf("block domain: %w", err)
		}
		return nil
	})
}

// DomainBlocked reports whether host, or a domain it is under, is blocked.
func (s *Store) DomainBlocked(ctx context.Context, host string) (bool, error) {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if h, _, ok := strings.Cut(host, ":"); ok {
		host = h
	}
	var blocked bool
	err := s.read.GetContext(ctx, &blocked, `SELECT EXISTS (SELECT 1 FROM domain_blocks
		WHERE domain = ? OR CAST(? AS TEXT) LIKE '%.' || lower(domain))`, host, host)
	if err != nil {
		return false, fmt.Errorf("read domain blocks: %w", err)
	}
	return blocked, nil
}

// BlockedDomains lists the blocked domains (a fan-out checks its inboxes against them at once).
func (s *Store) BlockedDomains(ctx context.Context) ([]string, error) {
	var domains []string
	if err := s.read.SelectContext(ctx, &domains, `SELECT lower(domain) FROM domain_blocks ORDER BY 1`); err != nil {
		return nil, fmt.Errorf("read domain blocks: %w", err)
	}
	return domains, nil
}

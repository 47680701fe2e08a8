package sqlite

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"

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
	err := s.writeGrouped(ctx, func(tx *sqlx.Tx) error {
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

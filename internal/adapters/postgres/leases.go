package postgres

import (
	"context"
	"fmt"
	"time"

	"moviesdiary/internal/adapters/sqlrow"
)

// AcquireLease takes or renews the lease name for holder until now+ttl. It succeeds when nobody
// holds the lease, when its holder's lease expired, or when holder already holds it; it fails
// (false) while another holder's lease runs. Two workers racing for a free lease serialise on
// its row: one inserts, the other's upsert finds the fresh lease and fails.
func (s *Store) AcquireLease(ctx context.Context, name, holder string, now time.Time, ttl time.Duration) (bool, error) {
	res, err := s.db.ExecContext(ctx, `INSERT INTO job_leases (name, holder, expires_at) VALUES ($1, $2, $3)
		ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
		WHERE job_leases.expires_at <= $4 OR job_leases.holder = excluded.holder`,
		name, holder, sqlrow.Millis(now.Add(ttl)), sqlrow.Millis(now))
	if err != nil {
		return false, fmt.Errorf("acquire lease %s: %w", name, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("acquire lease %s: %w", name, err)
	}
	return n > 0, nil
}

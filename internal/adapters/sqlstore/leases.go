package sqlstore

import (
	"context"
	"fmt"
	"time"

	"moviesdiary/internal/adapters/sqlrow"
)

// AcquireLease takes or renews the lease name for holder until now+ttl. It succeeds when nobody
// holds the lease, when its holder's lease expired, or when holder already holds it; it fails
// (false) while another holder's lease runs.
func (s *Store) AcquireLease(ctx context.Context, name, holder string, now time.Time, ttl time.Duration) (bool, error) {
	var got bool
	err := s.write(ctx, func(tx *Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO job_leases (name, holder, expires_at) VALUES (?, ?, ?)
			ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
			WHERE job_leases.expires_at <= ? OR job_leases.holder = excluded.holder`,
			name, holder, sqlrow.Millis(now.Add(ttl)), sqlrow.Millis(now))
		if err != nil {
			return err
		}
		n, _ := res.RowsAffected()
		got = n > 0
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("acquire lease %s: %w", name, err)
	}
	return got, nil
}

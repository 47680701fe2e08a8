package postgres

import (
	"context"
	"fmt"
	"hash/fnv"
)

// DataVersion is a number that changes whenever anything commits to the database, as the SQLite
// store's (PRAGMA data_version) is: the HTTP layer serves a cached hot public document again for
// as long as it still answers the version read before rendering it. Here it is a hash of
// pg_current_snapshot(), which moves whenever a writing transaction begins or ends anywhere on
// the server: every commit changes it, and so do some events that change nothing (a writer that
// starts, another database's commits), which only costs a cache miss. It takes a round trip,
// where SQLite's reads shared memory.
func (s *Store) DataVersion(ctx context.Context) (int64, error) {
	var snapshot string
	if err := s.db.QueryRowContext(ctx, `SELECT pg_current_snapshot()::text`).Scan(&snapshot); err != nil {
		return 0, fmt.Errorf("data version: %w", err)
	}
	h := fnv.New64a()
	h.Write([]byte(snapshot))
	return int64(h.Sum64()), nil
}

package maintenance

import (
	"context"
	"fmt"
	"time"
)

// Imports deletes the import sessions expired at now, with their stored rows (*sqlite.Store).
type Imports interface {
	DeleteExpiredImportSessions(ctx context.Context, now time.Time) (int64, error)
}

// ImportCleaner deletes import sessions a day after their upload (or last confirm), and uploads
// whose request died before the file was stored. It is idempotent, so every server runs it
// without a lease.
type ImportCleaner struct {
	job
	imports Imports
}

// NewImportCleaner builds the import cleaner.
func NewImportCleaner(imports Imports, cfg JobConfig) *ImportCleaner {
	return &ImportCleaner{job: newJob("import-cleaner", cfg), imports: imports}
}

// RunOnce deletes the expired import sessions.
func (c *ImportCleaner) RunOnce(ctx context.Context) error {
	var n int64
	err := c.query(ctx, func(ctx context.Context) (err error) {
		n, err = c.imports.DeleteExpiredImportSessions(ctx, c.now())
		return err
	})
	if err != nil {
		return fmt.Errorf("import cleaner: %w", err)
	}
	c.report(ctx, "expired import sessions deleted", n)
	return nil
}

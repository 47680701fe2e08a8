package maintenance

import (
	"context"
	"fmt"
)

// Resumer finishes import confirms a crash interrupted (*importer.Service) and says how many
// rows it wrote.
type Resumer interface {
	Resume(ctx context.Context) (int64, error)
}

// ImportResumer continues the import confirms a dead server left half-written, so a restarted
// server finishes them without the client confirming again. It runs in the server, whose
// process-local claim keeps it from racing a confirm request; it takes no per-query timeout
// (a resumed import may write for minutes) and stops between batches when ctx ends.
type ImportResumer struct {
	job
	imports Resumer
}

// NewImportResumer builds the import resumer.
func NewImportResumer(imports Resumer, cfg JobConfig) *ImportResumer {
	return &ImportResumer{job: newJob("import-resumer", cfg), imports: imports}
}

// RunOnce resumes every interrupted confirm.
func (r *ImportResumer) RunOnce(ctx context.Context) error {
	n, err := r.imports.Resume(ctx)
	r.report(ctx, "interrupted import rows written", n)
	if err != nil {
		return fmt.Errorf("import resumer: %w", err)
	}
	return nil
}

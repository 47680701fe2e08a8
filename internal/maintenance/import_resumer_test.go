package maintenance

import (
	"context"
	"errors"
	"testing"
)

// resumeFunc is a Resumer as a func.
type resumeFunc func(ctx context.Context) (int64, error)

func (f resumeFunc) Resume(ctx context.Context) (int64, error) { return f(ctx) }

// TestImportResumerRunsTheResume: each run resumes once, without a deadline of its own, and
// a failure is the job's error.
func TestImportResumerRunsTheResume(t *testing.T) {
	t.Parallel()
	b := setup(t)
	calls := 0
	ok := NewImportResumer(resumeFunc(func(ctx context.Context) (int64, error) {
		calls++
		if _, has := ctx.Deadline(); has {
			t.Error("the resume runs under a query deadline")
		}
		return 3, nil
	}), b.cfg)
	if err := ok.RunOnce(context.Background()); err != nil || calls != 1 {
		t.Errorf("run = %v after %d calls", err, calls)
	}
	failing := NewImportResumer(resumeFunc(func(context.Context) (int64, error) { return 1, errors.New("disk full") }), b.cfg)
	if err := failing.RunOnce(context.Background()); err == nil {
		t.Error("a failed resume is not the job's error")
	}
}

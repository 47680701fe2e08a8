package maintenance

import (
	"cmp"
	"context"
	"log/slog"
	"time"
)

// QueryTimeoutDefault bounds one query of a job. It is longer than SQLite's busy timeout (10 s),
// so a locked database surfaces as the driver's error rather than as a deadline.
const QueryTimeoutDefault = 30 * time.Second

// JobConfig is what every job takes; zero fields take the defaults.
type JobConfig struct {
	Logger *slog.Logger
	// Now is the clock the job's cut-offs are computed from (default time.Now).
	Now func() time.Time
	// QueryTimeout bounds each query (default QueryTimeoutDefault).
	QueryTimeout time.Duration
}

// job is the part every job shares: its logger, clock and per-query timeout.
type job struct {
	log     *slog.Logger
	now     func() time.Time
	timeout time.Duration
}

func newJob(name string, cfg JobConfig) job {
	j := job{
		log:     cmp.Or(cfg.Logger, slog.Default()).With("job", name),
		now:     cfg.Now,
		timeout: cmp.Or(cfg.QueryTimeout, QueryTimeoutDefault),
	}
	if j.now == nil {
		j.now = time.Now
	}
	return j
}

// query runs fn under the per-query timeout.
func (j job) query(ctx context.Context, fn func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, j.timeout)
	defer cancel()
	return fn(ctx)
}

// report logs a count the job changed, when there is one.
func (j job) report(ctx context.Context, what string, n int64) {
	if n > 0 {
		j.log.InfoContext(ctx, "maintenance: "+what, "count", n)
	}
}

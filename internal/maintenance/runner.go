package maintenance

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"os"
	"time"
)

// Defaults for RunnerConfig.
const (
	IntervalDefault = time.Hour
	// LeaseNameDefault is the worker's job lease; the name dates from when the jobs were the
	// media ones, and is kept so a rolling upgrade shares the lease with older workers.
	LeaseNameDefault = "media-jobs"
)

// Job is one periodic job. RunOnce does one pass, each query under its own timeout, logs what it
// changed and returns its first error.
type Job interface {
	RunOnce(ctx context.Context) error
}

// Lease grants a named lease to one holder at a time (*sqlite.Store): it succeeds while nobody
// else holds an unexpired lease, and renews the holder's own.
type Lease interface {
	AcquireLease(ctx context.Context, name, holder string, now time.Time, ttl time.Duration) (bool, error)
}

// RunnerConfig tunes a Runner; zero fields take the defaults.
type RunnerConfig struct {
	// Lease, when set, lets one process at a time run the jobs: every process runs the loop, the
	// holder renews the lease each interval, and another takes over only after it expired (its
	// holder died). Nil: every process runs the jobs (for idempotent jobs such as the server's
	// session pruning).
	Lease Lease
	// LeaseName names the lease (default LeaseNameDefault).
	LeaseName string
	// Holder names this process in the lease (default hostname/random).
	Holder string
	// Interval is how often the jobs run (default IntervalDefault).
	Interval time.Duration
	// QueryTimeout bounds the lease query (default QueryTimeoutDefault).
	QueryTimeout time.Duration
	Logger       *slog.Logger
	Now          func() time.Time
}

// Runner runs its jobs at start and then every interval, in order, until its context ends.
type Runner struct {
	cfg  RunnerConfig
	log  *slog.Logger
	jobs []Job
}

// NewRunner builds a Runner over jobs; call Run to start it.
func NewRunner(cfg RunnerConfig, jobs ...Job) *Runner {
	cfg.LeaseName = cmp.Or(cfg.LeaseName, LeaseNameDefault)
	cfg.Interval = cmp.Or(cfg.Interval, IntervalDefault)
	cfg.QueryTimeout = cmp.Or(cfg.QueryTimeout, QueryTimeoutDefault)
	if cfg.Holder == "" {
		host, _ := os.Hostname()
		var rnd [4]byte
		_, _ = rand.Read(rnd[:])
		cfg.Holder = host + "/" + hex.EncodeToString(rnd[:])
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Runner{cfg: cfg, log: cmp.Or(cfg.Logger, slog.Default()), jobs: jobs}
}

// Run runs the jobs now and every interval until ctx ends, and returns only then (nil). A job's
// error is logged and the job runs again at the next interval: a busy database is no reason to
// stop the process.
func (r *Runner) Run(ctx context.Context) error {
	t := time.NewTicker(r.cfg.Interval)
	defer t.Stop()
	for {
		r.RunOnce(ctx)
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// RunOnce runs every job if this process holds the lease (or there is none); it reports whether
// it ran them.
func (r *Runner) RunOnce(ctx context.Context) bool {
	if !r.hold(ctx) {
		return false
	}
	for _, j := range r.jobs {
		if ctx.Err() != nil {
			return true
		}
		if err := j.RunOnce(ctx); err != nil && ctx.Err() == nil {
			r.log.ErrorContext(ctx, "maintenance job failed", "error", err)
		}
	}
	return true
}

// hold takes or renews the lease. It outlives the interval by half, so the holder renews it
// before anyone else may take it.
func (r *Runner) hold(ctx context.Context) bool {
	if r.cfg.Lease == nil {
		return true
	}
	qctx, cancel := context.WithTimeout(ctx, r.cfg.QueryTimeout)
	defer cancel()
	held, err := r.cfg.Lease.AcquireLease(qctx, r.cfg.LeaseName, r.cfg.Holder, r.cfg.Now(), r.cfg.Interval+r.cfg.Interval/2)
	if err != nil && ctx.Err() == nil {
		r.log.ErrorContext(ctx, "maintenance: lease", "lease", r.cfg.LeaseName, "error", err)
	}
	return err == nil && held
}

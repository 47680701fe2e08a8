package postgres

import (
	"context"
	"database/sql/driver"
	"time"

	"moviesdiary/internal/domain"
)

// UnreachableRetryAfter is the Retry-After of a request that found PostgreSQL unreachable.
const UnreachableRetryAfter = 5 * time.Second

// unreachable is the pool's connector: a connection PostgreSQL does not accept (the server down,
// restarting, refusing connections) fails as a *domain.UnavailableError, which the HTTP layer
// answers 503 with Retry-After instead of 500, and whose message carries no connection details
// (user, database, socket path). A pooled connection the server dropped is discarded by
// database/sql and replaced through here, so an outage surfaces the same way after its first
// failed statement.
type unreachable struct{ driver.Connector }

// Connect opens a connection, classifying a failure as the database unavailable.
func (c unreachable) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil && ctx.Err() == nil {
		return nil, &domain.UnavailableError{What: "database", RetryAfter: UnreachableRetryAfter, Err: err}
	}
	return conn, err
}

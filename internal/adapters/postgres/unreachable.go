package postgres

import (
	"context"
	"database/sql/driver"
	"time"

	"github.com/jackc/pgx/v5/stdlib"

	"moviesdiary/internal/domain"
)

// UnreachableRetryAfter is the Retry-After of a request that found PostgreSQL unreachable.
const UnreachableRetryAfter = 5 * time.Second

// unreachable is the pool's connector: a connection PostgreSQL does not accept (the server down,
// restarting, refusing connections) fails as a *domain.UnavailableError, which the HTTP layer
// answers 503 with Retry-After instead of 500, and whose message carries no connection details
// (user, database, socket path). A pooled connection the server dropped fails its statement the
// same way (conn), and database/sql then discards it and opens another through here.
type unreachable struct{ driver.Connector }

// Connect opens a connection, classifying a failure as the database unavailable.
func (c unreachable) Connect(ctx context.Context) (driver.Conn, error) {
	dc, err := c.Connector.Connect(ctx)
	if err != nil && ctx.Err() == nil {
		return nil, &domain.UnavailableError{What: "database", RetryAfter: UnreachableRetryAfter, Err: err}
	}
	if pc, ok := dc.(*stdlib.Conn); ok {
		return conn{pc}, nil
	}
	return dc, err
}

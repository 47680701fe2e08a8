package archtest

import (
	"context"
	"database/sql"
	"log/slog"
	"maps"
	"regexp"
	"sync"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver

	"moviesdiary/internal/adapters/postgres"
	"moviesdiary/internal/adapters/postgres/pgtest"
	"moviesdiary/internal/adapters/storetest"
	"moviesdiary/internal/outbox"
)

// recordInserts makes a database keep the text of every statement that inserts into
// event_queue (current_query(): the statement as the client sent it) in archtest_inserts. The
// trigger fires per statement, so a statement whose rows all conflicted is kept too.
const recordInserts = `
CREATE TABLE archtest_inserts (query text NOT NULL);
CREATE FUNCTION archtest_record_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO archtest_inserts (query) VALUES (current_query());
	RETURN NULL;
END $$;
CREATE TRIGGER archtest_record_insert AFTER INSERT ON event_queue
	FOR EACH STATEMENT EXECUTE FUNCTION archtest_record_insert();`

// outboxStatement is the statement outbox.Insert sends to PostgreSQL: its columns, one to 500
// rows of five numbered parameters, and its conflict clause, exactly.
var outboxStatement = regexp.MustCompile(`^INSERT INTO event_queue \(event_id, event_type, payload, created_at, next_attempt_at\) VALUES ` +
	`\(\$\d+, \$\d+, \$\d+, \$\d+, \$\d+\)(,\(\$\d+, \$\d+, \$\d+, \$\d+, \$\d+\))* ` +
	`ON CONFLICT \(event_id\) WHERE event_id IS NOT NULL DO NOTHING$`)

// pgStatements counts the insert statements the suite's databases kept, by text.
type pgStatements struct {
	mu sync.Mutex
	n  map[string]int
}

func (s *pgStatements) add(query string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n == nil {
		s.n = map[string]int{}
	}
	s.n[query] += n
}

func (s *pgStatements) snapshot() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.n)
}

// openPostgres opens a store on a fresh migrated database that records its inserts into
// event_queue; when the test ends, after the store is closed, what it recorded goes to into.
func openPostgres(t *testing.T, faults *storetest.Faults, into *pgStatements) *postgres.Store {
	t.Helper()
	url := pgtest.FromTemplate(t, "archtest", func(ctx context.Context, url string) error {
		s, err := postgres.OpenMigrated(ctx, url, slog.New(slog.DiscardHandler))
		if err != nil {
			return err
		}
		defer s.Close()
		db, err := sql.Open("pgx", url)
		if err != nil {
			return err
		}
		defer db.Close()
		_, err = db.ExecContext(ctx, recordInserts)
		return err
	})
	t.Cleanup(func() { collect(t, url, into) })
	s, err := postgres.Open(context.Background(), url, postgres.WithEnqueue(faultyEnqueue(faults, outbox.Insert)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// collect adds the statements the database at url kept to into.
func collect(t *testing.T, url string, into *pgStatements) {
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Error(err)
		return
	}
	defer db.Close()
	rows, err := db.Query(`SELECT query, count(*) FROM archtest_inserts GROUP BY query`)
	if err != nil {
		t.Error(err)
		return
	}
	defer rows.Close()
	for rows.Next() {
		var query string
		var n int
		if err := rows.Scan(&query, &n); err != nil {
			t.Error(err)
			return
		}
		into.add(query, n)
	}
	if err := rows.Err(); err != nil {
		t.Error(err)
	}
}

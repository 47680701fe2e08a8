package archtest

import (
	"os"
	"testing"

	"go.uber.org/goleak"

	"moviesdiary/internal/adapters/postgres/pgtest"
)

// hookedDrivers are the go-sqlite3 drivers whose connections report their inserts (inserthook).
var hookedDrivers []string

// TestMain hooks the SQLite drivers before any test opens a connection, stops the throwaway
// PostgreSQL cluster after the tests, and fails them if a goroutine outlives them.
func TestMain(m *testing.M) {
	hookedDrivers = hookSQLiteDrivers()
	code := pgtest.Main(m)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			os.Stderr.WriteString("archtest: goroutines leaked: " + err.Error() + "\n")
			code = 1
		}
	}
	os.Exit(code)
}

package sqlite_test

import (
	"path/filepath"
	"testing"

	"moviesdiary/internal/adapters/sqlite/sqlitetest"
	"moviesdiary/internal/adapters/storetest"
)

// BenchmarkMergeMovie1000 is a merge of a movie with 1,000 reviews (storetest.BenchMerge).
func BenchmarkMergeMovie1000(b *testing.B) {
	storetest.BenchMerge(b, sqlitetest.Open(b, filepath.Join(b.TempDir(), "bench.db")), 1000)
}

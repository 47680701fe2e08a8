package postgres_test

import (
	"testing"

	"moviesdiary/internal/adapters/storetest"
)

// BenchmarkMergeMovie1000 is a merge of a movie with 1,000 reviews (storetest.BenchMerge).
func BenchmarkMergeMovie1000(b *testing.B) {
	s, _ := open(b)
	storetest.BenchMerge(b, s, 1000)
}

package domain_test

import (
	"slices"
	"testing"
	"time"

	"moviesdiary/internal/domain"
)

// pauses returns the next n pauses of p.
func pauses(p *domain.Pause, n int) []time.Duration {
	var got []time.Duration
	for range n {
		got = append(got, p.Next())
	}
	return got
}

func TestPauseGrowsFromMinToMax(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	for _, c := range []struct {
		name  string
		pause domain.Pause
		want  []time.Duration
	}{
		{"doubles by default", domain.Pause{Min: 100 * ms, Max: time.Second},
			[]time.Duration{100 * ms, 200 * ms, 400 * ms, 800 * ms, time.Second, time.Second}},
		{"grows by its factor", domain.Pause{Min: 8 * ms, Max: 20 * ms, Growth: 1.25},
			[]time.Duration{8 * ms, 10 * ms, 12500 * time.Microsecond, 15625 * time.Microsecond, 19531250, 20 * ms}},
		{"stays put when min is max", domain.Pause{Min: ms, Max: ms}, []time.Duration{ms, ms, ms}},
		{"never passes a max below min", domain.Pause{Min: 2 * ms, Max: ms}, []time.Duration{ms, ms}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := c.pause
			if got := pauses(&p, len(c.want)); !slices.Equal(got, c.want) {
				t.Errorf("pauses %v, want %v", got, c.want)
			}
		})
	}
}

func TestPauseResetStartsAgainFromMin(t *testing.T) {
	t.Parallel()
	p := domain.Pause{Min: 250 * time.Millisecond, Max: 5 * time.Second}
	pauses(&p, 4)
	p.Reset()
	if got := p.Next(); got != 250*time.Millisecond {
		t.Errorf("after Reset: %s, want 250ms", got)
	}
}

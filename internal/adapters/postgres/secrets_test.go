package postgres_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"moviesdiary/internal/adapters/postgres"
)

// TestSecretIsSharedByServersStartingTogether: eight servers on their own connections start at
// once; exactly one stores its secret and all eight get that one.
func TestSecretIsSharedByServersStartingTogether(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, url := open(t)
	const servers = 8
	values, created := make([]string, servers), make([]bool, servers)
	var wg sync.WaitGroup
	for i := range servers {
		s, err := postgres.Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, c, err := s.Secret(ctx, "jwt", func() (string, error) { return fmt.Sprintf("secret-of-server-%d", i), nil })
			if err != nil {
				t.Error(err)
			}
			values[i], created[i] = v, c
		}()
	}
	wg.Wait()
	stored := 0
	for i := range servers {
		if values[i] != values[0] || values[i] == "" {
			t.Fatalf("servers got different secrets: %q", values)
		}
		if created[i] {
			stored++
		}
	}
	if stored != 1 {
		t.Errorf("%d servers say they stored the secret, want 1", stored)
	}
	// A later start reads it and generates nothing.
	s, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	v, c, err := s.Secret(ctx, "jwt", func() (string, error) { return "", fmt.Errorf("must not generate") })
	if err != nil || c || v != values[0] {
		t.Errorf("restart: %q created=%v err=%v, want %q", v, c, err, values[0])
	}
}

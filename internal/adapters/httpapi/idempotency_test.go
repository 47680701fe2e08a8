package httpapi_test

import (
	"slices"
	"sync"
	"testing"
)

// TestIdempotencyKeyReturnsTheFirstResult: a client retrying POST /reviews with the same key gets
// the first review back and nothing new is written, even when the retries race.
func TestIdempotencyKeyReturnsTheFirstResult(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, bob := b.register("alice"), b.register("bob")
	body := map[string]any{"external_metadata_id": "tt0113277", "manual_title": "Heat", "manual_release_year": 1995,
		"rating": 5, "watched_at": "2024-03-01"}
	post := func(a account, key string, body any) response {
		return b.do(req{method: "POST", path: "/api/v1/reviews", token: a.token, body: body,
			header: map[string]string{"Idempotency-Key": key}})
	}
	since := b.lastEvent()

	const retries = 8
	ids := make([]string, retries)
	var wg sync.WaitGroup
	for i := range retries {
		wg.Go(func() {
			r := post(alice, "retry-1", body)
			if r.status != 201 {
				t.Errorf("attempt %d: status %d %s", i, r.status, r.body)
				return
			}
			var out struct {
				Review struct{ ID string } `json:"review"`
			}
			r.json(t, &out)
			ids[i] = out.Review.ID
		})
	}
	wg.Wait()
	for _, id := range ids[1:] {
		if id != ids[0] {
			t.Fatalf("retries returned different reviews: %v", ids)
		}
	}
	if got := b.scalar(`SELECT count(*) FROM reviews`); got != "1" {
		t.Errorf("reviews after %d retries = %s, want 1", retries, got)
	}
	want := []string{"MovieDiscovered", "MovieEnrichmentRequested", "ReviewLogged"}
	if got := b.eventTypes(since); !slices.Equal(got, want) {
		t.Errorf("events after retries = %v, want %v once", got, want)
	}
	if r := post(alice, "retry-1", body); r.header.Get("Idempotent-Replayed") != "true" {
		t.Error("a replay is not marked Idempotent-Replayed")
	}

	// The same key for another body is a conflict; another user's key is their own.
	other := map[string]any{"manual_title": "Ronin", "manual_release_year": 1998, "rating": 3, "watched_at": "2024-03-02"}
	if r := post(alice, "retry-1", other); r.status != 409 {
		t.Errorf("key reused for another request: %d %s, want 409", r.status, r.body)
	} else {
		r.errorMessage(t)
	}
	if r := post(bob, "retry-1", body); r.status != 201 || r.header.Get("Idempotent-Replayed") != "" {
		t.Errorf("another user's same key: %d, replayed %q; want a new review", r.status, r.header.Get("Idempotent-Replayed"))
	}
	if got := b.scalar(`SELECT count(*) FROM reviews`); got != "2" {
		t.Errorf("reviews = %s, want 2", got)
	}
	// Without a key, a retry is a second viewing.
	b.must(201, req{method: "POST", path: "/api/v1/reviews", token: alice.token, body: body})
	if got := b.scalar(`SELECT count(*) FROM reviews`); got != "3" {
		t.Errorf("reviews = %s, want 3", got)
	}
}

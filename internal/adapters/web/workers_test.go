package web_test

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/search"
	"moviesdiary/internal/usecase/wrapup"
)

// reindex runs the worker's search reindex handler over the store.
func reindex(t testing.TB, b *bundle) {
	t.Helper()
	if err := search.NewHandlers(b.Store).Reindex(ctx, domain.SearchReindexRequested{}); err != nil {
		t.Fatal(err)
	}
}

// generate runs the worker's wrap-up generator on wrap-up id, as the worker does on its
// WrapUpRequested event.
func generate(t testing.TB, b *bundle, id string) {
	t.Helper()
	w, err := b.Store.WrapUp(ctx, uuid.MustParse(id))
	if err != nil {
		t.Fatal(err)
	}
	g := wrapup.NewGenerator(b.Store, time.Now, b.Log)
	if err := g.Handle(ctx, domain.WrapUpRequested{WrapUpID: w.ID, UserID: w.UserID, StartDate: w.StartDate, EndDate: w.EndDate}); err != nil {
		t.Fatal(err)
	}
}

func newID() uuid.UUID { return uuid.New() }

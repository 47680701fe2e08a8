package enrichment

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
)

// PersonName keys the person enrichment in the processed-event ledger; never rename it.
const PersonName = "person-enrichment"

// PersonTypes are the events the person enrichment handles.
var PersonTypes = []string{domain.PersonEnrichmentRequested{}.EventType()}

// PersonStore is the database side of the person enrichment.
type PersonStore interface {
	// PersonEnrichmentState is KindNotFound when the person is gone.
	PersonEnrichmentState(ctx context.Context, id uuid.UUID) (State, error)
	// SavePersonEnrichment writes the profile and marks the person enriched, in one transaction.
	SavePersonEnrichment(ctx context.Context, id uuid.UUID, p Person, at time.Time) error
	// MarkPersonMissing records that the provider does not know the person.
	MarkPersonMissing(ctx context.Context, id uuid.UUID, at time.Time) error
}

// PersonSource is the provider's person lookup.
type PersonSource interface {
	Person(ctx context.Context, tmdbID int64) (Person, error)
}

// People is the person enrichment handler.
type People struct {
	store  PersonStore
	source PersonSource
	now    func() time.Time
	log    *slog.Logger
}

// NewPeople builds the handler; now may be nil for time.Now.
func NewPeople(store PersonStore, source PersonSource, now func() time.Time, log *slog.Logger) *People {
	if now == nil {
		now = time.Now
	}
	return &People{store: store, source: source, now: now, log: cmp.Or(log, slog.Default())}
}

// Handle enriches the event's person, unless their profile is under 90 days old. One write,
// enriched_at with the fields, so a re-run is either skipped or repeats the same update.
func (p *People) Handle(ctx context.Context, e domain.Event) error {
	ev, ok := e.(domain.PersonEnrichmentRequested)
	if !ok {
		return domain.Permanent(fmt.Errorf("person enrichment: unexpected event %s", e.EventType()))
	}
	raw, ok := strings.CutPrefix(ev.ExternalPersonID, "tmdb:")
	tmdbID, err := strconv.ParseInt(raw, 10, 64)
	if !ok || err != nil || tmdbID <= 0 {
		return domain.Permanent(fmt.Errorf("person enrichment: external id %q is not tmdb:N", ev.ExternalPersonID))
	}
	now := p.now().UTC()
	return enrich(now, PersonFresh,
		func() (State, error) { return p.store.PersonEnrichmentState(ctx, ev.PersonID) },
		func() (Person, error) { return p.source.Person(ctx, tmdbID) },
		func(d Person) error { return p.store.SavePersonEnrichment(ctx, ev.PersonID, d, now) },
		func() error {
			p.log.InfoContext(ctx, "person enrichment: TMDb does not know the person", "person_id", ev.PersonID)
			return p.store.MarkPersonMissing(ctx, ev.PersonID, now)
		})
}

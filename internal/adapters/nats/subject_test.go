package nats

import (
	"testing"

	"moviesdiary/internal/domain"
)

func TestSubjectCoversEveryEventType(t *testing.T) {
	t.Parallel()
	seen := map[string]string{}
	for _, typ := range domain.EventTypes() {
		subj, err := Subject("p", typ)
		if err != nil {
			t.Errorf("event type %s: %v", typ, err)
			continue
		}
		if other, dup := seen[subj]; dup {
			t.Errorf("%s and %s share subject %s", typ, other, subj)
		}
		seen[subj] = typ
		if got := eventType("p", subj); got != typ {
			t.Errorf("eventType(%q) = %q, want %q", subj, got, typ)
		}
	}
	if len(subjects) != len(domain.EventTypes()) {
		t.Errorf("subjects lists %d event types, the domain has %d", len(subjects), len(domain.EventTypes()))
	}
}

func TestSubjectUsesPrefixAndOriginalSuffix(t *testing.T) {
	t.Parallel()
	got, err := Subject("movies-diary.events", "Unfollowed")
	if err != nil || got != "movies-diary.events.follow.unfollowed" {
		t.Fatalf("Subject = %q, %v; want movies-diary.events.follow.unfollowed", got, err)
	}
	if _, err := Subject("p", "NoSuchEvent"); err == nil {
		t.Fatal("Subject accepted an unknown event type")
	}
	if got := eventType("p", "other.review.logged"); got != "" {
		t.Fatalf("eventType outside the prefix = %q, want empty", got)
	}
	if got := Wildcard("p"); got != "p.>" {
		t.Fatalf("Wildcard = %q", got)
	}
}

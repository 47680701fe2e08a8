package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/usecase/federation"
)

// TestFederationCommand: `worker federation hosts` lists a failing host with its deliveries;
// retry-now makes them due (a dry run changes nothing); forget dead-letters them; mistakes are
// usage errors (exit 2), an unknown host a plain error (exit 1). On both stores.
func TestFederationCommand(t *testing.T) {
	eachStore(t, func(t *testing.T, f *eventsFixture) {
		ctx := context.Background()
		store, err := openOperator(ctx, f.cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		q := store.(federation.Deliveries)
		now := time.Now()
		for i := range 2 {
			if err := q.HandOff(ctx, federation.QueuedDelivery{DeliveryID: uuid.NewString(), Inbox: "https://down.example/inbox",
				Activity: []byte(`{"id":"x"}`), Signer: uuid.New()}, now); err != nil {
				t.Fatal(err)
			}
			got, err := q.ClaimDeliveries(ctx, federation.DeliveryClaim{Now: now, Until: now.Add(time.Minute), Max: 1, PerHost: 4})
			if err != nil || len(got) != 1 {
				t.Fatalf("claim %d: %v %v", i, got, err)
			}
			if _, err := q.DeliveryFailed(ctx, federation.DeliveryFailure{Delivery: got[0], Now: now, Retry: now.Add(time.Hour),
				Error: "503 Service Unavailable", Decide: func(h federation.HostHealth) (federation.HostHealth, federation.Step) {
					return federation.Policy{}.Failed(h, now), federation.StepRetry
				}}); err != nil {
				t.Fatal(err)
			}
		}
		run := func(args ...string) (int, string, string) {
			var out, errb bytes.Buffer
			code := runFederationCommand(ctx, store, args, func() time.Time { return now.Add(time.Minute) }, &out, &errb)
			return code, out.String(), errb.String()
		}
		code, out, _ := run("hosts")
		if code != 0 || !strings.Contains(out, "down.example") || !strings.Contains(out, "503 Service Unavailable") {
			t.Fatalf("hosts: %d %q", code, out)
		}
		code, out, _ = run("hosts", "--json")
		var hosts []struct {
			Host     string `json:"host"`
			State    string `json:"state"`
			Failures int    `json:"failures"`
			Waiting  int    `json:"waiting"`
		}
		if err := json.Unmarshal([]byte(out), &hosts); code != 0 || err != nil || len(hosts) != 1 || hosts[0].Failures != 2 || hosts[0].Waiting != 2 {
			t.Fatalf("hosts --json: %d %q %v", code, out, err)
		}
		if code, out, _ = run("retry-now", "down.example", "--dry-run"); code != 0 || !strings.Contains(out, "would change 2") {
			t.Fatalf("retry-now --dry-run: %d %q", code, out)
		}
		if got, _ := q.ClaimDeliveries(ctx, federation.DeliveryClaim{Now: now, Until: now.Add(time.Minute), Max: 10, PerHost: 4}); len(got) != 0 {
			t.Fatalf("a dry run made %d deliveries due", len(got))
		}
		if code, out, _ = run("retry-now", "down.example"); code != 0 || !strings.Contains(out, "2 deliveries") {
			t.Fatalf("retry-now: %d %q", code, out)
		}
		if got, _ := q.ClaimDeliveries(ctx, federation.DeliveryClaim{Now: now.Add(time.Minute), Until: now.Add(2 * time.Minute),
			Max: 10, PerHost: 4}); len(got) != 2 {
			t.Fatalf("after retry-now claimed %d, want 2", len(got))
		}
		if code, out, _ = run("forget", "down.example"); code != 0 || !strings.Contains(out, "2 deliveries") {
			t.Fatalf("forget: %d %q", code, out)
		}
		if code, _, errOut := run("forget", "down.example"); code != 1 || !strings.Contains(errOut, "no federation host") {
			t.Fatalf("forget of a forgotten host: %d %q", code, errOut)
		}
		for _, args := range [][]string{{"nope"}, {"retry-now"}, {"forget", "a", "b"}, {"hosts", "--bogus"}} {
			if code, _, errOut := run(args...); code != 2 || !strings.Contains(errOut, "usage: worker federation") {
				t.Errorf("%v: exit %d %q, want a usage error", args, code, errOut)
			}
		}
	})
}

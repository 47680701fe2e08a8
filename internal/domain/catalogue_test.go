package domain

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

var (
	id1 = uuid.MustParse("11111111-1111-4111-8111-111111111111")
	id2 = uuid.MustParse("22222222-2222-4222-8222-222222222222")
	id3 = uuid.MustParse("33333333-3333-4333-8333-333333333333")
	at  = UnixFrom(1_700_000_000)
)

func ptr[T any](v T) *T { return &v }

// samples holds one filled value of every variant.
func samples() []Event {
	return []Event{
		ReviewLogged{ReviewID: id1, MovieID: id2, UserID: id3, Rating: 4, WatchedAt: at},
		ReviewUpdated{ReviewID: id1, MovieID: id2, UserID: id3, Rating: 5, WatchedAt: at},
		ReviewDeleted{ReviewID: id1, UserID: id3},
		MovieDiscovered{MovieID: id2, ExternalMetadataID: "tt1234567"},
		MovieDeleted{MovieID: id2, PosterPath: ptr("posters/abc.jpg")},
		MovieEnrichmentRequested{MovieID: id2, ExternalMetadataID: "tmdb:603"},
		MovieResolutionRequested{MovieID: id2},
		MoviesMerged{From: id1, Into: id2},
		PosterSynced{MovieID: id2},
		MovieImagesRequested{MovieID: id2},
		ImageStored{Key: "posters/abc.jpg"},
		SearchReindexRequested{},
		PersonEnrichmentRequested{PersonID: id1, ExternalPersonID: "tmdb:123"},
		WatchlistEntryAdded{UserID: id3, MovieID: id2, MovieTitle: "The Matrix", ReleaseYear: 1999,
			ExternalMetadataID: ptr("tt0133093"), AddedAt: at},
		WatchlistEntryRemoved{UserID: id3, MovieID: id2},
		FollowRequested{FollowerID: id1, Target: HandleIdentity("@bob@example.org")},
		FollowAccepted{OwnerID: id1, Requester: RemoteIdentity("https://remote.example/users/bob"), Direction: FollowOutgoing},
		FollowRejected{OwnerID: id1, Requester: LocalIdentity(id2)},
		Unfollowed{FollowerID: id1, Target: LocalIdentity(id2)},
		FollowerRemoved{OwnerID: id1, Follower: RemoteIdentity("https://remote.example/users/eve")},
		ActorBlocked{BlockerID: id1, Target: RemoteIdentity("https://remote.example/users/eve")},
		ActorUnblocked{BlockerID: id1, Target: LocalIdentity(id2)},
		BackfillFollower{OwnerUserID: id1, FollowerInboxURL: "https://remote.example/users/bob/inbox"},
		UserUpdated{UserID: id1},
		UserDeleted{UserID: id1},
		UserAccountMoved{UserID: id1, NewActorURL: "https://new.example/users/alice"},
		WatchEventIngested{UserID: id1, Title: "Alien", Source: "jellyfin"},
		GoalCreated{GoalID: id2, UserID: id1, Year: 2025, TargetCount: 100},
		GoalUpdated{GoalID: id2, UserID: id1, Year: 2025, TargetCount: 120},
		GoalDeleted{GoalID: id2, UserID: id1, Year: 2025},
		WrapUpRequested{WrapUpID: id2, UserID: ptr(id1), StartDate: NewDate(2025, time.January, 1),
			EndDate: NewDate(2025, time.December, 31)},
		WrapUpCompleted{WrapUpID: id2},
		FederationDeliveryRequested{InboxURL: "https://remote.example/inbox",
			ActivityJSON: json.RawMessage(`{"type":"Create","object":{"type":"Note"}}`), SigningActorID: id1},
		ActivityReceived{ActivityID: "https://remote.example/activities/1", ActorURL: "https://remote.example/users/bob",
			Activity: json.RawMessage(`{"type":"Follow"}`), RecipientID: ptr(id1)},
		PasswordResetRequested{LinkID: id2, UserID: id1},
		EmailConfirmationRequested{LinkID: id2, UserID: id1},
		UserRegistered{UserID: id1, Pending: true},
	}
}

// wantJSON pins the exact wire form of representative variants.
var wantJSON = map[string]string{
	"ReviewLogged": `{"type":"ReviewLogged","data":{"review_id":"11111111-1111-4111-8111-111111111111",` +
		`"movie_id":"22222222-2222-4222-8222-222222222222","user_id":"33333333-3333-4333-8333-333333333333",` +
		`"rating":4,"watched_at":1700000000}}`,
	"FollowAccepted": `{"type":"FollowAccepted","data":{"owner_id":"11111111-1111-4111-8111-111111111111",` +
		`"requester_kind":"remote","requester_id":"https://remote.example/users/bob","direction":"outgoing"}}`,
	"WrapUpRequested": `{"type":"WrapUpRequested","data":{"wrapup_id":"22222222-2222-4222-8222-222222222222",` +
		`"user_id":"11111111-1111-4111-8111-111111111111","start_date":"2025-01-01","end_date":"2025-12-31"}}`,
	"SearchReindexRequested": `{"type":"SearchReindexRequested"}`,
	"FederationDeliveryRequested": `{"type":"FederationDeliveryRequested","data":{"inbox_url":"https://remote.example/inbox",` +
		`"activity_json":{"type":"Create","object":{"type":"Note"}},"signing_actor_id":"11111111-1111-4111-8111-111111111111"}}`,
}

func TestRoundTripEveryVariant(t *testing.T) {
	seen := map[string]bool{}
	for _, e := range samples() {
		name := e.EventType()
		t.Run(name, func(t *testing.T) {
			if seen[name] {
				t.Fatalf("duplicate sample")
			}
			seen[name] = true
			if reflect.TypeOf(e).Name() != name {
				t.Errorf("EventType %q on Go type %s", name, reflect.TypeOf(e).Name())
			}
			b, err := Encode(e)
			if err != nil {
				t.Fatalf("Encode: %v", err)
			}
			if want := marshalEnvelope(t, e); string(b) != string(want) {
				t.Errorf("Encode writes %s, the envelope marshalled is %s", b, want)
			}
			if want, ok := wantJSON[name]; ok && string(b) != want {
				t.Errorf("Encode:\n got %s\nwant %s", b, want)
			}
			got, err := Decode(name, b)
			if err != nil {
				t.Fatalf("Decode(%s): %v", b, err)
			}
			if !reflect.DeepEqual(got, e) {
				t.Errorf("round trip:\n got %#v\nwant %#v", got, e)
			}
			if got, err := Decode("", b); err != nil || !reflect.DeepEqual(got, e) {
				t.Errorf("Decode with empty eventType: %v, %#v", err, got)
			}
		})
	}
	if want := EventTypes(); len(seen) != len(want) || len(want) != 37 {
		t.Errorf("samples cover %d types, catalogue has %d, want 37", len(seen), len(want))
	}
	for _, name := range EventTypes() {
		if !seen[name] {
			t.Errorf("no sample for %s", name)
		}
	}
}

func TestEventTypes(t *testing.T) {
	names := EventTypes()
	if len(names) != 37 || !slices.IsSorted(names) {
		t.Fatalf("EventTypes() = %v: want 37 sorted names", names)
	}
	for _, name := range names {
		e, ok := newEvent(name)
		if !ok {
			t.Errorf("newEvent(%q) not found", name)
			continue
		}
		if reflect.ValueOf(e).Kind() != reflect.Pointer {
			t.Errorf("newEvent(%q) = %T, want a pointer", name, e)
		}
		v := derefEvent(e)
		if reflect.ValueOf(v).Kind() == reflect.Pointer || v.EventType() != name {
			t.Errorf("derefEvent(newEvent(%q)) = %T (%q)", name, v, v.EventType())
		}
	}
	if _, ok := newEvent("NoSuchEvent"); ok {
		t.Error("newEvent accepted an unknown name")
	}
}

// TestDecodeOriginalShapes feeds payloads as the original system writes them: Option fields
// serialized as null rather than left out.
func TestDecodeOriginalShapes(t *testing.T) {
	cases := map[string]Event{
		`{"type":"MovieDeleted","data":{"movie_id":"22222222-2222-4222-8222-222222222222","poster_path":null}}`: MovieDeleted{MovieID: id2},
		`{"type":"WrapUpRequested","data":{"wrapup_id":"22222222-2222-4222-8222-222222222222","user_id":null,` +
			`"start_date":"2024-01-01","end_date":"2024-12-31"}}`: WrapUpRequested{WrapUpID: id2,
			StartDate: NewDate(2024, 1, 1), EndDate: NewDate(2024, 12, 31)},
		`{"type":"WatchlistEntryAdded","data":{"user_id":"33333333-3333-4333-8333-333333333333",` +
			`"movie_id":"22222222-2222-4222-8222-222222222222","movie_title":"X","release_year":2001,` +
			`"external_metadata_id":null,"added_at":1700000000}}`: WatchlistEntryAdded{UserID: id3, MovieID: id2,
			MovieTitle: "X", ReleaseYear: 2001, AddedAt: at},
		`{"type":"SearchReindexRequested"}`: SearchReindexRequested{},
	}
	for payload, want := range cases {
		got, err := Decode("", []byte(payload))
		if err != nil {
			t.Errorf("Decode(%s): %v", payload, err)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Decode(%s) = %#v, want %#v", payload, got, want)
		}
	}
	// Absent optional fields are left out on encode.
	b, _ := Encode(MovieDeleted{MovieID: id2})
	if strings.Contains(string(b), "poster_path") {
		t.Errorf("Encode kept an absent poster_path: %s", b)
	}
}

func TestDecodeRejects(t *testing.T) {
	const (
		u  = `"11111111-1111-4111-8111-111111111111"`
		u2 = `"22222222-2222-4222-8222-222222222222"`
	)
	review := func(rating string) string {
		return `{"type":"ReviewLogged","data":{"review_id":` + u + `,"movie_id":` + u2 + `,"user_id":` + u +
			`,"rating":` + rating + `,"watched_at":1700000000}}`
	}
	cases := []struct {
		name, eventType, payload string
	}{
		{"unknown type", "", `{"type":"NoSuchEvent","data":{}}`},
		{"type mismatch", "ReviewDeleted", review("4")},
		{"malformed JSON", "", `{"type":"ReviewLogged","data":{`},
		{"not an object", "", `[]`},
		{"missing type", "", `{"data":{"user_id":` + u + `}}`},
		{"missing data", "", `{"type":"UserUpdated"}`},
		{"null data", "", `{"type":"UserUpdated","data":null}`},
		{"bad UUID", "", `{"type":"UserUpdated","data":{"user_id":"not-a-uuid"}}`},
		{"nil UUID", "", `{"type":"UserUpdated","data":{"user_id":"00000000-0000-0000-0000-000000000000"}}`},
		{"missing UUID", "", `{"type":"ReviewDeleted","data":{"review_id":` + u + `}}`},
		{"rating 0", "", review("0")},
		{"rating 6", "", review("6")},
		{"rating 256", "", review("256")},
		{"rating -1", "", review("-1")},
		{"fractional rating", "", review("4.5")},
		{"watched_at missing", "", `{"type":"ReviewLogged","data":{"review_id":` + u + `,"movie_id":` + u2 +
			`,"user_id":` + u + `,"rating":3}}`},
		{"watched_at string", "", strings.Replace(review("3"), "1700000000", `"1700000000"`, 1)},
		{"empty external id", "", `{"type":"MovieDiscovered","data":{"movie_id":` + u2 + `,"external_metadata_id":""}}`},
		{"blank external id", "", `{"type":"MovieEnrichmentRequested","data":{"movie_id":` + u2 + `,"external_metadata_id":"  "}}`},
		{"empty watchlist external id", "", `{"type":"WatchlistEntryAdded","data":{"user_id":` + u + `,"movie_id":` + u2 +
			`,"movie_title":"X","release_year":2001,"external_metadata_id":"","added_at":1}}`},
		{"empty poster path", "", `{"type":"MovieDeleted","data":{"movie_id":` + u2 + `,"poster_path":""}}`},
		{"unknown identity kind", "", `{"type":"FollowAccepted","data":{"owner_id":` + u + `,"requester_kind":"alien","requester_id":"x"}}`},
		{"handle outside FollowRequested", "", `{"type":"Unfollowed","data":{"follower_id":` + u + `,"target_kind":"handle","target_id":"@a@b"}}`},
		{"local identity not a UUID", "", `{"type":"ActorBlocked","data":{"blocker_id":` + u + `,"target_kind":"local","target_id":"bob"}}`},
		{"empty remote identity", "", `{"type":"FollowerRemoved","data":{"owner_id":` + u + `,"follower_kind":"remote","follower_id":""}}`},
		{"empty inbox_url", "", `{"type":"FederationDeliveryRequested","data":{"inbox_url":"","activity_json":{},"signing_actor_id":` + u + `}}`},
		{"null activity", "", `{"type":"FederationDeliveryRequested","data":{"inbox_url":"https://x/inbox","activity_json":null,"signing_actor_id":` + u + `}}`},
		{"empty follower inbox", "", `{"type":"BackfillFollower","data":{"owner_user_id":` + u + `,"follower_inbox_url":""}}`},
		{"bad date", "", `{"type":"WrapUpRequested","data":{"wrapup_id":` + u + `,"start_date":"2024-13-01","end_date":"2024-12-31"}}`},
		{"missing date", "", `{"type":"WrapUpRequested","data":{"wrapup_id":` + u + `,"start_date":"2024-01-01"}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, err := Decode(c.eventType, []byte(c.payload))
			if err == nil {
				t.Fatalf("Decode accepted %s as %#v", c.payload, e)
			}
			if !IsPermanent(err) {
				t.Errorf("error not permanent: %v", err)
			}
		})
	}
}

func TestDateAndUnixTime(t *testing.T) {
	d, err := ParseDate("2024-02-29")
	if err != nil || d.String() != "2024-02-29" || !d.Time().Equal(time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("ParseDate = %v, %v", d, err)
	}
	for _, bad := range []string{"", "2023-02-29", "2024-2-5", "2024-01-01T00:00:00Z"} {
		if _, err := ParseDate(bad); err == nil {
			t.Errorf("ParseDate(%q) accepted", bad)
		}
	}
	local := time.Date(2024, 6, 1, 12, 30, 15, 999_000_000, time.FixedZone("X", 2*3600))
	u := NewUnixTime(local)
	if u.Time().Location() != time.UTC || u.Time().Unix() != local.Unix() || u.Time().Nanosecond() != 0 {
		t.Errorf("NewUnixTime = %v", u.Time())
	}
	b, _ := json.Marshal(u)
	var back UnixTime
	if err := json.Unmarshal(b, &back); err != nil || back != u {
		t.Errorf("UnixTime round trip %s: %v, %v", b, back, err)
	}
}

// marshalEnvelope is the payload as encoding/json writes the envelope, which Encode writes by hand.
func marshalEnvelope(t *testing.T, e Event) []byte {
	t.Helper()
	env := envelope{Type: e.EventType()}
	if _, unit := e.(unitEvent); !unit {
		data, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		env.Data = data
	}
	b, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

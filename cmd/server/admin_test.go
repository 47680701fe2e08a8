package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/adapters/activitypub"
	"moviesdiary/internal/adapters/sqlite"
	"moviesdiary/internal/delivery"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/auth"
)

// adminFixture is a migrated database with an admin (alice) and a standard user (bob) whom a
// remote actor follows.
func adminFixture(t *testing.T) (store *sqlite.Store, alice, bob domain.User) {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("DATA_DIR", dir)
	t.Setenv("BASE_URL", "https://diary.example")
	ctx := context.Background()
	store, err := sqlite.OpenMigrated(ctx, filepath.Join(dir, "moviesdiary.db"), testLog(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	hash, _ := auth.DefaultHasher.Hash("old password")
	for _, u := range []*domain.User{&alice, &bob} {
		name := map[*domain.User]string{&alice: "alice", &bob: "bob"}[u]
		role := map[*domain.User]domain.Role{&alice: domain.RoleAdmin, &bob: domain.RoleStandard}[u]
		*u, err = store.CreateUser(ctx, domain.User{ID: uuid.New(), Username: name, Email: name + "@example.org",
			PasswordHash: hash, Role: role, CreatedAt: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
	}
	db := rawDB(t, dir)
	for _, q := range []string{
		`INSERT INTO remote_actors (url, inbox, shared_inbox, key_id, public_key, fetched_at)
			VALUES ('https://remote.example/users/carol', 'https://remote.example/users/carol/inbox', 'https://remote.example/inbox',
			'https://remote.example/users/carol#main-key', 'x', 0)`,
		`INSERT INTO follows (follower_kind, follower_id, target_kind, target_id, status)
			VALUES ('remote', 'https://remote.example/users/carol', 'local', '` + bob.ID.String() + `', 'accepted')`,
		`INSERT INTO follows (follower_kind, follower_id, target_kind, target_id, status)
			VALUES ('local', '` + bob.ID.String() + `', 'local', '` + alice.ID.String() + `', 'accepted')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	return store, alice, bob
}

func rawDB(t *testing.T, dir string) *sql.DB {
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, "moviesdiary.db")+"?_busy_timeout=10000")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestAdminUsersListAndSetRole(t *testing.T) {
	_, alice, bob := adminFixture(t)
	code, out, stderr := runCLI(t, "", "admin", "users", "list", "--json")
	var users []struct{ Username, Role string }
	if err := json.Unmarshal([]byte(out), &users); code != 0 || err != nil || len(users) != 2 ||
		users[0].Username != "alice" || users[0].Role != "admin" || users[1].Role != "standard" {
		t.Fatalf("list: exit %d %q %q (%v)", code, out, stderr, err)
	}
	if code, out, _ := runCLI(t, "", "admin", "users", "list"); code != 0 || !strings.Contains(out, "USERNAME") || !strings.Contains(out, bob.Email) {
		t.Fatalf("list (table): exit %d %q", code, out)
	}
	// The only admin cannot be demoted while others remain.
	if code, _, stderr := runCLI(t, "", "admin", "users", "set-role", "alice", "standard"); code != 1 || !strings.Contains(stderr, "only admin") {
		t.Fatalf("demoting the last admin: exit %d %q", code, stderr)
	}
	if code, out, _ := runCLI(t, "", "admin", "users", "set-role", bob.Email, "admin"); code != 0 || !strings.Contains(out, "is now admin") {
		t.Fatalf("promote bob by e-mail: exit %d %q", code, out)
	}
	if code, _, _ := runCLI(t, "", "admin", "users", "set-role", alice.ID.String(), "standard"); code != 0 {
		t.Fatalf("demote alice by id once bob is admin: exit %d", code)
	}
	for _, args := range [][]string{
		{"admin"}, {"admin", "users"}, {"admin", "users", "frobnicate"}, {"admin", "users", "set-role", "bob", "root"},
		{"admin", "users", "list", "extra"}, {"admin", "users", "delete-user", "bob"}, {"admin", "users", "list", "--nope"},
	} {
		if code, _, stderr := runCLI(t, "", args...); code != 2 {
			t.Errorf("server %v: exit %d (%q), want the usage error 2", args, code, stderr)
		}
	}
	if code, _, stderr := runCLI(t, "", "admin", "users", "set-role", "nobody", "admin"); code != 1 || !strings.Contains(stderr, "not found") {
		t.Errorf("unknown user: exit %d %q", code, stderr)
	}
}

func TestAdminResetPasswordEndsSessions(t *testing.T) {
	store, _, bob := adminFixture(t)
	ctx := context.Background()
	if err := store.CreateSession(ctx, bob.ID, "hash", time.Now(), time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "short\n", "admin", "users", "reset-password", "bob", "--password-stdin"); code != 1 || !strings.Contains(stderr, "at least") {
		t.Fatalf("short password: exit %d %q", code, stderr)
	}
	code, out, stderr := runCLI(t, "a new long password\n", "admin", "users", "reset-password", "bob", "--password-stdin")
	if code != 0 || strings.Contains(out, "new password:") {
		t.Fatalf("reset from stdin: exit %d %q %q", code, out, stderr)
	}
	u, _ := store.UserByID(ctx, bob.ID)
	if !auth.DefaultHasher.Verify("a new long password", u.PasswordHash) {
		t.Fatal("the new password does not verify")
	}
	if _, err := store.RotateSession(ctx, "hash", "hash2", time.Now(), time.Now().Add(time.Hour)); err == nil {
		t.Fatal("bob's session survived the reset")
	}
	code, out, _ = runCLI(t, "", "admin", "users", "reset-password", "bob")
	_, generated, ok := strings.Cut(out, "new password: ")
	u, _ = store.UserByID(ctx, bob.ID)
	if code != 0 || !ok || !auth.DefaultHasher.Verify(strings.TrimSpace(generated), u.PasswordHash) {
		t.Fatalf("generated reset: exit %d %q", code, out)
	}
}

// TestAdminDeleteUserFederatesTheActorDelete: the account goes with UserDeleted in the outbox,
// and the worker's outbound handler turns it into a Delete of the actor for the remote follower.
func TestAdminDeleteUserFederatesTheActorDelete(t *testing.T) {
	store, alice, bob := adminFixture(t)
	ctx := context.Background()
	code, out, stderr := runCLI(t, "", "admin", "users", "delete-user", "bob", "--yes")
	if code != 0 || !strings.Contains(out, "deleted bob") {
		t.Fatalf("delete-user: exit %d %q %q", code, out, stderr)
	}
	if _, err := store.UserByID(ctx, bob.ID); !domainNotFound(err) {
		t.Fatalf("bob still there: %v", err)
	}
	db := rawDB(t, os.Getenv("DATA_DIR"))
	var eventID, payload string
	if err := db.QueryRow(`SELECT event_id, payload FROM event_queue WHERE event_type = 'UserDeleted'`).Scan(&eventID, &payload); err != nil {
		t.Fatalf("no UserDeleted in the outbox: %v", err)
	}
	var localFollows int
	db.QueryRow(`SELECT count(*) FROM follows WHERE follower_kind = 'local'`).Scan(&localFollows)
	if localFollows != 0 {
		t.Errorf("bob's follow of alice survived (%d local follows)", localFollows)
	}

	fed, err := activitypub.New(store, activitypub.Config{BaseURL: "https://diary.example", Logger: testLog(t)})
	if err != nil {
		t.Fatal(err)
	}
	var outbound delivery.Handler
	for _, h := range fed.Handlers() {
		if h.Name == activitypub.OutboundHandler {
			outbound = h
		}
	}
	if err := outbound.Handle(ctx, delivery.Envelope{EventID: eventID, Event: domain.UserDeleted{UserID: bob.ID}, Attempt: 1}); err != nil {
		t.Fatalf("outbound handler: %v", err)
	}
	var raw []byte
	err = db.QueryRow(`SELECT payload FROM event_queue WHERE event_type = 'FederationDeliveryRequested'`).Scan(&raw)
	var env struct {
		Data domain.FederationDeliveryRequested
	}
	if err == nil {
		err = json.Unmarshal(raw, &env)
	}
	d := env.Data
	if err != nil || d.InboxURL != "https://remote.example/inbox" || !strings.Contains(string(d.ActivityJSON), `"Delete"`) ||
		!strings.Contains(string(d.ActivityJSON), bob.ID.String()) || d.SigningActorID != bob.ID {
		t.Fatalf("delivery: %v %+v", err, d)
	}
	// The last admin is never deleted, even when it is the last user (issue 35).
	if code, _, stderr := runCLI(t, "", "admin", "users", "delete-user", alice.Username, "--yes"); code == 0 || !strings.Contains(stderr, "admin") {
		t.Fatalf("deleting the last user (an admin): exit %d %q, want a refusal naming the last admin", code, stderr)
	}
}

// TestAdminNeedsAnExistingDatabase: a wrong DATA_DIR says so and creates nothing.
func TestAdminNeedsAnExistingDatabase(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nowhere")
	t.Setenv("DATA_DIR", dir)
	code, _, stderr := runCLI(t, "", "admin", "users", "list")
	if code != 1 || !strings.Contains(stderr, "no database") {
		t.Fatalf("exit %d %q; want 1 saying there is no database", code, stderr)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Fatal("the command created the data directory")
	}
}

func domainNotFound(err error) bool { return err != nil && domain.KindOf(err) == domain.KindNotFound }

// TestAdminUsersCreateAndLastAdmin: the operator makes the first admin from the CLI, and the
// last admin can be neither demoted nor deleted, even on a one-user instance.
func TestAdminUsersCreateAndLastAdmin(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("DATA_DIR", dir)
	t.Setenv("BASE_URL", "https://diary.example")
	store, err := sqlite.OpenMigrated(context.Background(), filepath.Join(dir, "moviesdiary.db"), testLog(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	code, out, stderr := runCLI(t, "a long root password\n", "admin", "users", "create", "root@example.org", "root", "--admin", "--password-stdin")
	if code != 0 || !strings.Contains(out, "as admin") {
		t.Fatalf("create --admin: exit %d %q %q", code, out, stderr)
	}
	u, err := store.UserByUsername(context.Background(), "root")
	if err != nil || u.Role != domain.RoleAdmin || u.Pending || !auth.DefaultHasher.Verify("a long root password", u.PasswordHash) {
		t.Fatalf("created %+v, %v", u, err)
	}
	if code, _, stderr := runCLI(t, "", "admin", "users", "set-role", "root", "standard"); code != 1 || !strings.Contains(stderr, "only admin") {
		t.Fatalf("demoting the only user, the last admin: exit %d %q", code, stderr)
	}
	if code, _, stderr := runCLI(t, "", "admin", "users", "delete-user", "root", "--yes"); code != 1 || !strings.Contains(stderr, "only admin") {
		t.Fatalf("deleting the last admin: exit %d %q", code, stderr)
	}
	if u, err := store.UserByID(context.Background(), u.ID); err != nil || u.Role != domain.RoleAdmin {
		t.Fatalf("after the refusals: %+v, %v", u, err)
	}
	code, out, _ = runCLI(t, "", "admin", "users", "invite")
	if code != 0 || !strings.Contains(out, "https://diary.example/register?invite=") {
		t.Fatalf("invite: exit %d %q", code, out)
	}
	if code, out, _ := runCLI(t, "", "admin", "users", "create", "pat@example.org", "pat"); code != 0 || !strings.Contains(out, "password: ") {
		t.Fatalf("create with a generated password: exit %d %q", code, out)
	}
}

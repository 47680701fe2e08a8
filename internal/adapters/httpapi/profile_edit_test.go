package httpapi_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"moviesdiary/internal/adapters/tmdb/tmdbtest"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/image"
)

// ownProfile is GET /api/v1/profile.
type ownProfile struct {
	Username    string  `json:"username"`
	DisplayName *string `json:"display_name"`
	Bio         *string `json:"bio"`
	AvatarURL   *string `json:"avatar_url"`
	BannerURL   *string `json:"banner_url"`
	AlsoKnownAs *string `json:"also_known_as"`
	Fields      []struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	} `json:"fields"`
	Role  string `json:"role"`
	Goals []struct {
		Year int `json:"year"`
	} `json:"goals"`
}

func (b *bundle) ownProfile(a account) (ownProfile, map[string]any) {
	b.t.Helper()
	resp := b.must(200, req{method: "GET", path: "/api/v1/profile", token: a.token})
	var p ownProfile
	var raw map[string]any
	resp.json(b.t, &p)
	resp.json(b.t, &raw)
	return p, raw
}

func str(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}

func TestProfileReplaceAndRead(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := b.register("alice")

	p, raw := b.ownProfile(alice)
	if p.Username != "alice" || p.Role != "admin" || p.DisplayName != nil || p.AvatarURL != nil || p.Fields == nil ||
		len(p.Fields) != 0 || p.Goals == nil {
		t.Fatalf("fresh profile = %+v", p)
	}
	if v, ok := raw["also_known_as"]; !ok || v != nil {
		t.Errorf("also_known_as = %v (present %v), want null", v, ok)
	}

	since := b.lastEvent()
	jpeg, webp := tmdbtest.PosterJPEG(), testWebP(t)
	b.must(204, multipartReq(t, alice.token, part{name: "display_name", value: "  Alice A. "}, part{name: "bio", value: "I watch films."},
		part{name: "also_known_as", value: "https://old.test/users/alice"},
		part{name: "avatar", filename: "me.txt", data: jpeg}, part{name: "banner", filename: "b.webp", data: webp}))
	p, _ = b.ownProfile(alice)
	avatarPrefix := "http://diary.test/images/avatars/" + alice.id.String() + "/"
	if str(p.DisplayName) != "Alice A." || str(p.Bio) != "I watch films." || str(p.AlsoKnownAs) != "https://old.test/users/alice" ||
		!strings.HasPrefix(str(p.AvatarURL), avatarPrefix) || !strings.HasSuffix(str(p.BannerURL), ".webp") {
		t.Fatalf("profile after PUT = %+v (avatar %s, banner %s)", p, str(p.AvatarURL), str(p.BannerURL))
	}
	if got := b.eventTypes(since); !slices.Equal(got, []string{"UserUpdated", "UserAccountMoved", "ImageStored", "ImageStored"}) {
		t.Errorf("events = %v", got)
	}
	if moved := b.eventPayloads(since, "UserAccountMoved"); len(moved) != 1 || moved[0]["new_actor_url"] != "https://old.test/users/alice" ||
		moved[0]["user_id"] != alice.id.String() {
		t.Errorf("UserAccountMoved payloads = %v", moved)
	}
	// The stored original is served where the profile says.
	resp := b.must(200, req{method: "GET", path: strings.TrimPrefix(*p.AvatarURL, "http://diary.test")})
	if !bytes.Equal(resp.body, jpeg) || resp.header.Get("Content-Type") != "image/jpeg" {
		t.Errorf("avatar served as %s, %d bytes", resp.header.Get("Content-Type"), len(resp.body))
	}

	// The public profile carries the same.
	var pub map[string]any
	b.must(200, req{method: "GET", path: "/api/v1/users/" + alice.id.String(), token: alice.token}).json(t, &pub)
	if pub["display_name"] != "Alice A." || pub["bio"] != "I watch films." || pub["avatar_url"] != *p.AvatarURL ||
		pub["banner_url"] != *p.BannerURL {
		t.Errorf("GET /users/{id} = %v", pub)
	}
	if _, ok := pub["email"]; ok {
		t.Errorf("GET /users/{id} shows an e-mail: %v", pub)
	}

	// Full replace: absent text parts are cleared, absent or empty files keep the images, and an
	// unchanged alias sends no Move.
	since = b.lastEvent()
	b.must(204, multipartReq(t, alice.token, part{name: "display_name", value: "Alice"},
		part{name: "also_known_as", value: "https://old.test/users/alice"}, part{name: "avatar", filename: "", data: nil}))
	q, _ := b.ownProfile(alice)
	if str(q.DisplayName) != "Alice" || q.Bio != nil || str(q.AvatarURL) != str(p.AvatarURL) || str(q.BannerURL) != str(p.BannerURL) {
		t.Errorf("profile after a partial PUT = %+v", q)
	}
	if got := b.eventTypes(since); !slices.Equal(got, []string{"UserUpdated"}) {
		t.Errorf("events of a PUT keeping the alias = %v, want [UserUpdated]", got)
	}
	// Clearing the alias is no Move either.
	since = b.lastEvent()
	b.must(204, multipartReq(t, alice.token, part{name: "display_name", value: "Alice"}))
	if got := b.eventTypes(since); !slices.Equal(got, []string{"UserUpdated"}) {
		t.Errorf("events of a PUT clearing the alias = %v, want [UserUpdated]", got)
	}

	// Fields.
	b.must(204, req{method: "PUT", path: "/api/v1/profile/fields", token: alice.token, body: map[string]any{"fields": []map[string]string{
		{"name": " Website ", "value": "https://alice.test"}, {"name": "Pronouns", "value": ""}}}})
	q, _ = b.ownProfile(alice)
	if len(q.Fields) != 2 || q.Fields[0].Name != "Website" || q.Fields[1].Name != "Pronouns" || q.Fields[1].Value != "" {
		t.Errorf("fields = %+v", q.Fields)
	}
}

func TestProfileRejectsBadRequests(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := b.register("alice")
	for _, c := range []struct {
		name   string
		r      req
		status int
		msg    string
	}{
		{"GET without a token", req{method: "GET", path: "/api/v1/profile"}, 401, ""},
		{"PUT without a token", multipartReq(t, "", part{name: "bio", value: "x"}), 401, ""},
		{"fields without a token", req{method: "PUT", path: "/api/v1/profile/fields", body: map[string]any{"fields": []any{}}}, 401, ""},
		{"PUT as JSON", req{method: "PUT", path: "/api/v1/profile", token: alice.token, body: map[string]any{"bio": "x"}}, 415, ""},
		{"multipart without a boundary", req{method: "PUT", path: "/api/v1/profile", token: alice.token, body: "x",
			header: map[string]string{"Content-Type": "multipart/form-data"}}, 400, ""},
		{"an avatar that is text", multipartReq(t, alice.token, part{name: "avatar", filename: "a.png", data: []byte("<svg></svg>")}),
			400, "avatars must be jpeg, png, or webp"},
		{"a banner that is a GIF", multipartReq(t, alice.token, part{name: "banner", filename: "b.gif", data: []byte("GIF89a\x01\x00\x01\x00")}),
			400, "banners must be jpeg, png, or webp"},
		{"a truncated PNG", multipartReq(t, alice.token, part{name: "avatar", filename: "a.png", data: testPNG(t, 4, 4)[:20]}),
			400, "avatars must be jpeg, png, or webp"},
		{"an avatar over 2 MiB", multipartReq(t, alice.token, part{name: "avatar", filename: "a.png",
			data: append(testPNG(t, 4, 4), make([]byte, 2<<20)...)}), 413, "avatar exceeds 2097152 bytes"},
		{"a body over the limit", multipartReq(t, alice.token, part{name: "junk", value: strings.Repeat("x", 5<<20)}), 413, ""},
		{"a huge image", multipartReq(t, alice.token, part{name: "avatar", filename: "a.png", data: testPNG(t, 12_001, 1)}), 400,
			"avatar: the image is 12001×1 pixels; at most 12000 on a side and 40 megapixels in all are accepted"},
		{"a display name too long", multipartReq(t, alice.token, part{name: "display_name", value: strings.Repeat("é", 101)}),
			400, "Display name exceeds 100 characters"},
		{"an alias that is no URL", multipartReq(t, alice.token, part{name: "also_known_as", value: "alice@old.test"}), 400, ""},
		{"a repeated part", multipartReq(t, alice.token, part{name: "bio", value: "a"}, part{name: "bio", value: "b"}), 400, ""},
		{"five fields", req{method: "PUT", path: "/api/v1/profile/fields", token: alice.token, body: map[string]any{
			"fields": slices.Repeat([]map[string]string{{"name": "a", "value": "b"}}, 5)}}, 400, "Maximum 4 profile fields allowed"},
		{"no fields array", req{method: "PUT", path: "/api/v1/profile/fields", token: alice.token, body: map[string]any{}}, 422, ""},
		{"a field without a value", req{method: "PUT", path: "/api/v1/profile/fields", token: alice.token, body: map[string]any{
			"fields": []map[string]string{{"name": "a"}}}}, 422, ""},
		{"a field name of the wrong type", req{method: "PUT", path: "/api/v1/profile/fields", token: alice.token,
			body: `{"fields": [{"name": 1, "value": "b"}]}`}, 422, ""},
		{"a field with an empty name", req{method: "PUT", path: "/api/v1/profile/fields", token: alice.token, body: map[string]any{
			"fields": []map[string]string{{"name": " ", "value": "b"}}}}, 400, ""},
		{"malformed JSON fields", req{method: "PUT", path: "/api/v1/profile/fields", token: alice.token, body: `{"fields": [`}, 400, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			since := b.lastEvent()
			msg := b.must(c.status, c.r).errorMessage(t)
			if c.msg != "" && msg != c.msg {
				t.Errorf("message = %q, want %q", msg, c.msg)
			}
			if got := b.eventTypes(since); len(got) != 0 {
				t.Errorf("a refused request committed %v", got)
			}
		})
	}
	if p, _ := b.ownProfile(alice); p.DisplayName != nil || p.Bio != nil || p.AvatarURL != nil || p.BannerURL != nil || len(p.Fields) != 0 {
		t.Errorf("profile after refused requests = %+v, want it untouched", p)
	}
	for _, dir := range []string{"avatars", "banners"} {
		if entries, err := os.ReadDir(filepath.Join(b.images.Dir(), dir)); !errors.Is(err, fs.ErrNotExist) || len(entries) > 0 {
			t.Errorf("refused uploads left %s in the image directory (%v)", dir, err)
		}
	}
}

// TestAvatarGoesThroughTheConversion: the worker's conversion of an uploaded avatar points the
// profile at the WebP, deletes the original and commits a UserUpdated, so federation republishes
// the actor with the new URL.
func TestAvatarGoesThroughTheConversion(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := b.register("alice")
	since := b.lastEvent()
	b.must(204, multipartReq(t, alice.token, part{name: "avatar", filename: "me.png", data: testPNG(t, 32, 32)}))
	stored := b.eventPayloads(since, "ImageStored")
	if len(stored) != 1 {
		t.Fatalf("ImageStored events = %v", stored)
	}
	key := stored[0]["key"].(string)
	webp := testWebP(t)
	conv := image.NewConversion(b.store, b.images, func([]byte) ([]byte, error) { return webp, nil },
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	since = b.lastEvent()
	if err := conv.Handle(context.Background(), domain.ImageStored{Key: key}); err != nil {
		t.Fatal(err)
	}
	p, _ := b.ownProfile(alice)
	if want := "http://diary.test/images/" + key + ".webp"; str(p.AvatarURL) != want {
		t.Errorf("avatar after conversion = %s, want %s", str(p.AvatarURL), want)
	}
	if ok, err := b.images.Exists(context.Background(), key); err != nil || ok {
		t.Errorf("original still stored (%v, %v)", ok, err)
	}
	if got := b.eventTypes(since); !slices.Equal(got, []string{"UserUpdated"}) {
		t.Errorf("events of the conversion = %v, want [UserUpdated]", got)
	}
	// A replay changes nothing and emits nothing.
	since = b.lastEvent()
	if err := conv.Handle(context.Background(), domain.ImageStored{Key: key}); err != nil {
		t.Fatal(err)
	}
	if got := b.eventTypes(since); len(got) != 0 {
		t.Errorf("events of a replayed conversion = %v", got)
	}
	// Uploading the same picture again keeps the converted one.
	since = b.lastEvent()
	b.must(204, multipartReq(t, alice.token, part{name: "avatar", filename: "me.png", data: testPNG(t, 32, 32)}))
	if q, _ := b.ownProfile(alice); str(q.AvatarURL) != str(p.AvatarURL) {
		t.Errorf("avatar after re-uploading it = %s, want %s", str(q.AvatarURL), str(p.AvatarURL))
	}
	if got := b.eventTypes(since); !slices.Equal(got, []string{"UserUpdated"}) {
		t.Errorf("events of re-uploading = %v", got)
	}
}

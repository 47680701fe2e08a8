package httpapi_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"mime/multipart"
	"testing"
)

// part is one part of a multipart form: a text field, or a file when filename is set.
type part struct {
	name, filename, value string
	data                  []byte
}

// multipartReq is a PUT /api/v1/profile of parts.
func multipartReq(t testing.TB, token string, parts ...part) req {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, p := range parts {
		if p.filename == "" {
			if err := mw.WriteField(p.name, p.value); err != nil {
				t.Fatal(err)
			}
			continue
		}
		w, err := mw.CreateFormFile(p.name, p.filename)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(p.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return req{method: "PUT", path: "/api/v1/profile", token: token, body: buf.Bytes(),
		header: map[string]string{"Content-Type": mw.FormDataContentType()}}
}

// testPNG is a w×h PNG.
func testPNG(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{R: uint8(x), G: uint8(y), B: 80, A: 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// testWebP is a 1×1 lossless WebP.
func testWebP(t testing.TB) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString("UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// eventPayloads are the payloads of the outbox rows of type typ after row id since, decoded.
func (b *bundle) eventPayloads(since int64, typ string) []map[string]any {
	b.t.Helper()
	rows, err := b.db.Query(`SELECT payload FROM event_queue WHERE id > ? AND event_type = ? ORDER BY id`, since, typ)
	if err != nil {
		b.t.Fatal(err)
	}
	defer rows.Close()
	var out []map[string]any
	for rows.Next() {
		var raw string
		if err := rows.Scan(&raw); err != nil {
			b.t.Fatal(err)
		}
		var env map[string]any
		if err := json.Unmarshal([]byte(raw), &env); err != nil {
			b.t.Fatalf("payload %s: %v", raw, err)
		}
		if data, ok := env["data"].(map[string]any); ok {
			env = data
		}
		out = append(out, env)
	}
	return out
}

// areaWriteCases are the profile and goal writes, for TestWritesCommitWithTheirEvents.
func areaWriteCases() []writeCase {
	goal := func(b *bundle) account {
		a := b.register("alice")
		b.must(200, req{method: "POST", path: "/api/v1/goals", token: a.token, body: map[string]any{"year": 2024, "target_count": 10}})
		return a
	}
	return []writeCase{{
		name: "replace profile with a new alias",
		arrange: func(b *bundle) req {
			a := b.register("alice")
			return multipartReq(b.t, a.token, part{name: "display_name", value: "Alice A."}, part{name: "bio", value: "films"},
				part{name: "also_known_as", value: "https://elsewhere.test/users/alice"})
		},
		state:      `SELECT ifnull(display_name, '') || '/' || ifnull(bio, '') || '/' || ifnull(also_known_as, '') FROM users`,
		wantStatus: 204, wantState: "Alice A./films/https://elsewhere.test/users/alice",
		wantEvents: []string{"UserUpdated", "UserAccountMoved"},
	}, {
		name: "upload an avatar",
		arrange: func(b *bundle) req {
			a := b.register("alice")
			return multipartReq(b.t, a.token, part{name: "display_name", value: "Alice"},
				part{name: "avatar", filename: "me.png", data: testPNG(b.t, 16, 16)})
		},
		state:      `SELECT ifnull(display_name, '') || '/' || (avatar_key IS NOT NULL) FROM users`,
		wantStatus: 204, wantState: "Alice/1",
		wantEvents: []string{"UserUpdated", "ImageStored"},
	}, {
		name: "replace profile fields",
		arrange: func(b *bundle) req {
			a := b.register("alice")
			return req{method: "PUT", path: "/api/v1/profile/fields", token: a.token, body: map[string]any{
				"fields": []map[string]string{{"name": "Website", "value": "https://alice.test"}}}}
		},
		state:      `SELECT profile_fields FROM users`,
		wantStatus: 204, wantState: `[{"name":"Website","value":"https://alice.test"}]`,
		wantEvents: []string{"UserUpdated"},
	}, {
		name: "create goal",
		arrange: func(b *bundle) req {
			a := b.register("alice")
			return req{method: "POST", path: "/api/v1/goals", token: a.token, body: map[string]any{"year": 2024, "target_count": 10}}
		},
		state:      `SELECT count(*) FROM goals`,
		wantStatus: 200, wantState: "1",
		wantEvents: []string{"GoalCreated"},
	}, {
		name: "update goal",
		arrange: func(b *bundle) req {
			a := goal(b)
			return req{method: "PUT", path: "/api/v1/goals/2024", token: a.token, body: map[string]any{"target_count": 20}}
		},
		state:      `SELECT group_concat(target_count) FROM goals`,
		wantStatus: 200, wantState: "20",
		wantEvents: []string{"GoalUpdated"},
	}, {
		name: "delete goal",
		arrange: func(b *bundle) req {
			a := goal(b)
			return req{method: "DELETE", path: "/api/v1/goals/2024", token: a.token}
		},
		state:      `SELECT count(*) FROM goals`,
		wantStatus: 204, wantState: "0",
		wantEvents: []string{"GoalDeleted"},
	}}
}

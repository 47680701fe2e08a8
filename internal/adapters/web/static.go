package web

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"net/http"
)

//go:embed static/icon.svg
var iconSVG []byte

//go:embed static/manifest.webmanifest
var webManifest []byte

// asset is an embedded file served as it is, cacheable and revalidated by its ETag.
type asset struct {
	body        []byte
	contentType string
	etag        string
}

func newAsset(body []byte, contentType string) asset {
	sum := sha256.Sum256(body)
	return asset{body: body, contentType: contentType, etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
}

func (a asset) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", a.contentType)
	h.Set("Cache-Control", "public, max-age=86400")
	h.Set("ETag", a.etag)
	h.Set("X-Content-Type-Options", "nosniff")
	if r.Header.Get("If-None-Match") == a.etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	_, _ = w.Write(a.body)
}

// The icon (also at /favicon.ico, which browsers ask for by themselves: they go by the content
// type, so the SVG serves there too) and the web manifest that lets a phone add the diary to its
// home screen.
var (
	iconAsset     = newAsset(iconSVG, "image/svg+xml")
	manifestAsset = newAsset(webManifest, "application/manifest+json")
)

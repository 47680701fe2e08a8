package web_test

import (
	"bytes"
	"image"
	"image/png"
	"mime/multipart"
	"net/http"
	"net/url"
	"testing"
)

func TestBannerUpload(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ann := b.register("ann")
	contains(t, mustStatus(t, ann.get("/settings"), http.StatusOK), `<label for="banner">`, `name="banner" type="file"`)
	var img bytes.Buffer
	if err := png.Encode(&img, image.NewRGBA(image.Rect(0, 0, 30, 10))); err != nil {
		t.Fatal(err)
	}
	upload := func(data []byte, csrf string) page {
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		_ = mw.WriteField("csrf", csrf)
		_ = mw.WriteField("display_name", "Ann")
		fw, _ := mw.CreateFormFile("banner", "wide.png")
		_, _ = fw.Write(data)
		_ = mw.Close()
		req, _ := http.NewRequest(http.MethodPost, b.srv.URL+"/settings/profile", &body)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		return ann.do(req)
	}
	mustStatus(t, upload(img.Bytes(), "forged"), http.StatusForbidden)
	if key := b.String(`SELECT banner_key FROM users WHERE username = 'ann'`); key != "" {
		t.Fatalf("a refused form stored banner %q", key)
	}
	if bad := upload([]byte("not an image"), ann.csrf()); bad.status < 400 || bad.status >= 500 {
		t.Errorf("not an image: status %d", bad.status)
	}
	mustStatus(t, upload(img.Bytes(), ann.csrf()), http.StatusSeeOther)
	if key := b.String(`SELECT banner_key FROM users WHERE username = 'ann'`); key == "" {
		t.Fatal("no banner stored")
	}
	p := mustStatus(t, ann.get("/u/"+b.userID("ann").String()), http.StatusOK)
	contains(t, p, `class="banner" src="/images/`)
}

func TestProfileFields(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ann := b.register("ann")
	p := mustStatus(t, ann.get("/settings"), http.StatusOK)
	contains(t, p, `action="/settings/fields"`, `<label for="field-name-0">`, `<label for="field-value-3">`)
	lacks(t, p, `field-name-4`)

	mustStatus(t, ann.post("/settings/fields", url.Values{"field-name-0": {"Site"}, "field-value-0": {"x"}, "csrf": {"forged"}}),
		http.StatusForbidden)
	mustStatus(t, ann.post("/settings/fields", url.Values{"field-name-0": {"Site"}, "field-value-0": {"https://ann.example"},
		"field-name-2": {`<b>Fav</b>`}, "field-value-2": {`"Heat" <script>`}}), http.StatusSeeOther)
	p = mustStatus(t, ann.get("/settings"), http.StatusOK)
	contains(t, p, `id="field-name-0" name="field-name-0" maxlength="100" value="Site"`,
		`name="field-name-1" maxlength="100" value="&lt;b&gt;Fav&lt;/b&gt;"`, `value="&#34;Heat&#34; &lt;script&gt;"`)
	prof := mustStatus(t, ann.get("/u/"+b.userID("ann").String()), http.StatusOK)
	contains(t, prof, "<strong>Site</strong> https://ann.example", "<strong>&lt;b&gt;Fav&lt;/b&gt;</strong> &#34;Heat&#34; &lt;script&gt;")
	lacks(t, prof, "<script>", "<b>Fav</b>")

	bad := mustStatus(t, ann.post("/settings/fields", url.Values{"field-value-1": {"a value with no name"}}), http.StatusBadRequest)
	contains(t, bad, `role="alert"`, "has no name")
	// Clearing every row removes the fields.
	mustStatus(t, ann.post("/settings/fields", url.Values{}), http.StatusSeeOther)
	lacks(t, mustStatus(t, ann.get("/u/"+b.userID("ann").String()), http.StatusOK), "<strong>Site</strong>")
}

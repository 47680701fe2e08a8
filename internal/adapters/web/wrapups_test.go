package web_test

import (
	"net/http"
	"net/url"
	"testing"
)

// TestSharedWrapUpPages: a user's yearly wrap-up has a stable address; private (the default) it
// is 404 to another user and to a visitor, the very answer of a wrap-up that does not exist, and
// readable by its owner and an admin; once the owner makes their wrap-ups public in the settings
// (a CSRF-checked form), anyone reads it. The instance's is public. Hostile names are escaped.
func TestSharedWrapUpPages(t *testing.T) {
	t.Parallel()
	b := setup(t)
	admin := b.register("root")
	ann, carl := b.register("ann"), b.register("carl")
	visitor := b.browser()
	ann.logReview("Heat", "1995", 4, "")
	mustStatus(t, ann.post("/settings/profile", url.Values{"display_name": {`<b onmouseover=alert(3)>Ann</b>`}}), http.StatusSeeOther)
	mustStatus(t, admin.post("/wrapups", url.Values{"year": {"2024"}, "user": {"ann"}}), http.StatusSeeOther)
	generate(t, b, b.String(`SELECT id FROM wrapups`))
	annID, carlID := b.userID("ann").String(), b.userID("carl").String()
	share := "/u/" + annID + "/wrapup/2024"

	contains(t, mustStatus(t, ann.get("/wrapups"), http.StatusOK), `href="`+share+`"`)
	for _, br := range []*browser{ann, admin} {
		p := mustStatus(t, br.get(share), http.StatusOK)
		contains(t, p, "<h1>Wrap-up 2024</h1>", "<strong>1</strong> movies", "&lt;b onmouseover=alert(3)&gt;Ann&lt;/b&gt;",
			`href="/u/`+annID+`"`)
		lacks(t, p, "<b onmouseover")
		contains(t, p, "Address to share", `>http://diary.test`+share+`</a>`, `href="/wrapups"`)
	}
	contains(t, mustStatus(t, ann.get(share), http.StatusOK), "Private: only you and the admins")
	lacks(t, mustStatus(t, admin.get(share), http.StatusOK), "Private: only you")
	// Her page links it for her, for nobody else while private.
	contains(t, mustStatus(t, ann.get("/u/"+annID), http.StatusOK), `<h2>Wrap-ups</h2>`, `href="`+share+`"`)
	lacks(t, mustStatus(t, carl.get("/u/"+annID), http.StatusOK), `<h2>Wrap-ups</h2>`, share)
	lacks(t, mustStatus(t, visitor.get("/u/"+annID), http.StatusOK), share)
	// Private: 404 to others, the same page as a wrap-up that does not exist.
	missing := mustStatus(t, visitor.get("/u/"+carlID+"/wrapup/2024"), http.StatusNotFound)
	for name, br := range map[string]*browser{"another user": carl, "a visitor": visitor} {
		p := mustStatus(t, br.get(share), http.StatusNotFound)
		lacks(t, p, "<strong>1</strong> movies", "Ann")
		if br == visitor && p.body != missing.body {
			t.Errorf("%s: a private wrap-up's 404 differs from a missing one's:\n%s\n---\n%s", name, p.body, missing.body)
		}
	}
	for _, path := range []string{"/u/" + annID + "/wrapup/2023", "/u/" + annID + "/wrapup/nope", "/u/nope/wrapup/2024",
		"/u/" + annID + "/wrapup/99999", "/wrapup/2024"} {
		mustStatus(t, ann.get(path), http.StatusNotFound)
	}

	// The opt-in, in the settings.
	set := mustStatus(t, ann.get("/settings"), http.StatusOK)
	contains(t, set, `action="/settings/wrapups"`, `<input type="checkbox" name="public">`)
	mustStatus(t, ann.postRaw("/settings/wrapups", url.Values{"public": {"on"}}), http.StatusForbidden)
	contains(t, mustStatus(t, visitor.post("/settings/wrapups", url.Values{"public": {"on"}}), http.StatusUnauthorized), "Sign in")
	mustStatus(t, carl.get(share), http.StatusNotFound)
	mustStatus(t, ann.post("/settings/wrapups", url.Values{"public": {"on"}}), http.StatusSeeOther)
	contains(t, mustStatus(t, ann.get("/settings"), http.StatusOK), `<input type="checkbox" name="public" checked>`)
	lacks(t, mustStatus(t, ann.get(share), http.StatusOK), "Private: only you")
	for _, br := range []*browser{carl, visitor} {
		p := mustStatus(t, br.get(share), http.StatusOK)
		contains(t, p, "<strong>1</strong> movies", "&lt;b onmouseover")
		contains(t, p, "Address to share")
		lacks(t, p, "<b onmouseover")
	}
	contains(t, mustStatus(t, visitor.get("/u/"+annID), http.StatusOK), `href="`+share+`"`)
	// Her choice opens hers only.
	mustStatus(t, visitor.get("/u/"+carlID+"/wrapup/2024"), http.StatusNotFound)
	// Unticked, private again.
	mustStatus(t, ann.post("/settings/wrapups", url.Values{}), http.StatusSeeOther)
	mustStatus(t, visitor.get(share), http.StatusNotFound)

	// The instance's wrap-up is public.
	mustStatus(t, admin.post("/wrapups", url.Values{"year": {"2024"}}), http.StatusSeeOther)
	generate(t, b, b.String(`SELECT id FROM wrapups WHERE user_id IS NULL`))
	contains(t, mustStatus(t, visitor.get("/wrapup/2024"), http.StatusOK), "the whole instance", "<strong>1</strong> movies")
	contains(t, mustStatus(t, carl.get("/wrapups"), http.StatusOK), `href="/wrapup/2024"`)
}

// TestWrapUpWithoutRuntimesSaysTheWatchTimeIsUnknown: films without a runtime (typed in by
// hand, not enriched) make the watch time unknown, not "0 minutes".
func TestWrapUpWithoutRuntimesSaysTheWatchTimeIsUnknown(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ann := b.register("ann")
	ann.logReview("Heat", "1995", 4, "")
	mustStatus(t, ann.post("/wrapups", url.Values{"year": {"2024"}}), http.StatusSeeOther)
	generate(t, b, b.String(`SELECT id FROM wrapups`))
	p := mustStatus(t, ann.get("/wrapups/"+b.String(`SELECT id FROM wrapups`)), http.StatusOK)
	contains(t, p, "<strong>1</strong> movies", "Watch time <strong>unknown</strong>")
	lacks(t, p, "<strong>0</strong> minutes")
}

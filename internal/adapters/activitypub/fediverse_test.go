package activitypub_test

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-fed/httpsig"
	"github.com/google/uuid"

	"moviesdiary/internal/adapters/activitypub"
)

// flavor is how one fediverse server behaves on the wire, from its documentation and what it
// sends: the form of its key ids and the document behind them, the headers it signs and the
// algorithm name it writes, where the signature goes, how its Accept names the Follow, whether
// it refuses unsigned GETs (secure mode / authorized fetch), and what it answers when it cannot
// look up the signer of our request.
type flavor struct {
	name string
	// keyID is the key id of an actor.
	keyID func(actor string) string
	// keyDoc is what the key id dereferences to: "actor" (the actor, key embedded: Mastodon,
	// Akkoma, Misskey), "stub" (GoToSocial's {actor}/main-key: id = the actor, publicKey, no
	// inbox) or "key" (a separate Key object with an owner).
	keyDoc string
	// headers are the headers its POSTs sign; its GETs sign the same without digest and
	// content-type.
	headers   []string
	algorithm string // the algorithm parameter it writes
	authz     bool   // Authorization: Signature … instead of a Signature header
	// acceptByID: its Accept names the Follow by id only, instead of embedding it.
	acceptByID bool
	// secure: its documents need a signed GET.
	secure bool
	// lookupFailure is its answer when it cannot look up our signer (key → actor → WebFinger).
	lookupFailure int
}

var flavors = []flavor{
	{name: "mastodon", keyID: func(a string) string { return a + "#main-key" }, keyDoc: "actor",
		headers: []string{"(request-target)", "host", "date", "digest", "content-type"}, algorithm: "rsa-sha256",
		secure: true, lookupFailure: http.StatusUnauthorized},
	{name: "gotosocial", keyID: func(a string) string { return a + "/main-key" }, keyDoc: "stub",
		headers: []string{"(request-target)", "host", "date", "digest"}, algorithm: "hs2019", acceptByID: true,
		secure: true, lookupFailure: http.StatusInternalServerError},
	{name: "akkoma", keyID: func(a string) string { return a + "#main-key" }, keyDoc: "actor",
		headers: []string{"(request-target)", "content-length", "date", "digest", "host"}, algorithm: "rsa-sha256",
		lookupFailure: http.StatusUnauthorized},
	{name: "misskey", keyID: func(a string) string { return a + "#main-key" }, keyDoc: "actor",
		headers: []string{"(request-target)", "date", "host", "digest"}, algorithm: "rsa-sha256", authz: true,
		lookupFailure: http.StatusUnauthorized},
	{name: "key-object", keyID: func(a string) string { return strings.Replace(a, "/users/", "/keys/", 1) }, keyDoc: "key",
		headers: []string{"(request-target)", "host", "date", "digest"}, algorithm: "hs2019", acceptByID: true,
		lookupFailure: http.StatusUnauthorized},
}

// fedi is a fake fediverse server of one flavor: WebFinger, actors with keys in the flavor's
// form, inboxes and outboxes. Every request of ours it receives is checked as the real server
// checks it: the Digest, then the signer looked up (the key id dereferenced, its owner's
// actor, and WebFinger of preferredUsername@host, which must point back to that actor), then
// the signature verified with go-fed/httpsig.
type fedi struct {
	t    testing.TB
	fl   flavor
	srv  *httptest.Server
	base string

	mu             sync.Mutex
	keys           map[string]*rsa.PrivateKey
	posts          []post
	lookupFailures []string        // our signers it could not look up
	badSignatures  []string        // our requests whose signature failed
	unauthorizedAt []string        // its requests we answered 401
	autoAccept     bool            // it accepts a Follow at once, as an open account does
	gone           map[string]bool // deleted users: their documents answer 410
	answering      sync.WaitGroup
}

func newFedi(t testing.TB, fl flavor) *fedi {
	t.Helper()
	f := &fedi{t: t, fl: fl, keys: map[string]*rsa.PrivateKey{}, autoAccept: true, gone: map[string]bool{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/webfinger", f.webfinger)
	mux.HandleFunc("GET /users/{name}", f.guardGet(f.actorDoc))
	mux.HandleFunc("GET /users/{name}/main-key", f.guardGet(f.keyStub))
	mux.HandleFunc("GET /keys/{name}", f.guardGet(f.keyObject))
	mux.HandleFunc("GET /users/{name}/outbox", f.guardGet(f.outbox))
	mux.HandleFunc("POST /users/{name}/inbox", f.inbox)
	mux.HandleFunc("POST /inbox", f.inbox)
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	t.Cleanup(f.answering.Wait)
	f.base = f.srv.URL
	return f
}

func (f *fedi) addUser(name string) string {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		f.t.Fatal(err)
	}
	f.mu.Lock()
	f.keys[name] = key
	f.mu.Unlock()
	return f.actorURL(name)
}

// accepting sets whether the remote accepts Follows of its users at once.
func (f *fedi) accepting(on bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.autoAccept = on
}

func (f *fedi) actorURL(name string) string { return f.base + "/users/" + name }
func (f *fedi) host() string                { return strings.TrimPrefix(f.base, "http://") }

func (f *fedi) key(name string) *rsa.PrivateKey {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.keys[name]
}

func publicPEM(k *rsa.PrivateKey) string {
	der, _ := x509.MarshalPKIXPublicKey(&k.PublicKey)
	return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
}

func writeJSONDoc(w http.ResponseWriter, contentType string, doc any) {
	w.Header().Set("Content-Type", contentType)
	_ = json.NewEncoder(w).Encode(doc)
}

func (f *fedi) webfinger(w http.ResponseWriter, r *http.Request) {
	name, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Query().Get("resource"), "acct:"), "@")
	if f.key(name) == nil {
		http.NotFound(w, r)
		return
	}
	writeJSONDoc(w, "application/jrd+json", map[string]any{"subject": "acct:" + name + "@" + f.host(),
		"links": []map[string]string{{"rel": "self", "type": "application/activity+json", "href": f.actorURL(name)}}})
}

// publicKey is the actor's key as its actor document embeds it.
func (f *fedi) publicKey(name string) map[string]any {
	return map[string]any{"id": f.fl.keyID(f.actorURL(name)), "owner": f.actorURL(name), "publicKeyPem": publicPEM(f.key(name))}
}

func (f *fedi) actorDoc(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if f.key(name) == nil {
		http.NotFound(w, r)
		return
	}
	id := f.actorURL(name)
	writeJSONDoc(w, "application/activity+json", map[string]any{
		"@context": []any{"https://www.w3.org/ns/activitystreams", "https://w3id.org/security/v1"},
		"id":       id, "type": "Person", "preferredUsername": name, "name": "<b>" + name + "</b> &amp; co",
		"inbox": id + "/inbox", "outbox": id + "/outbox", "followers": id + "/followers",
		"endpoints": map[string]any{"sharedInbox": f.base + "/inbox"},
		"publicKey": f.publicKey(name),
	})
}

// keyStub is GoToSocial's answer at {actor}/main-key: the actor's id and key, nothing else.
func (f *fedi) keyStub(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if f.key(name) == nil || f.fl.keyDoc != "stub" {
		http.NotFound(w, r)
		return
	}
	writeJSONDoc(w, "application/activity+json", map[string]any{
		"@context": []any{"https://www.w3.org/ns/activitystreams", "https://w3id.org/security/v1"},
		"id":       f.actorURL(name), "type": "Person", "preferredUsername": name, "publicKey": f.publicKey(name),
	})
}

// keyObject is a separate Key document with its owner.
func (f *fedi) keyObject(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if f.key(name) == nil || f.fl.keyDoc != "key" {
		http.NotFound(w, r)
		return
	}
	writeJSONDoc(w, "application/activity+json", map[string]any{
		"@context": "https://w3id.org/security/v1", "id": f.fl.keyID(f.actorURL(name)), "type": "Key",
		"owner": f.actorURL(name), "publicKeyPem": publicPEM(f.key(name)),
	})
}

func (f *fedi) outbox(w http.ResponseWriter, r *http.Request) {
	id := f.actorURL(r.PathValue("name")) + "/outbox"
	writeJSONDoc(w, "application/activity+json", map[string]any{"@context": "https://www.w3.org/ns/activitystreams",
		"id": id, "type": "OrderedCollection", "totalItems": 0, "orderedItems": []any{}})
}

// guardGet serves a document only to a signed GET when the flavor is in secure mode.
func (f *fedi) guardGet(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if f.fl.secure {
			if status, err := f.checkRequest(r, nil); err != nil {
				http.Error(w, err.Error(), status)
				return
			}
		}
		f.mu.Lock()
		gone := f.gone[r.PathValue("name")]
		f.mu.Unlock()
		if gone {
			http.Error(w, "gone", http.StatusGone)
			return
		}
		h(w, r)
	}
}

func (f *fedi) inbox(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if status, err := f.checkRequest(r, body); err != nil {
		http.Error(w, err.Error(), status)
		return
	}
	var a map[string]any
	_ = json.Unmarshal(body, &a)
	f.mu.Lock()
	f.posts = append(f.posts, post{Inbox: r.URL.Path, Activity: a, Raw: body})
	accept := f.autoAccept
	f.mu.Unlock()
	w.WriteHeader(http.StatusAccepted)
	if a["type"] == "Follow" && accept {
		f.answering.Add(1)
		go func() { // a real server answers from its own queue, after the 202
			defer f.answering.Done()
			f.accept(a)
		}()
	}
}

// checkRequest checks one of our requests as the flavor does: the Digest, the signer looked up
// (key → actor → WebFinger round trip), and the signature (go-fed/httpsig). It answers the
// status the server would refuse with.
func (f *fedi) checkRequest(r *http.Request, body []byte) (int, error) {
	if body != nil && r.Header.Get("Digest") != activitypub.Digest(body) {
		return f.refuse(&f.badSignatures, http.StatusUnauthorized, fmt.Errorf("digest mismatch"))
	}
	v, err := httpsig.NewVerifier(r)
	if err != nil {
		return f.refuse(&f.badSignatures, http.StatusUnauthorized, err)
	}
	need := []string{"(request-target)", "host", "date"}
	if body != nil {
		need = append(need, "digest")
	}
	signed := signedHeaders(r)
	for _, h := range need {
		if !slices.Contains(signed, h) {
			return f.refuse(&f.badSignatures, http.StatusUnauthorized, fmt.Errorf("%s not signed (%v)", h, signed))
		}
	}
	pub, err := lookUpSigner(v.KeyId())
	if err != nil {
		return f.refuse(&f.lookupFailures, f.fl.lookupFailure, fmt.Errorf("signer %s: %w", v.KeyId(), err))
	}
	if err := v.Verify(pub, httpsig.RSA_SHA256); err != nil {
		return f.refuse(&f.badSignatures, http.StatusUnauthorized, err)
	}
	return 0, nil
}

func (f *fedi) refuse(list *[]string, status int, err error) (int, error) {
	f.mu.Lock()
	*list = append(*list, err.Error())
	f.mu.Unlock()
	f.t.Logf("%s refused a request of ours: %v", f.fl.name, err)
	return status, err
}

// signedHeaders lists the headers parameter of a request's signature.
func signedHeaders(r *http.Request) []string {
	h := r.Header.Get("Signature")
	if h == "" {
		h = strings.TrimPrefix(r.Header.Get("Authorization"), "Signature ")
	}
	for _, part := range strings.Split(h, ",") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(part), "headers="); ok {
			return strings.Fields(strings.Trim(v, `"`))
		}
	}
	return []string{"date"}
}

// lookUpSigner is how Mastodon and GoToSocial find the signer of a request from another
// server: dereference the key id (an actor, or a key with an owner), check the key belongs to
// the actor, then WebFinger preferredUsername@host and require it to name the same actor.
func lookUpSigner(keyID string) (any, error) {
	docURL, _, _ := strings.Cut(keyID, "#")
	var doc struct {
		ID                string `json:"id"`
		PreferredUsername string `json:"preferredUsername"`
		Owner             string `json:"owner"`
		PublicKey         struct{ ID, Owner, PublicKeyPem string }
	}
	if err := getJSON(docURL, "application/activity+json", &doc); err != nil {
		return nil, err
	}
	if doc.PublicKey.ID != keyID {
		return nil, fmt.Errorf("actor %s has key %q, not %s", doc.ID, doc.PublicKey.ID, keyID)
	}
	if doc.PublicKey.Owner != doc.ID {
		return nil, fmt.Errorf("key owner %q is not the actor %s", doc.PublicKey.Owner, doc.ID)
	}
	u, err := url.Parse(doc.ID)
	if err != nil || doc.PreferredUsername == "" {
		return nil, fmt.Errorf("actor %s has no preferredUsername", doc.ID)
	}
	var jrd struct {
		Subject string
		Links   []struct{ Rel, Type, Href string }
	}
	wf := u.Scheme + "://" + u.Host + "/.well-known/webfinger?resource=" + url.QueryEscape("acct:"+doc.PreferredUsername+"@"+u.Host)
	if err := getJSON(wf, "application/jrd+json", &jrd); err != nil {
		return nil, fmt.Errorf("webfinger %s: %w", doc.PreferredUsername, err)
	}
	self := ""
	for _, l := range jrd.Links {
		if l.Rel == "self" && l.Type == "application/activity+json" {
			self = l.Href
		}
	}
	if self != doc.ID || jrd.Subject != "acct:"+doc.PreferredUsername+"@"+u.Host {
		return nil, fmt.Errorf("webfinger of %s names %q (%s), not %s", doc.PreferredUsername, self, jrd.Subject, doc.ID)
	}
	block, _ := pem.Decode([]byte(doc.PublicKey.PublicKeyPem))
	if block == nil {
		return nil, fmt.Errorf("no key PEM")
	}
	return x509.ParsePKIXPublicKey(block.Bytes)
}

func getJSON(u, accept string, into any) error {
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", accept)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %d", u, resp.StatusCode)
	}
	return json.NewDecoder(resp.Body).Decode(into)
}

// send makes a signed request of the flavor as the user name: its headers, its algorithm name,
// its Signature or Authorization header. Our 401s are recorded.
func (f *fedi) send(method, target, name string, activity any) (int, []byte) {
	f.t.Helper()
	var body []byte
	if activity != nil {
		var err error
		if body, err = json.Marshal(activity); err != nil {
			f.t.Fatal(err)
		}
	}
	req, err := http.NewRequest(method, target, bytes.NewReader(body))
	if err != nil {
		f.t.Fatal(err)
	}
	req.Header.Set("Accept", "application/activity+json")
	req.Header.Set("Date", time.Now().UTC().Format(http.TimeFormat))
	req.Header.Set("Host", req.URL.Host)
	headers := f.fl.headers
	digest := httpsig.DigestSha256
	if method == http.MethodGet {
		headers = slices.DeleteFunc(slices.Clone(headers), func(h string) bool { return h == "digest" || h == "content-type" || h == "content-length" })
		body = nil
	} else {
		req.Header.Set("Content-Type", `application/activity+json`)
		req.Header.Set("Content-Length", strconv.Itoa(len(body))) // for the signature; the transport sends req.ContentLength
	}
	scheme := httpsig.Signature
	if f.fl.authz {
		scheme = httpsig.Authorization
	}
	signer, _, err := httpsig.NewSigner([]httpsig.Algorithm{httpsig.RSA_SHA256}, digest, headers, scheme, 0)
	if err != nil {
		f.t.Fatal(err)
	}
	if err := signer.SignRequest(f.key(name), f.fl.keyID(f.actorURL(name)), req, body); err != nil {
		f.t.Fatal(err)
	}
	for _, h := range []string{"Signature", "Authorization"} {
		if v := req.Header.Get(h); v != "" {
			req.Header.Set(h, strings.Replace(v, `algorithm="hs2019"`, `algorithm="`+f.fl.algorithm+`"`, 1))
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusUnauthorized {
		f.mu.Lock()
		f.unauthorizedAt = append(f.unauthorizedAt, method+" "+target+": "+string(out))
		f.mu.Unlock()
	}
	return resp.StatusCode, out
}

// accept answers a Follow of one of its users: Mastodon embeds the Follow, others name it by id.
func (f *fedi) accept(follow map[string]any) {
	object, _ := follow["object"].(string)
	name := strings.TrimPrefix(object, f.base+"/users/")
	var inner any = follow["id"]
	if !f.fl.acceptByID {
		inner = map[string]any{"id": follow["id"], "type": "Follow", "actor": follow["actor"], "object": object}
	}
	actor, _ := follow["actor"].(string)
	f.send(http.MethodPost, actor+"/inbox", name, map[string]any{"@context": "https://www.w3.org/ns/activitystreams",
		"id": object + "#accepts/follows/" + uuid.NewString(), "type": "Accept", "actor": object, "object": inner})
}

func (f *fedi) postsOf(typ string) []post {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []post
	for _, p := range f.posts {
		if p.Activity["type"] == typ {
			out = append(out, p)
		}
	}
	return out
}

// failures lists every refusal either way.
func (f *fedi) failures() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Concat(f.lookupFailures, f.badSignatures, f.unauthorizedAt)
}

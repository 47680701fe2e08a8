package activitypub

import (
	"encoding/base64"
	"testing"
)

// FuzzSignatureHeader: any Signature header a remote server sends is parsed or refused, never a
// panic; a signature it accepts is the base64 it carried.
func FuzzSignatureHeader(f *testing.F) {
	for _, seed := range []string{
		`keyId="https://mastodon.example/users/alice#main-key",algorithm="rsa-sha256",headers="(request-target) host date digest",signature="c2lnbmF0dXJl"`,
		`Signature keyId="https://gts.example/users/bob/main-key",algorithm="hs2019",created=1700000000,expires=1700000300,headers="(request-target) (created) host",signature="YWJj"`,
		`keyId="a",signature="not base64!"`, `created=x`, `,,,=,"`, ``,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, header string) {
		p, err := ParseSignature(header)
		if err != nil || p.Signature == nil {
			return
		}
		if _, derr := base64.StdEncoding.DecodeString(base64.StdEncoding.EncodeToString(p.Signature)); derr != nil {
			t.Fatalf("accepted signature does not round-trip: %v", derr)
		}
	})
}

// FuzzActivity: any JSON document a remote server POSTs to an inbox or serves as an actor or an
// outbox page is read into what the use cases see, or refused, never a panic.
func FuzzActivity(f *testing.F) {
	for _, seed := range []string{
		`{"@context":"https://www.w3.org/ns/activitystreams","id":"https://mastodon.example/users/alice/statuses/1/activity","type":"Create","actor":"https://mastodon.example/users/alice","to":["https://www.w3.org/ns/activitystreams#Public"],"object":{"id":"https://mastodon.example/users/alice/statuses/1","type":"Note","content":"<p>Heat (1995) ★★★★</p>","attributedTo":"https://mastodon.example/users/alice","tag":[{"type":"Hashtag","name":"#movies"}]}}`,
		`{"id":"https://gts.example/users/bob","type":"Person","preferredUsername":"bob","inbox":"https://gts.example/users/bob/inbox","endpoints":{"sharedInbox":"https://gts.example/inbox"},"publicKey":{"id":"https://gts.example/users/bob/main-key","owner":"https://gts.example/users/bob","publicKeyPem":"-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----"}}`,
		`{"type":"OrderedCollectionPage","orderedItems":[{"type":"Create","object":"https://x.example/1"}],"next":"https://x.example/outbox?page=2"}`,
		`{"type":"Undo","object":{"type":"Follow","actor":1,"object":[null]}}`, `{"object":{"object":{"object":{}}}}`, `[]`, `null`, `{"type":["Note"]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		o, err := decodeObject(raw)
		if err != nil {
			return
		}
		_ = inboundOf(o)
		_ = noteOf(o)
		_ = outboxPageOf(o)
		_, _ = parseActor(o, str(o, "id")+"#main-key")
	})
}

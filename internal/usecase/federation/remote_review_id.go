package federation

import "github.com/google/uuid"

// RemoteReviewID is the id a remote review is stored under: UUIDv5 of its ActivityPub object
// id, so a repeated Create or an Update lands on the same row. Adopting a database of the
// original movies-diary, which gave remote reviews random ids, re-keys them with it.
func RemoteReviewID(apID string) uuid.UUID {
	return uuid.NewSHA1(idSpace, []byte("review "+apID))
}

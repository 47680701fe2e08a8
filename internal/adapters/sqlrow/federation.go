package sqlrow

import (
	"time"

	"moviesdiary/internal/domain"
)

// RemoteActorColumns are the columns of RemoteActor.
const RemoteActorColumns = `url, inbox, COALESCE(shared_inbox, '') AS shared_inbox, COALESCE(outbox, '') AS outbox,
	COALESCE(handle, '') AS handle, COALESCE(display_name, '') AS display_name, key_id, public_key, fetched_at`

// RemoteActor is a remote_actors row, with "" for the optional columns' NULL.
type RemoteActor struct {
	URL          string `db:"url"`
	Inbox        string `db:"inbox"`
	SharedInbox  string `db:"shared_inbox"`
	Outbox       string `db:"outbox"`
	Handle       string `db:"handle"`
	DisplayName  string `db:"display_name"`
	KeyID        string `db:"key_id"`
	PublicKeyPEM string `db:"public_key"`
	FetchedAt    int64  `db:"fetched_at"` // Unix ms
}

// Actor maps the row to its domain value.
func (r RemoteActor) Actor() domain.RemoteActor {
	return domain.RemoteActor{
		URL: r.URL, Inbox: r.Inbox, SharedInbox: r.SharedInbox, Outbox: r.Outbox, Handle: r.Handle,
		DisplayName: r.DisplayName, KeyID: r.KeyID, PublicKeyPEM: r.PublicKeyPEM, FetchedAt: time.UnixMilli(r.FetchedAt).UTC(),
	}
}

// Relation is an ap_relations row.
type Relation struct {
	Type       string `db:"type"`
	Actor      string `db:"actor"`
	Object     string `db:"object"`
	ActivityID string `db:"activity_id"`
}

// RemoteReview is a reviews row of a remote review, with its object id.
type RemoteReview struct {
	Review
	APID string `db:"ap_id"`
}

// DomainBlock is a domain_blocks row.
type DomainBlock struct {
	Domain    string `db:"domain"`
	Reason    string `db:"reason"`
	BlockedAt string `db:"blocked_at"`
}

// Block maps the row to its domain value.
func (r DomainBlock) Block() domain.DomainBlock {
	b := domain.DomainBlock{Domain: r.Domain, Reason: r.Reason}
	b.BlockedAt, _ = ParseTime(r.BlockedAt)
	return b
}

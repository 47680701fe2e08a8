package activitypub

import (
	"context"
	"encoding/json"
	"fmt"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/federation"
)

// encode renders an activity of the use case as the JSON document we publish and deliver. An
// actor's Update embeds the actor document with its public key, read here.
func (f *Federation) encode(ctx context.Context, a federation.Activity) ([]byte, error) {
	var object any
	switch o := a.Object; {
	case o.Review != nil:
		object = f.urls.ReviewNote(*o.Review, o.Movie)
	case o.Watchlist != nil:
		object = f.urls.WatchlistNote(*o.Watchlist)
	case o.Goal != nil:
		object = f.urls.GoalNote(*o.Goal)
	case o.Actor != nil:
		_, pub, err := f.keys.ActorKey(ctx, o.Actor.ID)
		if err != nil {
			return nil, err
		}
		p, err := f.fed.Profile(ctx, o.Actor.ID)
		if err != nil {
			return nil, err
		}
		doc := f.urls.ActorDocument(*o.Actor, p, pub)
		delete(doc, "@context")
		object = doc
	case o.Tombstone != "":
		object = Tombstone(o.Tombstone)
	case o.Activity != nil:
		inner := Object{"type": o.Activity.Type, "actor": o.Activity.Actor, "object": o.Activity.Object}
		if o.Activity.ActivityID != "" {
			inner["id"] = o.Activity.ActivityID
		}
		object = inner
	default:
		object = o.ID
	}
	doc := Activity(a.ID, a.Type, f.urls.Actor(a.Actor), object, a.To...)
	if a.Target != "" {
		doc["target"] = a.Target
	}
	raw, err := json.Marshal(doc)
	if err != nil {
		return nil, domain.Permanent(fmt.Errorf("encode activity: %w", err))
	}
	return raw, nil
}

// inboundOf reads an activity document into the use case's Inbound: its id, type, actor and
// object, and the object as an activity and as a Note when it is embedded.
func inboundOf(a Object) federation.Inbound {
	in := federation.Inbound{ID: str(a, "id"), Type: str(a, "type"), Actor: str(a, "actor"), Object: str(a, "object"),
		Target: str(a, "target")}
	if o := obj(a, "object"); o != nil {
		in.Inner = &domain.Relation{Type: str(o, "type"), ActivityID: str(o, "id"), Actor: str(o, "actor"), Object: str(o, "object")}
		note := noteOf(o)
		in.Note = &note
	}
	return in
}

// noteOf reads the properties of an object the inbound rules look at.
func noteOf(o Object) federation.Note {
	n := federation.Note{
		ID: str(o, "id"), Type: str(o, "type"), AttributedTo: str(o, "attributedTo"),
		MovieTitle: str(o, "movieTitle"), ExternalID: str(o, "externalMetadataId"), PosterURL: str(o, "posterUrl"),
		WatchMedium: str(o, "watchMedium"), WatchedAt: str(o, "watchedAt"), Published: str(o, "published"),
	}
	n.Review, _ = o["review"].(bool)
	_, n.HasRating = o["rating"]
	n.Rating, _ = o["rating"].(float64)
	n.ReleaseYear, _ = o["releaseYear"].(float64)
	if c, ok := o["comment"].(string); ok {
		n.Comment = &c
	}
	return n
}

// outboxPageOf reads an outbox document: its items (orderedItems, or items), and its first page
// when it is the collection itself, or its next page.
func outboxPageOf(doc Object) federation.OutboxPage {
	items, _ := doc["orderedItems"].([]any)
	if items == nil {
		items, _ = doc["items"].([]any)
	}
	var page federation.OutboxPage
	if items != nil {
		page.Items = make([]federation.Inbound, 0, len(items))
	}
	for _, it := range items {
		if item, _ := it.(map[string]any); item != nil {
			page.Items = append(page.Items, inboundOf(item))
		}
	}
	if first := doc["first"]; first != nil && items == nil {
		page.Collection = true
		if embedded, ok := first.(map[string]any); ok {
			page.First = str(embedded, "id")
		} else {
			page.First, _ = first.(string)
		}
	}
	page.Next = str(doc, "next")
	return page
}

package activitypub

import (
	"encoding/json"
	"fmt"
	"html"
	"net/url"
	"path"
	"strings"
	"time"
	"unicode"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/federation"
)

// Wire constants.
const (
	// ContentType is what our documents are served and posted as.
	ContentType = "application/activity+json"
	// Public is the audience of public objects.
	Public = "https://www.w3.org/ns/activitystreams#Public"
	// contextAS is the ActivityStreams JSON-LD context.
	contextAS = "https://www.w3.org/ns/activitystreams"
	// contextSecurity adds publicKey.
	contextSecurity = "https://w3id.org/security/v1"
)

// URLs builds the URLs of our actors and objects: the use case's names, and those only the wire
// format needs (keys, the shared inbox, images).
type URLs struct{ federation.URLs }

// KeyID is the id of a local actor's public key.
func (u URLs) KeyID(id uuid.UUID) string { return u.Actor(id) + "#main-key" }

// ProfilePage is the web page of a local actor: its page among the web pages (/u/{id}), or the instance's
// front page for the instance actor.
func (u URLs) ProfilePage(id uuid.UUID) string {
	if id == federation.InstanceActorID {
		return u.Base + "/"
	}
	return u.Base + "/u/" + id.String()
}

// SharedInbox is the instance's shared inbox.
func (u URLs) SharedInbox() string { return u.Base + "/inbox" }

// Image is the public URL of an object-storage key; an absolute URL (a remote poster) is kept.
func (u URLs) Image(key string) string {
	if strings.HasPrefix(key, "http://") || strings.HasPrefix(key, "https://") {
		return key
	}
	return u.Base + "/images/" + key
}

// Object is an untyped JSON-LD document: activities and objects are built and read as maps,
// since peers send many shapes (a string id or an embedded object) for the same property.
type Object = map[string]any

// ActorDocument is a local user's actor (the instance actor is an Application): what Mastodon,
// GoToSocial and the rest read of a profile. The name, the bio as HTML summary, avatar and
// banner, profile fields (PropertyValue), aliases and movedTo appear when set; the collections,
// the shared inbox and the key always.
func (u URLs) ActorDocument(user domain.User, p domain.ActorProfile, publicKeyPEM string) Object {
	actor := u.Actor(user.ID)
	name := user.Username
	if p.DisplayName != "" {
		name = p.DisplayName
	}
	typ := "Person"
	if user.ID == federation.InstanceActorID {
		typ = "Application"
	}
	doc := Object{
		"@context": []any{contextAS, contextSecurity, Object{
			"manuallyApprovesFollowers": "as:manuallyApprovesFollowers",
			"toot":                      "http://joinmastodon.org/ns#",
			"featured":                  Object{"@id": "toot:featured", "@type": "@id"},
			"discoverable":              "toot:discoverable",
			"alsoKnownAs":               Object{"@id": "as:alsoKnownAs", "@type": "@id"},
			"movedTo":                   Object{"@id": "as:movedTo", "@type": "@id"},
			"schema":                    "http://schema.org#",
			"PropertyValue":             "schema:PropertyValue",
			"value":                     "schema:value",
		}},
		"id":                        actor,
		"type":                      typ,
		"preferredUsername":         user.Username,
		"name":                      name,
		"summary":                   paragraphs(p.Bio),
		"url":                       u.ProfilePage(user.ID),
		"inbox":                     actor + "/inbox",
		"outbox":                    actor + "/outbox",
		"followers":                 actor + "/followers",
		"following":                 actor + "/following",
		"featured":                  actor + "/featured",
		"endpoints":                 Object{"sharedInbox": u.SharedInbox()},
		"manuallyApprovesFollowers": true,
		"discoverable":              typ == "Person",
		"publicKey":                 Object{"id": u.KeyID(user.ID), "owner": actor, "publicKeyPem": publicKeyPEM},
	}
	if !user.CreatedAt.IsZero() {
		doc["published"] = user.CreatedAt.UTC().Format(time.RFC3339)
	}
	if p.AvatarKey != "" {
		doc["icon"] = Object{"type": "Image", "mediaType": mediaType(p.AvatarKey), "url": u.Image(p.AvatarKey)}
	}
	if p.BannerKey != "" {
		doc["image"] = Object{"type": "Image", "mediaType": mediaType(p.BannerKey), "url": u.Image(p.BannerKey)}
	}
	if len(p.AlsoKnownAs) > 0 {
		doc["alsoKnownAs"] = toAny(p.AlsoKnownAs)
	}
	if p.MovedTo != "" {
		doc["movedTo"] = p.MovedTo
	}
	if len(p.Fields) > 0 {
		fields := make([]any, len(p.Fields))
		for i, f := range p.Fields {
			fields[i] = Object{"type": "PropertyValue", "name": f.Name, "value": html.EscapeString(f.Value)}
		}
		doc["attachment"] = fields
	}
	return doc
}

// ReviewNote is a review as a Note, the shape of the original (anchor-api §4.2) with the poster
// as an Image attachment of its real media type and two hashtags. Its content is HTML, as AS2
// says and Mastodon and GoToSocial render it: the rating and the movie (linked to its IMDb or
// TMDb page), the comment in paragraphs, the watch date and the hashtags as links, every text
// escaped. The plain fields (movieTitle, rating, comment...) are our review extension, which
// another moviesdiary reads instead of the HTML.
func (u URLs) ReviewNote(r domain.Review, m domain.Movie) Object {
	actor := u.Actor(r.UserID)
	tags := u.hashtags(m.Title)
	var content strings.Builder
	title := m.Title
	if m.ReleaseYear > 0 {
		title += fmt.Sprintf(" (%d)", m.ReleaseYear)
	}
	content.WriteString("<p>" + strings.Repeat("⭐", r.Rating) + " " + u.movieLink(m, title) + "</p>")
	if r.Comment != nil && *r.Comment != "" {
		content.WriteString(paragraphs(*r.Comment))
	}
	content.WriteString("<p>Watched: " + r.WatchedAt.Format("Jan 2, 2006") + "</p>")
	content.WriteString("<p>" + tagLinks(tags) + "</p>")
	note := Object{
		"id":                 u.Review(r.ID),
		"type":               "Note",
		"attributedTo":       actor,
		"content":            content.String(),
		"published":          r.CreatedAt.UTC().Format(time.RFC3339),
		"movieTitle":         m.Title,
		"releaseYear":        m.ReleaseYear,
		"externalMetadataId": m.ExternalID,
		"posterUrl":          nil,
		"rating":             r.Rating,
		"comment":            r.Comment,
		"watchedAt":          r.WatchedAt.UTC().Format(time.RFC3339),
		"review":             true,
		"tag":                tags,
		"sensitive":          false,
		"to":                 []any{Public},
		"cc":                 []any{actor + "/followers"},
	}
	if !r.UpdatedAt.IsZero() && r.UpdatedAt.After(r.CreatedAt) {
		note["updated"] = r.UpdatedAt.UTC().Format(time.RFC3339)
	}
	if r.WatchMedium != nil {
		note["watchMedium"] = string(*r.WatchMedium)
	}
	if m.PosterPath != nil && *m.PosterPath != "" {
		poster := u.Image(*m.PosterPath)
		note["posterUrl"] = poster
		note["attachment"] = []any{Object{"type": "Image", "url": poster, "mediaType": mediaType(*m.PosterPath), "name": m.Title}}
	}
	return note
}

// WatchlistNote is a watchlist entry as a Note, its content HTML like a review's.
func (u URLs) WatchlistNote(e domain.WatchlistEntryAdded) Object {
	actor := u.Actor(e.UserID)
	title := e.MovieTitle
	if e.ReleaseYear > 0 {
		title += fmt.Sprintf(" (%d)", e.ReleaseYear)
	}
	m := domain.Movie{ID: e.MovieID, Title: e.MovieTitle}
	if e.ExternalMetadataID != nil {
		m.ExternalID = e.ExternalMetadataID
	}
	tags := u.hashtags(e.MovieTitle)
	return Object{
		"id":                 u.WatchlistEntry(e.UserID, e.MovieID),
		"type":               "Note",
		"attributedTo":       actor,
		"content":            "<p>📋 " + u.movieLink(m, title) + " — want to watch</p><p>" + tagLinks(tags) + "</p>",
		"published":          e.AddedAt.Time().UTC().Format(time.RFC3339),
		"watchlistEntry":     true,
		"movieTitle":         e.MovieTitle,
		"releaseYear":        e.ReleaseYear,
		"externalMetadataId": e.ExternalMetadataID,
		"tag":                tags,
		"sensitive":          false,
		"to":                 []any{Public},
		"cc":                 []any{actor + "/followers"},
	}
}

// GoalNote is a user's goal for a year as a Note: a readable content ("Goal for 2026: 50
// movies", with the progress) for servers that show Notes (Mastodon), and the goal's numbers as
// properties (goal, goalYear, goalTarget, goalCurrent, as the original sent) for ours. Its id
// is the goal's URL, the same for every version of the goal.
func (u URLs) GoalNote(g domain.GoalProgress) Object {
	actor := u.Actor(g.UserID)
	movies := "movies"
	if g.TargetCount == 1 {
		movies = "movie"
	}
	tags := []any{Object{"type": "Hashtag", "href": u.Base + "/tags/moviesdiary", "name": "#MoviesDiary"}}
	note := Object{
		"id":           u.Goal(g.UserID, g.Year),
		"type":         "Note",
		"attributedTo": actor,
		"content": fmt.Sprintf("<p>🎯 Goal for %d: %d %s (%d watched so far)</p><p>%s</p>", g.Year, g.TargetCount, movies,
			g.CurrentCount, tagLinks(tags)),
		"goal":        true,
		"goalYear":    g.Year,
		"goalTarget":  g.TargetCount,
		"goalCurrent": g.CurrentCount,
		"tag":         tags,
		"sensitive":   false,
		"to":          []any{Public},
		"cc":          []any{actor + "/followers"},
	}
	if !g.CreatedAt.IsZero() {
		note["published"] = g.CreatedAt.UTC().Format(time.RFC3339)
	}
	if !g.UpdatedAt.IsZero() && g.UpdatedAt.After(g.CreatedAt) {
		note["updated"] = g.UpdatedAt.UTC().Format(time.RFC3339)
	}
	return note
}

// movieLink is text (escaped) linked to the movie's IMDb or TMDb page when its external id
// names one, else to its page in the web client (public pages anyone can open).
func (u URLs) movieLink(m domain.Movie, text string) string {
	var href string
	if m.ExternalID != nil {
		switch ext := *m.ExternalID; {
		case strings.HasPrefix(ext, "tt"):
			href = "https://www.imdb.com/title/" + url.PathEscape(ext) + "/"
		case strings.HasPrefix(ext, "tmdb:"):
			href = "https://www.themoviedb.org/movie/" + url.PathEscape(strings.TrimPrefix(ext, "tmdb:"))
		}
	}
	if href == "" && m.ID != uuid.Nil {
		href = u.Base + "/movie/" + m.ID.String()
	}
	if href == "" {
		return html.EscapeString(text)
	}
	return `<a href="` + html.EscapeString(href) + `" rel="nofollow noopener" target="_blank">` + html.EscapeString(text) + "</a>"
}

// paragraphs renders plain text as HTML: a paragraph per blank-line-separated block, a <br> per
// line break inside one, every character escaped.
func paragraphs(text string) string {
	var b strings.Builder
	for _, para := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n\n") {
		if para = strings.TrimSpace(para); para == "" {
			continue
		}
		lines := strings.Split(para, "\n")
		for i, l := range lines {
			lines[i] = html.EscapeString(l)
		}
		b.WriteString("<p>" + strings.Join(lines, "<br>") + "</p>")
	}
	return b.String()
}

// tagLinks renders Hashtag tag objects as Mastodon renders hashtags: links with rel="tag".
func tagLinks(tags []any) string {
	links := make([]string, 0, len(tags))
	for _, t := range tags {
		o := t.(Object)
		name := strings.TrimPrefix(o["name"].(string), "#")
		links = append(links, `<a href="`+html.EscapeString(o["href"].(string))+`" class="mention hashtag" rel="tag">#<span>`+
			html.EscapeString(name)+"</span></a>")
	}
	return strings.Join(links, " ")
}

// hashtags are #MoviesDiary and the title with every non-alphanumeric character removed.
func (u URLs) hashtags(title string) []any {
	tags := []any{Object{"type": "Hashtag", "href": u.Base + "/tags/moviesdiary", "name": "#MoviesDiary"}}
	norm := strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return r
		}
		return -1
	}, title)
	if norm != "" {
		tags = append(tags, Object{"type": "Hashtag", "href": u.Base + "/tags/" + strings.ToLower(norm), "name": "#" + norm})
	}
	return tags
}

// mediaType guesses an image's media type from its key's extension (a converted poster is AVIF
// or WebP; the original said image/jpeg for all).
func mediaType(key string) string {
	switch strings.ToLower(path.Ext(key)) {
	case ".avif":
		return "image/avif"
	case ".webp":
		return "image/webp"
	case ".png":
		return "image/png"
	case ".gif":
		return "image/gif"
	}
	return "image/jpeg"
}

// Activity wraps object in an activity of kind by actor, with the context and the object's
// audience (public, and the actor's followers), unless to is given.
func Activity(id, kind, actor string, object any, to ...string) Object {
	a := Object{"@context": contextAS, "id": id, "type": kind, "actor": actor, "object": object}
	if len(to) > 0 {
		a["to"] = toAny(to)
	} else {
		a["to"] = []any{Public}
		a["cc"] = []any{actor + "/followers"}
	}
	if kind == "Create" || kind == "Update" || kind == "Delete" {
		a["published"] = time.Now().UTC().Format(time.RFC3339)
	}
	return a
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// Tombstone is what a Delete carries for a deleted object.
func Tombstone(id string) Object { return Object{"id": id, "type": "Tombstone"} }

// str reads a string property; a property holding an object yields that object's id.
func str(o Object, key string) string {
	switch v := o[key].(type) {
	case string:
		return v
	case map[string]any:
		s, _ := v["id"].(string)
		return s
	case []any:
		if len(v) > 0 {
			return str(Object{"v": v[0]}, "v")
		}
	}
	return ""
}

// obj reads an embedded object property (nil when it is only an id or absent).
func obj(o Object, key string) Object {
	v, _ := o[key].(map[string]any)
	return v
}

// decodeObject parses a JSON document into an Object.
func decodeObject(raw []byte) (Object, error) {
	var o Object
	if err := json.Unmarshal(raw, &o); err != nil {
		return nil, err
	}
	if o == nil {
		return nil, fmt.Errorf("not a JSON object")
	}
	return o, nil
}

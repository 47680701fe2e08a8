package integration

import "strings"

// plexPayload is the JSON part ("payload") of a Plex webhook: the event name and the item's
// Metadata, whose Guid array carries the external ids (tmdb://949, imdb://tt0113277) with the
// current Plex Movie agent; the older agents put one id in Metadata.guid instead
// (com.plexapp.agents.imdb://tt0113277?lang=en).
type plexPayload struct {
	Event    string `json:"event"`
	Metadata *struct {
		Type  string  `json:"type"`
		Title string  `json:"title"`
		Year  flexInt `json:"year"`
		GUID  string  `json:"guid"`
		Guids []struct {
			ID string `json:"id"`
		} `json:"Guid"`
	} `json:"Metadata"`
}

// ParsePlex reads the payload part of a Plex webhook. It reports a movie only for a
// media.scrobble (Plex's "watched": past 90 %) of a movie; anything else is ignored. A payload
// that is not a JSON object is KindInvalid.
func ParsePlex(payload []byte) (Report, bool, error) {
	var p plexPayload
	if err := decodeObject("Plex", payload, &p); err != nil {
		return Report{}, false, err
	}
	if p.Event != "media.scrobble" || p.Metadata == nil || p.Metadata.Type != "movie" || title(p.Metadata.Title) == "" {
		return Report{}, false, nil
	}
	var tmdb, imdb string
	for _, g := range p.Metadata.Guids {
		switch scheme, id, _ := strings.Cut(g.ID, "://"); scheme {
		case "tmdb":
			tmdb = id
		case "imdb":
			imdb = id
		}
	}
	if tmdb == "" && imdb == "" {
		// com.plexapp.agents.imdb://tt0113277?lang=en, com.plexapp.agents.themoviedb://949?lang=en
		agent, rest, _ := strings.Cut(p.Metadata.GUID, "://")
		id, _, _ := strings.Cut(rest, "?")
		switch agent {
		case "com.plexapp.agents.themoviedb":
			tmdb = id
		case "com.plexapp.agents.imdb":
			imdb = id
		}
	}
	return Report{Title: title(p.Metadata.Title), Year: p.Metadata.Year.v, ExternalID: externalID(tmdb, imdb)}, true, nil
}

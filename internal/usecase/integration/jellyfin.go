package integration

// jellyfinPayload is what the Jellyfin webhook plugin's "Send All Properties" sends for a
// playback stop (DataObjectHelpers: the base item's Name, ItemType, Year and Provider_<id>
// keys, the playback's PlayedToCompletion). Go matches the keys without regard to case, as the
// plugin's own dictionary does.
type jellyfinPayload struct {
	NotificationType   string     `json:"NotificationType"`
	ItemType           string     `json:"ItemType"`
	Name               string     `json:"Name"`
	Year               flexInt    `json:"Year"`
	PlayedToCompletion flexBool   `json:"PlayedToCompletion"`
	ProviderTMDb       flexString `json:"Provider_tmdb"`
	ProviderIMDb       flexString `json:"Provider_imdb"`
}

// ParseJellyfin reads a Jellyfin webhook body. It reports a movie only for a PlaybackStop of a
// Movie played to completion, with a name; anything else is ignored (false, no error), since
// episodes, music and pauses are not errors. A body that is not a JSON object is KindInvalid.
func ParseJellyfin(body []byte) (Report, bool, error) {
	var p jellyfinPayload
	if err := decodeObject("Jellyfin", body, &p); err != nil {
		return Report{}, false, err
	}
	name := title(p.Name)
	if p.NotificationType != "PlaybackStop" || p.ItemType != "Movie" || !bool(p.PlayedToCompletion) || name == "" {
		return Report{}, false, nil
	}
	return Report{Title: name, Year: p.Year.v, ExternalID: externalID(string(p.ProviderTMDb), string(p.ProviderIMDb))}, true, nil
}

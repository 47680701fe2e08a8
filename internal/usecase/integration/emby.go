package integration

// embyPayload is Emby's JSON webhook notification (Emby Server 4.7+, "application/json"
// content type): Event names it (playback.stop), Item is the library item with its
// ProviderIds, and PlaybackInfo says whether it was played to completion. Emby publishes no
// schema; the shape is the one its servers send, as integrations that consume it record it.
type embyPayload struct {
	Event string `json:"Event"`
	Item  *struct {
		Type           string  `json:"Type"`
		Name           string  `json:"Name"`
		ProductionYear flexInt `json:"ProductionYear"`
		ProviderIDs    struct {
			TMDb flexString `json:"Tmdb"`
			IMDb flexString `json:"Imdb"`
		} `json:"ProviderIds"`
	} `json:"Item"`
	PlaybackInfo *struct {
		PlayedToCompletion flexBool `json:"PlayedToCompletion"`
	} `json:"PlaybackInfo"`
}

// ParseEmby reads an Emby webhook body. It reports a movie only for a playback.stop of a Movie
// played to completion; anything else is ignored. A body that is not a JSON object is
// KindInvalid.
func ParseEmby(body []byte) (Report, bool, error) {
	var p embyPayload
	if err := decodeObject("Emby", body, &p); err != nil {
		return Report{}, false, err
	}
	if p.Event != "playback.stop" || p.Item == nil || p.Item.Type != "Movie" || title(p.Item.Name) == "" ||
		p.PlaybackInfo == nil || !bool(p.PlaybackInfo.PlayedToCompletion) {
		return Report{}, false, nil
	}
	return Report{Title: title(p.Item.Name), Year: p.Item.ProductionYear.v,
		ExternalID: externalID(string(p.Item.ProviderIDs.TMDb), string(p.Item.ProviderIDs.IMDb))}, true, nil
}

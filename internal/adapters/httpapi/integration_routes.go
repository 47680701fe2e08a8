package httpapi

import "moviesdiary/internal/domain"

// integrationRoutes are the media-server webhooks (their own token, their own rate budget), the
// webhook-token settings and the watch queue.
func (s *Server) integrationRoutes() []route {
	const post = "POST"
	hook := func(source domain.WatchSource, summary string, read webhookReader) route {
		return route{method: post, pattern: "/api/v1/webhooks/" + string(source), summary: summary,
			handle: s.webhook(source, read), status: 200, errors: []int{400, 401, 413, 429}}
	}
	return []route{
		hook(domain.SourceJellyfin, "Jellyfin webhook plugin (Send All Properties); webhook token as bearer or ?token=", readJellyfin),
		hook(domain.SourcePlex, "Plex webhook (multipart with a payload part); webhook token as bearer or ?token=", readPlex),
		hook(domain.SourceEmby, "Emby webhook notification (JSON); webhook token as bearer or ?token=", readEmby),
		{method: "GET", pattern: "/api/v1/settings/webhook-tokens", summary: "My webhook tokens", access: accessUser,
			handle: s.listWebhookTokens, response: []webhookTokenDTO{}, status: 200, errors: []int{401}},
		{method: post, pattern: "/api/v1/settings/webhook-tokens", summary: "Make a webhook token (shown once)",
			access: accessUser, handle: s.createWebhookToken, request: webhookTokenRequest{},
			response: webhookTokenCreated{}, status: 200, errors: []int{400, 401, 415, 422}},
		{method: "DELETE", pattern: "/api/v1/settings/webhook-tokens/{id}", summary: "Revoke a webhook token",
			access: accessUser, handle: deleteByID("id", s.Integrations.RevokeToken), status: 204, errors: []int{400, 401, 404}},
		{method: "GET", pattern: "/api/v1/watch-queue", summary: "My pending watch events", access: accessUser,
			handle: s.watchQueue, response: []watchQueueEntryDTO{}, status: 200, errors: []int{401}},
		{method: post, pattern: "/api/v1/watch-queue/confirm", summary: "Confirm watch events as reviews (media_server)",
			access: accessUser, handle: s.confirmWatches, request: confirmWatchRequest{}, response: confirmWatchResponse{},
			status: 200, errors: []int{400, 401, 403, 404, 409, 415, 422}},
		{method: post, pattern: "/api/v1/watch-queue/dismiss", summary: "Dismiss watch events", access: accessUser,
			handle: s.dismissWatches, request: dismissWatchRequest{}, response: dismissWatchResponse{}, status: 200,
			errors: []int{400, 401, 403, 404, 415, 422}},
	}
}

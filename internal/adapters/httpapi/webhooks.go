package httpapi

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/endpoint"
	"moviesdiary/internal/usecase/integration"
)

// WebhookRateLimitDefault is how many webhook requests one IP may make per minute when
// Deps.WebhookRateLimit is zero: a quarter of the auth budget, as in the original (15 of 60).
func webhookRateLimitDefault(authLimit int) int { return max(1, authLimit/4) }

// webhookReader takes a media server's report out of its request: ok false for a notification
// to ignore, KindInvalid (400) for a body that is not the provider's format.
type webhookReader func(r *http.Request) (rep integration.Report, ok bool, err error)

// webhook is POST /api/v1/webhooks/{source}: authenticated by the token in "Authorization:
// Bearer <token>" or ?token= (media servers cannot always set headers), spending the webhook
// rate budget of the caller's IP. It answers 200 with an empty body both when the watch is
// queued and when the notification is ignored (a pause, an episode, a repeat): a media server
// retries failures, and those are not failures.
func (s *Server) webhook(source domain.WatchSource, read webhookReader) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if !s.webhookLimiter.Allow(endpoint.ClientIP(r, s.TrustedProxies)) {
			return &httpError{Status: http.StatusTooManyRequests, Message: "too many requests"}
		}
		token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || strings.TrimSpace(token) == "" {
			token = r.URL.Query().Get("token")
		}
		tok, err := s.Integrations.Authenticate(r.Context(), source, token)
		if err != nil {
			return err
		}
		rep, ok, err := read(r)
		if err != nil {
			return err
		}
		outcome := "ignored"
		if ok {
			got, err := s.Integrations.Ingest(r.Context(), tok, rep)
			if err != nil {
				return err
			}
			outcome = string(got)
		}
		s.log.DebugContext(r.Context(), "webhook", "source", source, "token_id", tok.ID, "outcome", outcome)
		w.WriteHeader(http.StatusOK)
		return nil
	}
}

// jsonWebhook reads a body that is the provider's JSON (Jellyfin, Emby); the content type is
// not checked, as media servers label it loosely.
func jsonWebhook(parse func([]byte) (integration.Report, bool, error)) webhookReader {
	return func(r *http.Request) (integration.Report, bool, error) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return integration.Report{}, false, decodeError(err)
		}
		return parse(body)
	}
}

// readJellyfin reads the Jellyfin webhook plugin's JSON.
var readJellyfin = jsonWebhook(integration.ParseJellyfin)

// readEmby reads Emby's notification: JSON (application/json), or the JSON in the "data" part
// of the multipart/form-data older servers send.
func readEmby(r *http.Request) (integration.Report, bool, error) {
	if isMultipart(r) {
		data, err := formPart(r, "data")
		if err != nil {
			return integration.Report{}, false, err
		}
		return integration.ParseEmby(data)
	}
	return jsonWebhook(integration.ParseEmby)(r)
}

// readPlex reads a Plex webhook: multipart/form-data whose "payload" part is the JSON, followed
// by a "thumb" image part for some events, which is never read (the request body stops being
// read once the payload is in hand, so a large thumbnail costs nothing).
func readPlex(r *http.Request) (integration.Report, bool, error) {
	if !isMultipart(r) {
		return integration.Report{}, false, badRequest("Plex webhooks are multipart/form-data with a payload part")
	}
	payload, err := formPart(r, "payload")
	if err != nil {
		return integration.Report{}, false, err
	}
	return integration.ParsePlex(payload)
}

func isMultipart(r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && mt == "multipart/form-data"
}

// formPart returns the first multipart part named name, reading the body no further.
func formPart(r *http.Request, name string) ([]byte, error) {
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, badRequest("malformed multipart body: " + err.Error())
	}
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return nil, badRequest("multipart body has no " + name + " part")
		}
		if err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				return nil, decodeError(err)
			}
			return nil, badRequest("malformed multipart body: " + err.Error())
		}
		if p.FormName() != name {
			continue
		}
		var buf bytes.Buffer
		if _, err := io.Copy(&buf, p); err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				return nil, decodeError(err)
			}
			return nil, badRequest("malformed multipart body: " + err.Error())
		}
		return buf.Bytes(), nil
	}
}

package federation

import (
	"context"
	"errors"

	"moviesdiary/internal/domain"
)

// DeliverTypes are the events Deliver sends.
var DeliverTypes = []string{"FederationDeliveryRequested"}

// Deliver POSTs one activity to one inbox, signed by its actor. An inbox on a domain blocked
// since the fan-out is skipped. The Remote decides what is permanent (a 4xx other than 408 and
// 429 is; 5xx, timeouts and network errors are retried with backoff).
func (s *Service) Deliver(ctx context.Context, eventID string, event domain.Event) error {
	e, ok := event.(domain.FederationDeliveryRequested)
	if !ok {
		return nil
	}
	if err := s.RefuseHost(ctx, e.InboxURL); err != nil {
		if errors.Is(err, ErrDomainBlocked) {
			s.log.InfoContext(ctx, "delivery skipped: domain blocked", "event_id", eventID, "inbox", e.InboxURL)
			return nil
		}
		return err
	}
	return s.ports.Remote.Deliver(ctx, e.InboxURL, e.ActivityJSON, e.SigningActorID)
}

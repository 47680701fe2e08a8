package federation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"moviesdiary/internal/domain"
)

// DeliverTypes are the events Deliver sends.
var DeliverTypes = []string{"FederationDeliveryRequested"}

// Deliver takes one activity for one inbox: it hands it to the delivery lane (Deps.Deliveries,
// docs/adr/0005-federation-delivery.md), or without a lane POSTs it at once, signed by its
// actor. An inbox on a domain blocked since the fan-out is skipped. With the lane, publish
// queues deliveries itself (docs/adr/0007-…): what reaches Deliver then are the outbox rows
// written before it did, by an earlier release or a worker without the lane.
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
	if s.ports.Deliveries == nil {
		return s.ports.Remote.Deliver(ctx, e.InboxURL, e.ActivityJSON, e.SigningActorID)
	}
	if HostOf(e.InboxURL) == "" {
		return domain.Permanent(fmt.Errorf("delivery %s: inbox %q has no host", eventID, e.InboxURL))
	}
	id, object := activityKeys(e.ActivityJSON)
	err := s.ports.Deliveries.HandOff(ctx, QueuedDelivery{DeliveryID: eventID, Inbox: e.InboxURL, Activity: e.ActivityJSON,
		ActivityID: id, ObjectKey: object, Signer: e.SigningActorID}, s.now())
	if err == nil && s.ports.Wake != nil {
		s.ports.Wake()
	}
	return err
}

// activityKeys are an encoded activity's id and the id of its object (a URL, or an embedded
// object's id); "" where it has none.
func activityKeys(raw []byte) (id, object string) {
	var a struct {
		ID     string          `json:"id"`
		Object json.RawMessage `json:"object"`
	}
	if json.Unmarshal(raw, &a) != nil {
		return "", ""
	}
	if json.Unmarshal(a.Object, &object) == nil {
		return a.ID, object
	}
	var o struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(a.Object, &o)
	return a.ID, o.ID
}

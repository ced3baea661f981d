package webhooks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/riverqueue/river"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/store"
)

// APIVersion is the version every event carries (VARIANTS.md: Variant B).
const APIVersion = "v1"

// Event types one can subscribe to (VARIANTS.md: Variant B); "*" matches all.
const (
	EventShipmentPurchased      = "shipment.purchased"
	EventShipmentFailed         = "shipment.failed"
	EventShipmentVoided         = "shipment.voided"
	EventTrackerUpdated         = "tracker.updated"
	EventShipmentDelivered      = "shipment.delivered"
	EventShipmentException      = "shipment.exception"
	EventShipmentReturnToSender = "shipment.return_to_sender"
	// EventShipmentVoidRejected: the carrier refused a void; the label is
	// purchased again and errorMessage says why (an addition to Variant B).
	EventShipmentVoidRejected = "shipment.void_rejected"
	// EventBatchCompleted: no item of a batch is paying or pending any more;
	// the data is the batch with its counts.
	EventBatchCompleted = "batch.completed"
	// EventManifestCreated and EventManifestFailed: the carrier made or
	// refused a manifest; the data is the manifest.
	EventManifestCreated = "manifest.created"
	EventManifestFailed  = "manifest.failed"
	// EventTest is the type of the event Send test delivers; it is not in the history.
	EventTest = "webhook.test"
)

// EventTypes lists the types one can subscribe to, without "*".
func EventTypes() []string {
	return []string{
		EventShipmentPurchased, EventShipmentFailed, EventShipmentVoided, EventTrackerUpdated,
		EventShipmentDelivered, EventShipmentException, EventShipmentReturnToSender, EventShipmentVoidRejected,
		EventBatchCompleted, EventManifestCreated, EventManifestFailed,
	}
}

// Event is one entry of the event history, with its deliveries counted.
type Event struct {
	ID         string
	Type       string
	APIVersion string
	CreatedAt  time.Time
	Data       json.RawMessage
	Deliveries DeliverySummary
}

// DeliverySummary counts an event's deliveries by status.
type DeliverySummary struct {
	Total, Pending, Delivered, Failed int
}

// summaryOf counts deliveries by status from the store's counts by column value.
func summaryOf(counts map[string]int) DeliverySummary {
	var s DeliverySummary
	for status, n := range counts {
		s.Total += n
		switch DeliveryStatus(status) {
		case StatusPending:
			s.Pending += n
		case StatusDelivered:
			s.Delivered += n
		case StatusFailed:
			s.Failed += n
		}
	}
	return s
}

// Record stores an event in the transaction that made the change it
// reports, so an event exists exactly when its change does, and queues one
// delivery per matching subscription in the same transaction.
func (s *Service) Record(ctx context.Context, tx *store.Tx, accountID, mode, eventType string, data json.RawMessage) (store.Event, error) {
	ev := store.Event{
		ID: store.NewID("evt"), AccountID: accountID, Mode: mode, Type: eventType,
		APIVersion: APIVersion, CreatedAt: s.now(), Data: string(data),
	}
	if err := tx.InsertEvent(ctx, &ev); err != nil {
		return store.Event{}, fmt.Errorf("record %s: %w", eventType, err)
	}
	if err := s.fanOut(ctx, tx, ev); err != nil {
		return store.Event{}, fmt.Errorf("deliveries of %s: %w", eventType, err)
	}
	return ev, nil
}

// fanOut queues one delivery of ev per enabled subscription that selects
// its type; the unique (subscription, event) row makes a repeated fan-out harmless.
func (s *Service) fanOut(ctx context.Context, tx *store.Tx, ev store.Event) error {
	subs, err := tx.DeliverableSubscriptions(ctx, ev.AccountID, ev.Mode)
	if err != nil {
		return err
	}
	var ds []*store.Delivery
	for _, sub := range subs {
		selected, err := selects(sub, ev.Type)
		if err != nil {
			return err
		}
		if !selected {
			continue
		}
		due := ev.CreatedAt
		ds = append(ds, &store.Delivery{ID: store.NewID("dlv"), SubscriptionID: sub.ID, AccountID: ev.AccountID, Mode: ev.Mode,
			EventID: ev.ID, EventType: ev.Type, Status: string(StatusPending), NextAttemptAt: &due,
			CreatedAt: ev.CreatedAt, UpdatedAt: ev.CreatedAt})
	}
	// One statement for every subscription's delivery, and one job for
	// their first attempts: the writer (SQLite) or the round trips
	// (PostgreSQL) are paid once, not once per subscription. The job is of
	// deliveries this transaction inserted, so it cannot exist yet: no
	// unique lookup, nothing read back.
	inserted, err := tx.InsertDeliveries(ctx, ds)
	if err != nil {
		return err
	}
	var ids []string
	for i, d := range ds {
		if inserted[i] {
			ids = append(ids, d.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	return tx.EnqueueNew(ctx, river.InsertManyParams{Args: fanOutArgs{EventID: ev.ID, DeliveryIDs: ids},
		InsertOpts: &river.InsertOpts{Queue: s.cfg.Queue}})
}

// selects reports whether a subscription's events select eventType.
func selects(sub store.Subscription, eventType string) (bool, error) {
	var events []string
	if err := json.Unmarshal([]byte(sub.EventsJSON), &events); err != nil {
		return false, fmt.Errorf("subscription %s: stored events do not decode: %w", sub.ID, err)
	}
	for _, e := range events {
		if e == "*" || e == eventType {
			return true, nil
		}
	}
	return false, nil
}

// UnknownEventTypeError: a history filter names no event type (the API's
// 422 invalid_field with knownEvents, the settings page's notice).
type UnknownEventTypeError struct{ Type string }

func (e *UnknownEventTypeError) Error() string {
	return fmt.Sprintf("type %q is not an event type", e.Type)
}

// ListEvents pages through the caller's event history, newest first, of
// every type (eventType nil) or of one of EventTypes, each event with its
// deliveries counted. Any other type, the empty one included, is an
// UnknownEventTypeError rather than an empty page that reads as "nothing
// happened".
func (s *Service) ListEvents(ctx context.Context, c accounts.Caller, eventType *string, p paging.Request) ([]Event, bool, error) {
	filter := ""
	if eventType != nil {
		if !slices.Contains(EventTypes(), *eventType) {
			return nil, false, &UnknownEventTypeError{Type: *eventType}
		}
		filter = *eventType
	}
	rows, more, err := s.store.ListEvents(ctx, c.AccountID, string(c.Mode), filter, p)
	if err != nil {
		return nil, false, err
	}
	ids := make([]string, len(rows))
	for i, ev := range rows {
		ids[i] = ev.ID
	}
	counts, err := s.store.DeliveryCounts(ctx, ids)
	if err != nil {
		return nil, false, err
	}
	out := make([]Event, len(rows))
	for i, ev := range rows {
		out[i] = Event{ID: ev.ID, Type: ev.Type, APIVersion: ev.APIVersion, CreatedAt: ev.CreatedAt,
			Data: withObject(ev.Type, json.RawMessage(ev.Data)), Deliveries: summaryOf(counts[ev.ID])}
	}
	return out, more, nil
}

// withObject gives data recorded before resources named their kind its
// `object` member ("shipment", "tracker", "batch", "manifest"), which the
// contract's event types are told apart by; data that has it is returned
// as it is. A tracker.updated carries a shipment (a label's tracker) or a
// tracker (a standalone one), and only a tracker has a shipmentId member.
func withObject(eventType string, data json.RawMessage) json.RawMessage {
	var members map[string]json.RawMessage
	if json.Unmarshal(data, &members) != nil || members == nil {
		return data
	}
	if _, has := members["object"]; has {
		return data
	}
	var kind string
	switch eventType {
	case EventShipmentPurchased, EventShipmentFailed, EventShipmentVoided, EventShipmentVoidRejected,
		EventShipmentDelivered, EventShipmentException, EventShipmentReturnToSender:
		kind = "shipment"
	case EventTrackerUpdated:
		kind = "shipment"
		if _, tracker := members["shipmentId"]; tracker {
			kind = "tracker"
		}
	case EventBatchCompleted:
		kind = "batch"
	case EventManifestCreated, EventManifestFailed:
		kind = "manifest"
	default:
		return data
	}
	// The member goes first and the rest stays byte for byte.
	body := bytes.TrimSpace(data)[1:]
	sep := ","
	if len(members) == 0 {
		sep = ""
	}
	return slices.Concat([]byte(`{"object":"`+kind+`"`+sep), body)
}

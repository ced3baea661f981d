package server

import (
	"context"
	"encoding/json"
	"errors"
	"slices"

	"github.com/jmoiron/sqlx"
	"github.com/oapi-codegen/nullable"

	"github.com/shipd-dev/shipd/gen"
	"github.com/shipd-dev/shipd/store"
	"github.com/shipd-dev/shipd/webhooks"
)

// Event types one can subscribe to (VARIANTS.md: Variant B); "*" matches all.
var knownEventTypes = []string{
	"shipment.purchased", "shipment.failed", "shipment.voided", "tracker.updated",
	"shipment.delivered", "shipment.exception", "shipment.return_to_sender",
}

const maxActiveSubscriptions = 25

// checkEventTypes returns the 422 body for an unknown type, and the list without duplicates.
func checkEventTypes(ctx context.Context, events []string) ([]string, *gen.Error) {
	var out []string
	for _, ev := range events {
		if ev != "*" && !slices.Contains(knownEventTypes, ev) {
			body := errorBody(ctx, "invalid_event_type", "unknown event type "+quote(ev))
			known := append([]string{"*"}, knownEventTypes...)
			body.KnownEvents = &known
			return nil, &body
		}
		if !slices.Contains(out, ev) {
			out = append(out, ev)
		}
	}
	return out, nil
}

func quote(s string) string {
	if len(s) > 64 {
		s = s[:64]
	}
	return "\"" + s + "\""
}

// CreateWebhook subscribes an endpoint; the signing secret is in this response only.
func (s *Server) CreateWebhook(ctx context.Context, req gen.CreateWebhookRequestObject) (gen.CreateWebhookResponseObject, error) {
	unprocessable := func(body gen.Error) gen.CreateWebhookResponseObject {
		return gen.CreateWebhook422JSONResponse{UnprocessableEntityJSONResponse: gen.UnprocessableEntityJSONResponse{Body: body}}
	}
	p := principalFrom(ctx)
	b := req.Body
	events, bad := checkEventTypes(ctx, b.Events)
	if bad != nil {
		return unprocessable(*bad), nil
	}
	if err := webhooks.ValidateURL(b.Url, p.Mode == "live"); err != nil {
		return unprocessable(fieldErrorBody(ctx, "invalid_field", "url", err.Error())), nil
	}
	secret, err := webhooks.NewSigningSecret()
	if err != nil {
		return nil, err
	}
	ciphertext, err := s.cfg.WebhookCipher.Encrypt(secret)
	if err != nil {
		return nil, err
	}
	now := s.now()
	sub := store.Subscription{
		ID: store.NewID("whk"), AccountID: p.AccountID, Mode: p.Mode, URL: b.Url,
		Description: b.Description, Enabled: b.Enabled == nil || *b.Enabled,
		SecretCiphertext: ciphertext, CreatedAt: now, UpdatedAt: now,
	}
	sub.SetEvents(events)
	errLimit := errors.New("subscription limit")
	err = s.writeTx(ctx, func(tx *sqlx.Tx) error {
		n, err := store.CountActiveSubscriptions(ctx, tx, p.AccountID, p.Mode)
		if err != nil {
			return err
		}
		if n >= maxActiveSubscriptions {
			return errLimit
		}
		if err := store.InsertSubscription(ctx, tx, &sub); err != nil {
			return err
		}
		return markCommitted(ctx, tx)
	})
	if body, ok := tokenFailure(ctx, err); ok {
		return gen.CreateWebhook401JSONResponse{UnauthorizedJSONResponse: gen.UnauthorizedJSONResponse{Body: body}}, nil
	}
	switch {
	case errors.Is(err, errLimit):
		return unprocessable(errorBody(ctx, "subscription_limit", "an account may have at most 25 active subscriptions per mode; delete one first")), nil
	case errors.Is(err, store.ErrDuplicateEndpoint):
		return gen.CreateWebhook409JSONResponse{ConflictJSONResponse: gen.ConflictJSONResponse{
			Body: errorBody(ctx, "duplicate_endpoint", "an active subscription for this URL already exists")}}, nil
	case err != nil:
		return nil, err
	}
	w := subscription(sub)
	return gen.CreateWebhook201JSONResponse{
		Id: w.Id, Mode: w.Mode, Url: w.Url, Events: w.Events, Description: w.Description,
		Enabled: w.Enabled, CreatedAt: w.CreatedAt, SigningSecret: secret,
	}, nil
}

// ListWebhooks pages through active subscriptions, newest first.
func (s *Server) ListWebhooks(ctx context.Context, req gen.ListWebhooksRequestObject) (gen.ListWebhooksResponseObject, error) {
	page, perr, err := s.pageOf(ctx, store.ListingSubscriptions, req.Params.Cursor, req.Params.Limit)
	if err != nil {
		return nil, err
	}
	if perr != nil {
		return gen.ListWebhooks422JSONResponse{UnprocessableEntityJSONResponse: gen.UnprocessableEntityJSONResponse{Body: bodyOf(ctx, perr)}}, nil
	}
	p := principalFrom(ctx)
	rows, next, err := s.store.ListSubscriptions(ctx, p.AccountID, p.Mode, page)
	if err != nil {
		return nil, err
	}
	out := gen.WebhookSubscriptionList{Data: make([]gen.WebhookSubscription, len(rows)), NextCursor: nextCursor(rows, next, func(s store.Subscription) string { return s.ID })}
	for i, sub := range rows {
		out.Data[i] = subscription(sub)
	}
	return gen.ListWebhooks200JSONResponse(out), nil
}

// lookupSubscription finds the caller's active subscription: 404 when missing,
// deleted or another account's; 403 wrong_mode when it is the other mode's.
func (s *Server) lookupSubscription(ctx context.Context, q sqlx.QueryerContext, id string) (store.Subscription, *gen.Error, int, error) {
	p := principalFrom(ctx)
	sub, err := store.GetSubscription(ctx, q, p.AccountID, id)
	if errors.Is(err, store.ErrNotFound) {
		body := notFoundBody(ctx)
		return sub, &body, 404, nil
	}
	if err != nil {
		return sub, nil, 0, err
	}
	if sub.Mode != p.Mode {
		body := wrongModeBody(ctx, p.Mode)
		return sub, &body, 403, nil
	}
	return sub, nil, 0, nil
}

// GetWebhook reads one subscription, without its secret.
func (s *Server) GetWebhook(ctx context.Context, req gen.GetWebhookRequestObject) (gen.GetWebhookResponseObject, error) {
	sub, body, status, err := s.lookupSubscription(ctx, s.store.R, req.Id)
	switch {
	case err != nil:
		return nil, err
	case status == 404:
		return gen.GetWebhook404JSONResponse{NotFoundJSONResponse: gen.NotFoundJSONResponse{Body: *body}}, nil
	case status == 403:
		return gen.GetWebhook403JSONResponse{ForbiddenJSONResponse: gen.ForbiddenJSONResponse{Body: *body}}, nil
	}
	return gen.GetWebhook200JSONResponse(subscription(sub)), nil
}

// UpdateWebhook changes enabled, description and events; url and the secret are immutable.
func (s *Server) UpdateWebhook(ctx context.Context, req gen.UpdateWebhookRequestObject) (gen.UpdateWebhookResponseObject, error) {
	unprocessable := func(body gen.Error) gen.UpdateWebhookResponseObject {
		return gen.UpdateWebhook422JSONResponse{UnprocessableEntityJSONResponse: gen.UnprocessableEntityJSONResponse{Body: body}}
	}
	b := req.Body
	if b.Url != nil {
		return unprocessable(fieldErrorBody(ctx, "invalid_field", "url", "url is immutable; delete the subscription and create a new one")), nil
	}
	if b.SigningSecret != nil {
		return unprocessable(fieldErrorBody(ctx, "invalid_field", "signingSecret", "signingSecret is immutable; delete the subscription and create a new one")), nil
	}
	var events []string
	if b.Events != nil {
		var bad *gen.Error
		if events, bad = checkEventTypes(ctx, *b.Events); bad != nil {
			return unprocessable(*bad), nil
		}
	}
	var (
		sub    store.Subscription
		body   *gen.Error
		status int
	)
	err := s.writeTx(ctx, func(tx *sqlx.Tx) error {
		var err error
		sub, body, status, err = s.lookupSubscription(ctx, tx, req.Id)
		if err != nil || body != nil {
			return err
		}
		if b.Enabled != nil {
			sub.Enabled = *b.Enabled
		}
		if b.Description.IsSpecified() {
			if b.Description.IsNull() {
				sub.Description = nil
			} else {
				d := b.Description.MustGet()
				sub.Description = &d
			}
		}
		if events != nil {
			sub.SetEvents(events)
		}
		sub.UpdatedAt = s.now()
		return store.UpdateSubscription(ctx, tx, &sub)
	})
	if tb, ok := tokenFailure(ctx, err); ok {
		return gen.UpdateWebhook401JSONResponse{UnauthorizedJSONResponse: gen.UnauthorizedJSONResponse{Body: tb}}, nil
	}
	switch {
	case err != nil:
		return nil, err
	case status == 404:
		return gen.UpdateWebhook404JSONResponse{NotFoundJSONResponse: gen.NotFoundJSONResponse{Body: *body}}, nil
	case status == 403:
		return gen.UpdateWebhook403JSONResponse{ForbiddenJSONResponse: gen.ForbiddenJSONResponse{Body: *body}}, nil
	}
	return gen.UpdateWebhook200JSONResponse(subscription(sub)), nil
}

// DeleteWebhook revokes a subscription: it disappears from every later read,
// and its pending deliveries are cancelled (status failed).
func (s *Server) DeleteWebhook(ctx context.Context, req gen.DeleteWebhookRequestObject) (gen.DeleteWebhookResponseObject, error) {
	var (
		body   *gen.Error
		status int
	)
	err := s.writeTx(ctx, func(tx *sqlx.Tx) error {
		var err error
		_, body, status, err = s.lookupSubscription(ctx, tx, req.Id)
		if err != nil || body != nil {
			return err
		}
		p := principalFrom(ctx)
		now := s.now()
		if err := store.RevokeSubscription(ctx, tx, p.AccountID, req.Id, now); err != nil {
			return err
		}
		// Delivery stops at once: queued deliveries become failed, and their
		// jobs, finding nothing pending, send nothing.
		_, err = store.CancelPendingDeliveries(ctx, tx, req.Id, "subscription deleted", now)
		return err
	})
	if tb, ok := tokenFailure(ctx, err); ok {
		return gen.DeleteWebhook401JSONResponse{UnauthorizedJSONResponse: gen.UnauthorizedJSONResponse{Body: tb}}, nil
	}
	switch {
	case err != nil:
		return nil, err
	case status == 404:
		return gen.DeleteWebhook404JSONResponse{NotFoundJSONResponse: gen.NotFoundJSONResponse{Body: *body}}, nil
	case status == 403:
		return gen.DeleteWebhook403JSONResponse{ForbiddenJSONResponse: gen.ForbiddenJSONResponse{Body: *body}}, nil
	}
	return gen.DeleteWebhook204Response{}, nil
}

// TestWebhook queues a signed webhook.test event to this endpoint only. The
// test event is not recorded in the event history (GET /events): it exists
// only as this delivery. It is sent once, as a manual attempt: no automatic
// retries (use the retry endpoint), and it is sent even while the
// subscription is paused, since someone asked for it.
func (s *Server) TestWebhook(ctx context.Context, req gen.TestWebhookRequestObject) (gen.TestWebhookResponseObject, error) {
	var (
		d      store.Delivery
		body   *gen.Error
		status int
	)
	err := s.writeTx(ctx, func(tx *sqlx.Tx) error {
		var (
			sub store.Subscription
			err error
		)
		sub, body, status, err = s.lookupSubscription(ctx, tx, req.Id)
		if err != nil || body != nil {
			return err
		}
		raw, err := json.Marshal(map[string]string{"message": "test event from shipd", "subscriptionId": sub.ID})
		if err != nil {
			return err
		}
		data := string(raw)
		now := s.now()
		d = store.Delivery{ID: store.NewID("dlv"), SubscriptionID: sub.ID, AccountID: sub.AccountID, Mode: sub.Mode,
			EventID: store.NewID("evt"), EventType: testEventType, EventData: &data, CreatedAt: now}
		if err := s.queueManualAttempt(ctx, tx, &d, now); err != nil {
			return err
		}
		_, err = store.InsertDelivery(ctx, tx, &d)
		return err
	})
	if tb, ok := tokenFailure(ctx, err); ok {
		return gen.TestWebhook401JSONResponse{UnauthorizedJSONResponse: gen.UnauthorizedJSONResponse{Body: tb}}, nil
	}
	switch {
	case err != nil:
		return nil, err
	case status == 404:
		return gen.TestWebhook404JSONResponse{NotFoundJSONResponse: gen.NotFoundJSONResponse{Body: *body}}, nil
	case status == 403:
		return gen.TestWebhook403JSONResponse{ForbiddenJSONResponse: gen.ForbiddenJSONResponse{Body: *body}}, nil
	}
	return gen.TestWebhook202JSONResponse(deliveryView(d, nil)), nil
}

// testEventType is the type of the event POST /webhooks/{id}/test sends.
const testEventType = "webhook.test"

// ListWebhookDeliveries pages through a subscription's deliveries, newest
// first, each with every attempt.
func (s *Server) ListWebhookDeliveries(ctx context.Context, req gen.ListWebhookDeliveriesRequestObject) (gen.ListWebhookDeliveriesResponseObject, error) {
	page, perr, err := s.pageOf(ctx, store.ListingDeliveries, req.Params.Cursor, req.Params.Limit)
	if err != nil {
		return nil, err
	}
	if perr != nil {
		return gen.ListWebhookDeliveries422JSONResponse{UnprocessableEntityJSONResponse: gen.UnprocessableEntityJSONResponse{Body: bodyOf(ctx, perr)}}, nil
	}
	sub, body, status, err := s.lookupSubscription(ctx, s.store.R, req.Id)
	switch {
	case err != nil:
		return nil, err
	case status == 404:
		return gen.ListWebhookDeliveries404JSONResponse{NotFoundJSONResponse: gen.NotFoundJSONResponse{Body: *body}}, nil
	case status == 403:
		return gen.ListWebhookDeliveries403JSONResponse{ForbiddenJSONResponse: gen.ForbiddenJSONResponse{Body: *body}}, nil
	}
	rows, next, err := store.ListDeliveries(ctx, s.store.R, sub.ID, page)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(rows))
	for i, d := range rows {
		ids[i] = d.ID
	}
	attempts, err := store.DeliveryAttempts(ctx, s.store.R, ids)
	if err != nil {
		return nil, err
	}
	out := gen.WebhookDeliveryList{Data: make([]gen.WebhookDelivery, len(rows)), NextCursor: nextCursor(rows, next, func(d store.Delivery) string { return d.ID })}
	for i, d := range rows {
		out.Data[i] = deliveryView(d, attempts[d.ID])
	}
	return gen.ListWebhookDeliveries200JSONResponse(out), nil
}

// RetryWebhookDelivery queues one more attempt of a delivery now, whatever
// its status (also while the subscription is paused: someone asked for it).
// The attempt is counted and logged; its outcome becomes the delivery's
// status unless automatic retries are still scheduled. While a manual attempt
// is queued and not yet made, another one is 409 delivery_in_progress.
func (s *Server) RetryWebhookDelivery(ctx context.Context, req gen.RetryWebhookDeliveryRequestObject) (gen.RetryWebhookDeliveryResponseObject, error) {
	var (
		d        store.Delivery
		attempts map[string][]store.DeliveryAttempt
		body     *gen.Error
		status   int
	)
	errBusy := errors.New("delivery in progress")
	err := s.writeTx(ctx, func(tx *sqlx.Tx) error {
		var (
			sub store.Subscription
			err error
		)
		sub, body, status, err = s.lookupSubscription(ctx, tx, req.Id)
		if err != nil || body != nil {
			return err
		}
		d, err = store.GetSubscriptionDelivery(ctx, tx, sub.ID, req.DeliveryId)
		if errors.Is(err, store.ErrNotFound) {
			nf := notFoundBody(ctx)
			body, status = &nf, 404
			return nil
		}
		if err != nil {
			return err
		}
		if d.RetryRequest != nil {
			return errBusy
		}
		if err := s.queueManualAttempt(ctx, tx, &d, s.now()); err != nil {
			return err
		}
		if err := store.UpdateDelivery(ctx, tx, &d); err != nil {
			return err
		}
		attempts, err = store.DeliveryAttempts(ctx, tx, []string{d.ID})
		return err
	})
	if tb, ok := tokenFailure(ctx, err); ok {
		return gen.RetryWebhookDelivery401JSONResponse{UnauthorizedJSONResponse: gen.UnauthorizedJSONResponse{Body: tb}}, nil
	}
	switch {
	case errors.Is(err, errBusy):
		return gen.RetryWebhookDelivery409JSONResponse{ConflictJSONResponse: gen.ConflictJSONResponse{
			Body: errorBody(ctx, "delivery_in_progress", "a manual attempt of this delivery is already queued; wait for its outcome")}}, nil
	case err != nil:
		return nil, err
	case status == 404:
		return gen.RetryWebhookDelivery404JSONResponse{NotFoundJSONResponse: gen.NotFoundJSONResponse{Body: *body}}, nil
	case status == 403:
		return gen.RetryWebhookDelivery403JSONResponse{ForbiddenJSONResponse: gen.ForbiddenJSONResponse{Body: *body}}, nil
	}
	return gen.RetryWebhookDelivery202JSONResponse(deliveryView(d, attempts[d.ID])), nil
}

// deliveryView is the contract's WebhookDelivery; nextAttemptAt is the queued
// manual attempt's time, else the next automatic attempt's.
func deliveryView(d store.Delivery, attempts []store.DeliveryAttempt) gen.WebhookDelivery {
	v := gen.WebhookDelivery{
		Id: d.ID, SubscriptionId: d.SubscriptionID, EventId: d.EventID, EventType: d.EventType,
		Status: gen.WebhookDeliveryStatus(d.Status), Attempts: d.Attempts, CreatedAt: d.CreatedAt,
		NextAttemptAt: d.NextAttemptAt, AttemptLog: make([]gen.DeliveryAttempt, len(attempts)),
	}
	if d.RetryRequestedAt != nil {
		v.NextAttemptAt = d.RetryRequestedAt
	}
	for i, a := range attempts {
		v.AttemptLog[i] = gen.DeliveryAttempt{AttemptedAt: a.AttemptedAt, ResponseStatus: a.ResponseStatus, LatencyMs: a.LatencyMs, Error: a.Error}
	}
	return v
}

func subscription(sub store.Subscription) gen.WebhookSubscription {
	desc := nullable.NewNullNullable[string]()
	if sub.Description != nil {
		desc = nullable.NewNullableWithValue(*sub.Description)
	}
	return gen.WebhookSubscription{
		Id: sub.ID, Mode: gen.Mode(sub.Mode), Url: sub.URL, Events: sub.Events(),
		Description: desc, Enabled: sub.Enabled, CreatedAt: sub.CreatedAt,
	}
}

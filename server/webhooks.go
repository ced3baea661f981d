package server

import (
	"context"

	"github.com/shipd-dev/shipd/gen"
	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/webhooks"
)

// CreateWebhook subscribes an endpoint; the signing secret is in this response only.
func (s *Server) CreateWebhook(ctx context.Context, req gen.CreateWebhookRequestObject) (gen.CreateWebhookResponseObject, error) {
	b := req.Body
	in := webhooks.NewSubscription{URL: b.Url, Events: b.Events, Description: b.Description, Enabled: b.Enabled, IdempotencyKey: deref(b.IdempotencyKey), RequestFingerprint: requestFingerprint(ctx)}
	created, replayed, err := s.webhooks.Create(ctx, callerOf(ctx), in)
	if err != nil {
		return nil, err
	}
	markReplayed(ctx, replayed)
	w := subscriptionView(created.Subscription)
	return gen.CreateWebhook201JSONResponse{
		Id: w.Id, Mode: w.Mode, Url: w.Url, Events: w.Events, Description: w.Description,
		Enabled: w.Enabled, CreatedAt: w.CreatedAt, SigningSecret: created.SigningSecret,
	}, nil
}

// ListWebhooks pages through active subscriptions, newest first.
func (s *Server) ListWebhooks(ctx context.Context, req gen.ListWebhooksRequestObject) (gen.ListWebhooksResponseObject, error) {
	page, err := paging.Decode(req.Params.Cursor, req.Params.Limit)
	if err != nil {
		return nil, err
	}
	rows, more, err := s.webhooks.List(ctx, callerOf(ctx), page)
	if err != nil {
		return nil, err
	}
	out := gen.WebhookSubscriptionList{Data: make([]gen.WebhookSubscription, len(rows)), NextCursor: nextCursor(rows, more, func(s webhooks.Subscription) string { return s.ID })}
	for i, sub := range rows {
		out.Data[i] = subscriptionView(sub)
	}
	return gen.ListWebhooks200JSONResponse(out), nil
}

// GetWebhook reads one subscription, without its secret.
func (s *Server) GetWebhook(ctx context.Context, req gen.GetWebhookRequestObject) (gen.GetWebhookResponseObject, error) {
	sub, err := s.webhooks.Get(ctx, callerOf(ctx), req.Id)
	if err != nil {
		return nil, err
	}
	return gen.GetWebhook200JSONResponse(subscriptionView(sub)), nil
}

// UpdateWebhook changes enabled, description and events.
func (s *Server) UpdateWebhook(ctx context.Context, req gen.UpdateWebhookRequestObject) (gen.UpdateWebhookResponseObject, error) {
	b := req.Body
	p := webhooks.Patch{Enabled: b.Enabled, URL: b.Url, SigningSecret: b.SigningSecret}
	if b.Events != nil {
		p.Events = *b.Events
	}
	if b.Description.IsSpecified() {
		p.SetDescription = true
		if !b.Description.IsNull() {
			d := b.Description.MustGet()
			p.Description = &d
		}
	}
	sub, err := s.webhooks.Update(ctx, callerOf(ctx), req.Id, p)
	if err != nil {
		return nil, err
	}
	return gen.UpdateWebhook200JSONResponse(subscriptionView(sub)), nil
}

// DeleteWebhook revokes a subscription and cancels its pending deliveries.
func (s *Server) DeleteWebhook(ctx context.Context, req gen.DeleteWebhookRequestObject) (gen.DeleteWebhookResponseObject, error) {
	if err := s.webhooks.Delete(ctx, callerOf(ctx), req.Id); err != nil {
		return nil, err
	}
	return gen.DeleteWebhook204Response{}, nil
}

// TestWebhook queues a signed webhook.test event to this endpoint only.
func (s *Server) TestWebhook(ctx context.Context, req gen.TestWebhookRequestObject) (gen.TestWebhookResponseObject, error) {
	d, err := s.webhooks.SendTest(ctx, callerOf(ctx), req.Id)
	if err != nil {
		return nil, err
	}
	return gen.TestWebhook202JSONResponse(deliveryView(d)), nil
}

// ListWebhookDeliveries pages through a subscription's deliveries, newest first, each with every attempt.
func (s *Server) ListWebhookDeliveries(ctx context.Context, req gen.ListWebhookDeliveriesRequestObject) (gen.ListWebhookDeliveriesResponseObject, error) {
	page, err := paging.Decode(req.Params.Cursor, req.Params.Limit)
	if err != nil {
		return nil, err
	}
	rows, more, err := s.webhooks.Deliveries(ctx, callerOf(ctx), req.Id, page)
	if err != nil {
		return nil, err
	}
	out := gen.WebhookDeliveryList{Data: make([]gen.WebhookDelivery, len(rows)), NextCursor: nextCursor(rows, more, func(d webhooks.Delivery) string { return d.ID })}
	for i, d := range rows {
		out.Data[i] = deliveryView(d)
	}
	return gen.ListWebhookDeliveries200JSONResponse(out), nil
}

// RetryWebhookDelivery queues one more attempt of a delivery now.
func (s *Server) RetryWebhookDelivery(ctx context.Context, req gen.RetryWebhookDeliveryRequestObject) (gen.RetryWebhookDeliveryResponseObject, error) {
	d, err := s.webhooks.Retry(ctx, callerOf(ctx), req.Id, req.DeliveryId)
	if err != nil {
		return nil, err
	}
	return gen.RetryWebhookDelivery202JSONResponse(deliveryView(d)), nil
}

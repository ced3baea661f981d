package ui

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/webhooks"
)

// The webhooks pages: the endpoints of the mode looked at and the form that
// adds one (its signing secret shown once); per endpoint, pause and resume,
// edits, delete, Send test, and the delivery log with Retry.

// allEvents is the event selector that matches every type.
const allEvents = "*"

type webhooksPage struct {
	Endpoints  []webhooks.Subscription
	EventTypes []string
	Form       webhookForm
	// Created is the endpoint just added and its signing secret, shown this once.
	Created *webhooks.CreatedSubscription
	More    bool
	Next    url.Values
	Limits  fieldLimits
}

// fieldLimits are the service's limits, for the inputs' maxlength; the
// service checks them, the browser only helps.
type fieldLimits struct{ URL, Description int }

func webhookLimits() fieldLimits {
	return fieldLimits{URL: webhooks.MaxURLLength, Description: webhooks.MaxDescriptionLength}
}

type webhookForm struct {
	URL, Description string
	Events           []string
}

// maxEndpointsShown: an account has at most webhooks.MaxActiveSubscriptions per mode.
const maxEndpointsShown = 100

func (u *UI) webhooksPage(w http.ResponseWriter, r *http.Request, c accounts.Caller) error {
	return u.renderWebhooks(w, r, c, http.StatusOK, webhooksPage{}, "")
}

func (u *UI) renderWebhooks(w http.ResponseWriter, r *http.Request, c accounts.Caller, status int, page webhooksPage, problem string) error {
	subs, more, err := u.webhooks.List(r.Context(), c, paging.Request{Limit: maxEndpointsShown})
	if err != nil {
		return err
	}
	page.Endpoints, page.More, page.EventTypes, page.Limits = subs, more, webhooks.EventTypes(), webhookLimits()
	u.render(w, r, status, "webhooks", view{Title: "Webhooks", Section: "webhooks", Caller: &c, Problem: problem, Page: page})
	return nil
}

// eventsOf reads the event checkboxes: "All events" wins over single types.
// None checked is an empty list, never nil, which the service refuses (nil
// would mean "leave the events as they are" to an update).
func eventsOf(r *http.Request) []string {
	events := r.PostForm["event"]
	if slices.Contains(events, allEvents) {
		return []string{allEvents}
	}
	return append([]string{}, events...)
}

// createWebhook adds an endpoint and answers with the page itself, showing
// the signing secret, which is kept only sealed for signing.
func (u *UI) createWebhook(w http.ResponseWriter, r *http.Request, c accounts.Caller) error {
	form := webhookForm{URL: strings.TrimSpace(r.PostFormValue("url")), Description: strings.TrimSpace(r.PostFormValue("description")), Events: eventsOf(r)}
	in := webhooks.NewSubscription{URL: form.URL, Events: form.Events}
	if form.Description != "" {
		in.Description = &form.Description
	}
	created, _, err := u.webhooks.Create(r.Context(), c, in)
	if msg := webhookProblem(err); msg != "" {
		return u.renderWebhooks(w, r, c, http.StatusUnprocessableEntity, webhooksPage{Form: form}, msg)
	}
	if err != nil {
		return err
	}
	return u.renderWebhooks(w, r, c, http.StatusCreated, webhooksPage{Created: &created}, "")
}

// webhookProblem says what is wrong with an endpoint form, "" when the error is not the form's.
func webhookProblem(err error) string {
	var field *webhooks.FieldError
	var badEvent *webhooks.InvalidEventTypeError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &field):
		if field.Field == "url" {
			return "The URL is not allowed: " + field.Message + "."
		}
		return sentence(err)
	case errors.As(err, &badEvent), errors.Is(err, webhooks.ErrDuplicateEndpoint), errors.Is(err, webhooks.ErrSubscriptionLimit):
		return sentence(err)
	}
	return ""
}

type webhookPage struct {
	Endpoint   webhooks.Subscription
	EventTypes []string
	Deliveries []deliveryRow
	More       bool
	Next       url.Values
	Limits     fieldLimits
}

// deliveryRow is a delivery with its latest attempt picked out.
type deliveryRow struct {
	webhooks.Delivery
	Last *webhooks.Attempt
}

// deliveriesPerPage is the length of the delivery log's pages.
const deliveriesPerPage = 25

func (u *UI) webhookPage(w http.ResponseWriter, r *http.Request, c accounts.Caller) error {
	return u.renderWebhook(w, r, c, http.StatusOK, "")
}

func (u *UI) renderWebhook(w http.ResponseWriter, r *http.Request, c accounts.Caller, status int, problem string) error {
	ctx := r.Context()
	sub, err := u.webhooks.Get(ctx, c, r.PathValue("id"))
	if err != nil {
		return err
	}
	p, err := pageRequest(r, deliveriesPerPage)
	if err != nil {
		return err
	}
	deliveries, more, err := u.webhooks.Deliveries(ctx, c, sub.ID, p)
	if err != nil {
		return err
	}
	page := webhookPage{Endpoint: sub, EventTypes: webhooks.EventTypes(), More: more, Limits: webhookLimits(), Deliveries: make([]deliveryRow, len(deliveries))}
	for i, d := range deliveries {
		page.Deliveries[i] = deliveryRow{Delivery: d}
		if n := len(d.Log); n > 0 {
			page.Deliveries[i].Last = &d.Log[n-1]
		}
	}
	if more && len(deliveries) > 0 {
		page.Next = nextPage(r, deliveries[len(deliveries)-1].ID)
	}
	u.render(w, r, status, "webhook", view{Title: "Webhook endpoint", Section: "webhooks", Caller: &c, Problem: problem, Page: page})
	return nil
}

// updateWebhook saves the description and events.
func (u *UI) updateWebhook(w http.ResponseWriter, r *http.Request, c accounts.Caller) error {
	id := r.PathValue("id")
	patch := webhooks.Patch{Events: eventsOf(r), SetDescription: true}
	if d := strings.TrimSpace(r.PostFormValue("description")); d != "" {
		patch.Description = &d
	}
	_, err := u.webhooks.Update(r.Context(), c, id, patch)
	if msg := webhookProblem(err); msg != "" {
		return u.renderWebhook(w, r, c, http.StatusUnprocessableEntity, msg)
	}
	if err != nil {
		return err
	}
	redirect(w, r, endpointPath(id)+"?done=webhook-saved")
	return nil
}

func (u *UI) pauseWebhook(w http.ResponseWriter, r *http.Request, c accounts.Caller) error {
	return u.setEnabled(w, r, c, false)
}

func (u *UI) resumeWebhook(w http.ResponseWriter, r *http.Request, c accounts.Caller) error {
	return u.setEnabled(w, r, c, true)
}

func (u *UI) setEnabled(w http.ResponseWriter, r *http.Request, c accounts.Caller, enabled bool) error {
	id := r.PathValue("id")
	if _, err := u.webhooks.Update(r.Context(), c, id, webhooks.Patch{Enabled: &enabled}); err != nil {
		return err
	}
	done := "webhook-paused"
	if enabled {
		done = "webhook-resumed"
	}
	redirect(w, r, endpointPath(id)+"?done="+done)
	return nil
}

func (u *UI) deleteWebhook(w http.ResponseWriter, r *http.Request, c accounts.Caller) error {
	if err := u.webhooks.Delete(r.Context(), c, r.PathValue("id")); err != nil {
		return err
	}
	redirect(w, r, Prefix+"/webhooks?done=webhook-deleted")
	return nil
}

// sendTest queues a signed webhook.test event to this endpoint only.
func (u *UI) sendTest(w http.ResponseWriter, r *http.Request, c accounts.Caller) error {
	id := r.PathValue("id")
	if _, err := u.webhooks.SendTest(r.Context(), c, id); err != nil {
		return err
	}
	redirect(w, r, endpointPath(id)+"?done=test-sent")
	return nil
}

func (u *UI) retryDelivery(w http.ResponseWriter, r *http.Request, c accounts.Caller) error {
	id := r.PathValue("id")
	_, err := u.webhooks.Retry(r.Context(), c, id, r.PathValue("delivery"))
	if errors.Is(err, webhooks.ErrDeliveryInProgress) {
		return u.renderWebhook(w, r, c, http.StatusConflict, sentence(err))
	}
	if err != nil {
		return err
	}
	redirect(w, r, endpointPath(id)+"?done=retry-queued")
	return nil
}

func endpointPath(id string) string { return Prefix + "/webhooks/" + url.PathEscape(id) }

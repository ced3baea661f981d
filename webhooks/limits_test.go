package webhooks_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/openapi"
	"github.com/shipd-dev/shipd/webhooks"
)

// TestSubscriptionLimitsMatchContract: the service's field limits are the
// ones openapi.yaml gives the API, for creates and for updates.
func TestSubscriptionLimitsMatchContract(t *testing.T) {
	t.Parallel()
	doc, err := openapi3.NewLoader().LoadFromData(openapi.YAML)
	if err != nil {
		t.Fatal(err)
	}
	type limits struct {
		URLMaxLength, DescriptionMaxLength             int
		EventsMinItems, EventsMaxItems, EventMaxLength int
	}
	of := func(name string) limits {
		ref := doc.Components.Schemas[name]
		if ref == nil {
			t.Fatalf("openapi.yaml has no schema %s", name)
		}
		props := ref.Value.Properties
		n := func(p *uint64) int {
			if p == nil {
				return 0
			}
			return int(*p)
		}
		events := props["events"].Value
		return limits{
			URLMaxLength:         n(props["url"].Value.MaxLength),
			DescriptionMaxLength: n(props["description"].Value.MaxLength),
			EventsMinItems:       int(events.MinItems), EventsMaxItems: n(events.MaxItems),
			EventMaxLength: n(events.Items.Value.MaxLength),
		}
	}
	want := limits{webhooks.MaxURLLength, webhooks.MaxDescriptionLength, webhooks.MinEvents, webhooks.MaxEvents, webhooks.MaxEventTypeLength}
	if diff := cmp.Diff(want, of("CreateWebhookRequest")); diff != "" {
		t.Errorf("CreateWebhookRequest (-service +openapi.yaml):\n%s", diff)
	}
	// An update cannot give a URL (it is immutable), so its url has no limit.
	want.URLMaxLength = 0
	if diff := cmp.Diff(want, of("UpdateWebhookRequest")); diff != "" {
		t.Errorf("UpdateWebhookRequest (-service +openapi.yaml):\n%s", diff)
	}
}

// TestSubscriptionFieldLimits: the service refuses every field past its
// limit, on create and on update, in the words of the API's validation; a
// field at its limit, counted in characters, passes.
func TestSubscriptionFieldLimits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	wh, _, c := newService(t)
	text := func(n int) *string { s := strings.Repeat("é", n); return &s } // two bytes, one character each
	many := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = webhooks.EventShipmentPurchased
		}
		return out
	}
	longURL := func(n int) string { u := "https://example.com/"; return u + strings.Repeat("a", n-len(u)) }

	existing, _, err := wh.Create(ctx, c, webhooks.NewSubscription{URL: longURL(webhooks.MaxURLLength), Events: many(webhooks.MaxEvents),
		Description: text(webhooks.MaxDescriptionLength)})
	if err != nil {
		t.Fatalf("create at every limit: %v", err)
	}

	cases := []struct {
		name string
		do   func() error
		want *webhooks.FieldError
	}{
		{"create: description of 256", func() error {
			_, _, err := wh.Create(ctx, c, webhooks.NewSubscription{URL: "https://example.com/a", Events: []string{"*"}, Description: text(256)})
			return err
		}, &webhooks.FieldError{Field: "description", Message: "maximum string length is 255"}},
		{"create: url of 2049", func() error {
			_, _, err := wh.Create(ctx, c, webhooks.NewSubscription{URL: longURL(2049), Events: []string{"*"}})
			return err
		}, &webhooks.FieldError{Field: "url", Message: "maximum string length is 2048"}},
		{"create: no events", func() error {
			_, _, err := wh.Create(ctx, c, webhooks.NewSubscription{URL: "https://example.com/b"})
			return err
		}, &webhooks.FieldError{Field: "events", Message: "minimum number of items is 1"}},
		{"create: 21 events", func() error {
			_, _, err := wh.Create(ctx, c, webhooks.NewSubscription{URL: "https://example.com/c", Events: many(21)})
			return err
		}, &webhooks.FieldError{Field: "events", Message: "must have at most 20 items (has 21)"}},
		{"create: an event type of 65", func() error {
			_, _, err := wh.Create(ctx, c, webhooks.NewSubscription{URL: "https://example.com/d", Events: []string{"*", strings.Repeat("x", 65)}})
			return err
		}, &webhooks.FieldError{Field: "events.1", Message: "maximum string length is 64"}},
		{"update: description of 256", func() error {
			_, err := wh.Update(ctx, c, existing.ID, webhooks.Patch{SetDescription: true, Description: text(256)})
			return err
		}, &webhooks.FieldError{Field: "description", Message: "maximum string length is 255"}},
		{"update: no events", func() error {
			_, err := wh.Update(ctx, c, existing.ID, webhooks.Patch{Events: []string{}})
			return err
		}, &webhooks.FieldError{Field: "events", Message: "minimum number of items is 1"}},
		{"update: 21 events", func() error {
			_, err := wh.Update(ctx, c, existing.ID, webhooks.Patch{Events: many(21)})
			return err
		}, &webhooks.FieldError{Field: "events", Message: "must have at most 20 items (has 21)"}},
		{"update: an event type of 65", func() error {
			_, err := wh.Update(ctx, c, existing.ID, webhooks.Patch{Events: []string{strings.Repeat("x", 65)}})
			return err
		}, &webhooks.FieldError{Field: "events.0", Message: "maximum string length is 64"}},
		{"update: description at the limit", func() error {
			_, err := wh.Update(ctx, c, existing.ID, webhooks.Patch{SetDescription: true, Description: text(255), Events: many(20)})
			return err
		}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got *webhooks.FieldError
			if err := tc.do(); err != nil && !errors.As(err, &got) {
				t.Fatalf("error %v, want a FieldError", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

package webhooks_test

import (
	"context"
	"errors"
	"testing"

	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/webhooks"
)

// The history's type filter is the service's, for the API and the settings
// pages alike: every type of EventTypes passes, anything else (the empty
// type, "*", a test delivery's type, a typo) is an UnknownEventTypeError.
func TestListEventsTypeFilter(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	wh, _, c := newService(t)
	page := paging.Request{Limit: 10}
	if _, _, err := wh.ListEvents(ctx, c, nil, page); err != nil {
		t.Fatalf("every type: %v", err)
	}
	for _, known := range webhooks.EventTypes() {
		if _, _, err := wh.ListEvents(ctx, c, &known, page); err != nil {
			t.Errorf("type %s: %v", known, err)
		}
	}
	for _, bogus := range []string{"", "*", "webhook.test", "shipment.purchasd", "bogus"} {
		_, _, err := wh.ListEvents(ctx, c, &bogus, page)
		var unknown *webhooks.UnknownEventTypeError
		if !errors.As(err, &unknown) || unknown.Type != bogus {
			t.Errorf("type %q: err = %v, want an UnknownEventTypeError", bogus, err)
		}
	}
}

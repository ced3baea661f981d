package webhooks

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/idempotency"
	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/seal"
	"github.com/shipd-dev/shipd/store"
)

func TestWithObject(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, eventType, data, want string
	}{
		{"a shipment", EventShipmentPurchased, `{"id":"shp_1","status":"purchased"}`, `{"object":"shipment","id":"shp_1","status":"purchased"}`},
		{"a shipment's exception", EventShipmentException, `{"id":"shp_1"}`, `{"object":"shipment","id":"shp_1"}`},
		{"a label's tracker: the shipment", EventTrackerUpdated, `{"id":"shp_1","trackerId":"trk_1"}`, `{"object":"shipment","id":"shp_1","trackerId":"trk_1"}`},
		{"a standalone tracker", EventTrackerUpdated, `{"id":"trk_1","shipmentId":null}`, `{"object":"tracker","id":"trk_1","shipmentId":null}`},
		{"a batch", EventBatchCompleted, ` { "id":"bat_1"}`, `{"object":"batch", "id":"bat_1"}`},
		{"a manifest that failed", EventManifestFailed, `{"id":"man_1"}`, `{"object":"manifest","id":"man_1"}`},
		{"an empty object", EventManifestCreated, `{}`, `{"object":"manifest"}`},
		{"data that names its kind is left as it is", EventTrackerUpdated, `{"id":"trk_1","object":"tracker"}`, `{"id":"trk_1","object":"tracker"}`},
		{"a test event has no resource", EventTest, `{"message":"hi"}`, `{"message":"hi"}`},
		{"not an object", EventShipmentPurchased, `[1]`, `[1]`},
	}
	for _, tc := range cases {
		if got := string(withObject(tc.eventType, json.RawMessage(tc.data))); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

// TestEventsRecordedBeforeObjectGetIt: an event recorded before resources
// named their kind reads, in the history and in a delivery's body, with its
// data's object member, so every event matches the contract's typed events.
func TestEventsRecordedBeforeObjectGetIt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "shipd.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	cipher, err := seal.NewCipher(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	acc := accounts.New(st, accounts.Config{})
	wh := New(st, acc, idempotency.New(st, cipher, idempotency.Config{}), cipher, Config{})
	a, err := acc.CreateAccount(ctx, "Acme", true)
	if err != nil {
		t.Fatal(err)
	}
	_, secret, err := acc.CreateToken(ctx, accounts.NewToken{AccountID: a.ID, Mode: accounts.Test, Scopes: accounts.Scopes()})
	if err != nil {
		t.Fatal(err)
	}
	c, err := acc.Authenticate(ctx, secret, "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	var recorded store.Event
	if err := st.Tx(ctx, func(tx *store.Tx) error {
		recorded, err = wh.Record(ctx, tx, a.ID, string(accounts.Test), EventTrackerUpdated, json.RawMessage(`{"id":"trk_1","shipmentId":null,"status":"in_transit"}`))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	const want = `{"object":"tracker","id":"trk_1","shipmentId":null,"status":"in_transit"}`

	events, _, err := wh.ListEvents(ctx, c, nil, paging.Request{Limit: 10})
	if err != nil || len(events) != 1 {
		t.Fatalf("history %v, %v; want one event", events, err)
	}
	if diff := cmp.Diff(want, string(events[0].Data)); diff != "" {
		t.Errorf("the history's data (-want +got):\n%s", diff)
	}

	body, err := envelopeOf(store.DeliveryToSend{
		SubscribedDelivery: store.SubscribedDelivery{Delivery: store.Delivery{ID: "dlv_1", EventID: recorded.ID, EventType: EventTrackerUpdated}},
		EventAPIVersion:    &recorded.APIVersion, EventCreatedAt: &recorded.CreatedAt, EventRecord: &recorded.Data})
	if err != nil {
		t.Fatal(err)
	}
	var env struct{ Data json.RawMessage }
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, string(env.Data)); diff != "" {
		t.Errorf("the delivered data (-want +got):\n%s", diff)
	}
}

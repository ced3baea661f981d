package server_test

// Trackers of any package in live mode: polled on the carriers' tracking
// APIs (the fakes), as labels bought through shipd are.

import (
	"net/http"
	"testing"

	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/store"
)

// A number bought elsewhere (another account's label, as the fake knows
// it) is polled to delivered, with tracker.updated and the tracker as data.
func TestLiveStandaloneTrackerIsPolled(t *testing.T) {
	t.Parallel()
	b, _, live := setupLive(t)
	shipper := b.newAccount("Shipper", true)
	_, shipperLive := b.newToken(shipper.ID, "live", allScopes...)
	sh := createLabel(t, b, shipperLive, liveBody(withField("carrier", "UPS"), withField("service", "Ground")))
	sh = waitForStatus(t, b, shipperLive, sh.ID, "purchased")

	d := postTracker(t, b, live, map[string]any{"trackingNumber": *sh.TrackingNumber, "carrier": "ups"}, http.StatusCreated)
	if d.ShipmentID != nil || d.Mode != "live" || d.Carrier != "UPS" {
		t.Fatalf("created %+v", d)
	}
	d = waitTrackerStatus(t, b, live, d.ID, "delivered")
	if len(d.Events) < 2 || d.Events[0].Status != "delivered" {
		t.Errorf("scans of the delivered tracker, newest first: %+v", d.Events)
	}
	evs := trackerEvents(listEvents(t, b, live, "tracker.updated"), d.ID)
	if len(evs) == 0 || evs[0].Data["status"] != "delivered" || evs[0].Data["shipmentId"] != nil {
		t.Errorf("tracker.updated of the standalone tracker: %+v", evs)
	}
	for _, e := range listEvents(t, b, live, "") {
		if e.Type != "tracker.updated" && e.Data["id"] == d.ID {
			t.Errorf("a standalone tracker recorded %s", e.Type)
		}
	}
}

// A number the carrier does not know: the tracker stays unknown with one
// event saying so, is asked about shipping.UnknownNumberAttempts times
// (the waits doubling from the poll interval), then ends with endReason
// unknown_number, and tracker.updated says so.
func TestLiveStandaloneTrackerUnknownNumber(t *testing.T) {
	t.Parallel()
	b, _, live := setupLive(t)
	d := postTracker(t, b, live, map[string]any{"trackingNumber": "1Z999AA10123456784"}, http.StatusCreated)
	var got map[string]any
	waitUntil(t, "the tracker to end", func() bool {
		got = b.doT(t, "GET", "/api/v1/trackers/"+d.ID, live, nil).JSON(t)
		return got["endReason"] != nil
	})
	events, _ := got["events"].([]any)
	if got["status"] != "unknown" || got["endReason"] != "unknown_number" || got["endedAt"] == nil || len(events) != 1 ||
		events[0].(map[string]any)["message"] != shipping.UnknownNumberMessage {
		t.Errorf("tracker of an unknown number: %v", got)
	}
	pending := func() int {
		var n int
		args := `json_extract(args, '$.tracker_id') = ?`
		if store.IsPostgres(b.dsn) {
			args = `args->>'tracker_id' = ?`
		}
		if err := b.sql(t).Get(&n, `SELECT count(*) FROM river_job WHERE kind = 'tracking_poll' AND state IN ('available', 'scheduled', 'running', 'retryable') AND `+args, d.ID); err != nil {
			t.Fatal(err)
		}
		return n
	}
	waitUntil(t, "the polls to end", func() bool { return pending() == 0 })
	evs := trackerEvents(listEvents(t, b, live, "tracker.updated"), d.ID)
	if len(evs) != 2 || evs[0].Data["endReason"] != "unknown_number" {
		t.Errorf("tracker.updated of the unknown number: %+v; want its event, then its end", evs)
	}
}

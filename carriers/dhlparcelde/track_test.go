package dhlparcelde

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/dhlparcelde/dhlparceldefake"
)

// A label polled until delivered: each poll shows one more event, the
// events oldest first in shipd's vocabulary, timed in German time, placed.
// The call takes the API key alone, as the Parcel DE service.
func TestTrackToDelivered(t *testing.T) {
	t.Parallel()
	c, fake := testCarrier(t)
	ctx := context.Background()
	l, err := c.Buy(ctx, buyRequest(domesticShipment(), "Paket"))
	if err != nil {
		t.Fatal(err)
	}
	var statuses []string
	var last carriers.TrackingUpdate
	for range 5 {
		up, err := c.Track(ctx, l.TrackingNumber)
		if err != nil {
			t.Fatal(err)
		}
		statuses = append(statuses, up.Status)
		last = up
	}
	want := []string{carriers.StatusPreTransit, carriers.StatusInTransit, carriers.StatusOutForDelivery, carriers.StatusDelivered, carriers.StatusDelivered}
	if diff := cmp.Diff(want, statuses); diff != "" {
		t.Errorf("statuses of the polls (-want +got):\n%s", diff)
	}
	var events []string
	for i, e := range last.Events {
		events = append(events, e.Status)
		if i > 0 && e.OccurredAt.Before(last.Events[i-1].OccurredAt) {
			t.Errorf("events are not oldest first: %v", last.Events)
		}
	}
	if diff := cmp.Diff([]string{carriers.StatusPreTransit, carriers.StatusInTransit, carriers.StatusOutForDelivery, carriers.StatusDelivered}, events); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	delivered := last.Events[len(last.Events)-1]
	// Sold at testNow; delivered 30 hours later. The fake writes German
	// local time without an offset, which the adapter reads as such.
	if !delivered.OccurredAt.Equal(testNow().Add(30*time.Hour)) || delivered.Location != "Köln, DE" || delivered.CarrierCode != "delivered" ||
		!strings.Contains(delivered.Message, "delivered") {
		t.Errorf("the delivery %+v", delivered)
	}
	h := fake.LastHeader(dhlparceldefake.OpTrack)
	if h.Get("DHL-API-Key") != dhlparceldefake.APIKey || h.Get("Authorization") != "" {
		t.Errorf("tracking headers: key %q, Authorization %q: the API key alone", h.Get("DHL-API-Key"), h.Get("Authorization"))
	}
	if q := string(fake.LastRequest(dhlparceldefake.OpTrack)); !strings.Contains(q, "service=parcel-de") {
		t.Errorf("tracking query %q lacks service=parcel-de", q)
	}
}

// A number DHL does not know (yet) is unknown, not an error.
func TestTrackUnknownNumber(t *testing.T) {
	t.Parallel()
	c, _ := testCarrier(t)
	up, err := c.Track(context.Background(), "00340434161094099999")
	if err != nil || up.Status != carriers.StatusUnknown || len(up.Events) != 0 {
		t.Fatalf("an unknown number: %+v %v", up, err)
	}
	if _, err := c.Track(context.Background(), " "); !errors.Is(err, carriers.ErrRejected) {
		t.Fatalf("no number: %v", err)
	}
}

// The tracking API's 429 is honoured as its Retry-After says.
func TestTrackRateLimited(t *testing.T) {
	t.Parallel()
	c, fake := testCarrier(t)
	fake.FailNext(dhlparceldefake.OpTrack, http.StatusTooManyRequests, `{"title":"Too Many Requests","status":429,"detail":"Rate limit exceeded"}`)
	_, err := c.Track(context.Background(), "00340434161094000001")
	if ce := carrierError(t, err); !errors.Is(err, carriers.ErrUnavailable) || ce.RetryAfter != 7*time.Second || ce.Message != "Rate limit exceeded" {
		t.Fatalf("429: %+v", ce)
	}
}

func TestTrackStatusOf(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		code, status, want string
	}{
		{"pre-transit", "The instruction data for this shipment have been provided by the sender to DHL electronically", carriers.StatusPreTransit},
		{"transit", "The shipment has been processed in the parcel center", carriers.StatusInTransit},
		{"transit", "The shipment has been loaded onto the delivery vehicle", carriers.StatusOutForDelivery},
		{"delivered", "The shipment has been successfully delivered", carriers.StatusDelivered},
		{"delivered", "The shipment has been delivered to the Packstation", carriers.StatusAvailableForPickup},
		{"transit", "The shipment is ready for pick-up at the retail outlet", carriers.StatusAvailableForPickup},
		{"transit", "The shipment will be returned to the sender", carriers.StatusReturnToSender},
		{"failure", "The shipment could not be delivered", carriers.StatusFailure},
		{"unknown", "", carriers.StatusUnknown},
		{"", "Something new", carriers.StatusUnknown},
	} {
		if got := statusOf(trackEvent{StatusCode: tc.code, Status: tc.status}); got != tc.want {
			t.Errorf("%s %q: %s, want %s", tc.code, tc.status, got, tc.want)
		}
	}
}

func TestTrackAnswers(t *testing.T) {
	t.Parallel()
	up, err := parseTrackAnswer(200, []byte(`{"shipments":[{"id":"00340434161094000001","status":{"statusCode":"transit","status":"In transit"},
		"estimatedTimeOfDelivery":"2026-07-03T00:00:00Z","events":[
		{"timestamp":"2026-07-02T08:00:00","statusCode":"transit","status":"In transit"},
		{"timestamp":"2026-07-01T18:00:00+02:00","statusCode":"pre-transit","status":"Data received"}]}]}`), "00340434161094000001")
	if err != nil {
		t.Fatal(err)
	}
	summer := time.FixedZone("CEST", 2*3600)
	want := []time.Time{time.Date(2026, 7, 1, 18, 0, 0, 0, summer), time.Date(2026, 7, 2, 8, 0, 0, 0, summer)}
	if len(up.Events) != 2 || !up.Events[0].OccurredAt.Equal(want[0]) || !up.Events[1].OccurredAt.Equal(want[1]) ||
		up.Status != carriers.StatusInTransit || up.EstimatedDeliveryAt == nil {
		t.Fatalf("update %+v", up)
	}
	for _, body := range []string{
		`{"shipments":[{"events":[{"timestamp":"yesterday","statusCode":"transit"}]}]}`,
		`{"shipments":[{"events":[{"timestamp":"0001-01-01T00:00:00Z","statusCode":"transit"}]}]}`,
		`{"shipments":{}}`,
		`not json`,
	} {
		if _, err := parseTrackAnswer(200, []byte(body), "1"); !errors.Is(err, carriers.ErrFailed) {
			t.Errorf("%s: %v, want ErrFailed", body, err)
		}
	}
	if up, err := parseTrackAnswer(200, []byte(`{"shipments":[]}`), "1"); err != nil || up.Status != carriers.StatusUnknown {
		t.Errorf("no shipment: %+v %v", up, err)
	}
}

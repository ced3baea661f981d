package usps

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/usps/uspsfake"
)

// TestTrackProgresses buys a label and polls it: each call the fake moves it
// one scan further, and each answer lists every scan so far, oldest first.
func TestTrackProgresses(t *testing.T) {
	t.Parallel()
	fake := newFake(t)
	c := newCarrier(t, fake)
	ctx := context.Background()
	label, err := c.Buy(ctx, buyRequest("shp_track", "GroundAdvantage", domesticShipment()))
	if err != nil {
		t.Fatal(err)
	}
	// The fake clock stands still, so each scan is an hour after the last.
	at := func(h int) time.Time { return testNow.Add(time.Duration(h) * time.Hour) }
	all := []carriers.TrackingEvent{
		{Status: carriers.StatusPreTransit, Message: "Shipping Label Created, USPS Awaiting Item", Location: "ST. LOUIS, MO", OccurredAt: at(0), CarrierCode: "GX"},
		{Status: carriers.StatusInTransit, Message: "USPS in possession of item", Location: "ST. LOUIS, MO", OccurredAt: at(1), CarrierCode: "03"},
		{Status: carriers.StatusOutForDelivery, Message: "Out for Delivery", Location: "ST. LOUIS, MO", OccurredAt: at(2), CarrierCode: "OF"},
		{Status: carriers.StatusDelivered, Message: "Delivered, In/At Mailbox", Location: "ST. LOUIS, MO", OccurredAt: at(3), CarrierCode: "01"},
	}
	eta := time.Date(2026, 11, 5, 0, 0, 0, 0, time.UTC)
	for i, wantStatus := range []string{carriers.StatusPreTransit, carriers.StatusInTransit, carriers.StatusOutForDelivery, carriers.StatusDelivered, carriers.StatusDelivered} {
		u, err := c.Track(ctx, label.TrackingNumber)
		if err != nil {
			t.Fatal(err)
		}
		n := min(i+1, len(all))
		want := carriers.TrackingUpdate{Status: wantStatus, Events: all[:n]}
		if wantStatus != carriers.StatusDelivered {
			want.EstimatedDeliveryAt = &eta
		}
		if diff := cmp.Diff(want, u); diff != "" {
			t.Errorf("call %d (-want +got):\n%s", i+1, diff)
		}
	}
}

func TestTrackInternationalLocation(t *testing.T) {
	t.Parallel()
	fake := newFake(t)
	c := newCarrier(t, fake)
	ctx := context.Background()
	label, err := c.Buy(ctx, buyRequest("shp_track_intl", "PriorityMailInternational", internationalShipment()))
	if err != nil {
		t.Fatal(err)
	}
	var u carriers.TrackingUpdate
	for range 3 {
		if u, err = c.Track(ctx, label.TrackingNumber); err != nil {
			t.Fatal(err)
		}
	}
	if got := u.Events[len(u.Events)-1].Location; got != "TORONTO, ON, CANADA" {
		t.Errorf("location abroad = %q, want TORONTO, ON, CANADA", got)
	}
}

// TestTrackNotFoundYet: USPS does not know a label for a while after it is
// bought; that is no error.
func TestTrackNotFoundYet(t *testing.T) {
	t.Parallel()
	fake := newFake(t)
	c := newCarrier(t, fake)
	u, err := c.Track(context.Background(), "9205590234567811111111")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(carriers.TrackingUpdate{Status: carriers.StatusUnknown}, u); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// The same in a 207 multi-status answer.
	multi := `[{"statusCode":"404","trackingNumber":"9205590234567811111111","error":{"code":"404","message":"Not Found"}},
	  {"statusCode":"200","trackingNumber":"9400100000000000000000","trackingEvents":[]}]`
	u, err = parseTracking([]byte(multi), "9205590234567811111111")
	if err != nil || u.Status != carriers.StatusUnknown || len(u.Events) != 0 {
		t.Errorf("207: %+v, %v", u, err)
	}
	// Other refusals are errors.
	fake.FailNext(uspsfake.OpTrack, http.StatusBadRequest, uspsfake.ErrorBody("/tracking/v3r2", 400, "Bad Request", "400100", "Invalid tracking number", "trackingNumber"))
	if _, err := c.Track(context.Background(), "XX"); !errors.Is(err, carriers.ErrRejected) {
		t.Errorf("400: err = %v, want ErrRejected", err)
	}
}

// wantEventStatuses is the mapping the adapter must apply, written out
// independently of trackstatus.go so that an edit to the table shows up here.
var wantEventStatuses = map[string]string{
	"GX": carriers.StatusPreTransit, "MA": carriers.StatusPreTransit,
	"03": carriers.StatusInTransit, "OA": carriers.StatusInTransit, "PA": carriers.StatusInTransit, "TM": carriers.StatusInTransit,
	"10": carriers.StatusInTransit, "PC": carriers.StatusInTransit, "SF": carriers.StatusInTransit, "EF": carriers.StatusInTransit,
	"07": carriers.StatusInTransit, "06": carriers.StatusInTransit, "08": carriers.StatusInTransit, "15": carriers.StatusInTransit,
	"19": carriers.StatusInTransit, "41": carriers.StatusInTransit, "42": carriers.StatusInTransit, "71": carriers.StatusInTransit,
	"80": carriers.StatusInTransit, "81": carriers.StatusInTransit, "82": carriers.StatusInTransit,
	"OF": carriers.StatusOutForDelivery,
	"01": carriers.StatusDelivered, "17": carriers.StatusDelivered, "43": carriers.StatusDelivered,
	"02": carriers.StatusAvailableForPickup, "52": carriers.StatusAvailableForPickup, "14": carriers.StatusAvailableForPickup, "16": carriers.StatusAvailableForPickup,
	"30": carriers.StatusFailure, "51": carriers.StatusFailure, "53": carriers.StatusFailure, "54": carriers.StatusFailure,
	"55": carriers.StatusFailure, "56": carriers.StatusFailure, "11": carriers.StatusFailure,
	"04": carriers.StatusReturnToSender, "05": carriers.StatusReturnToSender, "09": carriers.StatusReturnToSender,
	"21": carriers.StatusReturnToSender, "22": carriers.StatusReturnToSender, "23": carriers.StatusReturnToSender,
	"24": carriers.StatusReturnToSender, "25": carriers.StatusReturnToSender, "26": carriers.StatusReturnToSender,
	"27": carriers.StatusReturnToSender, "28": carriers.StatusReturnToSender, "29": carriers.StatusReturnToSender,
	"31": carriers.StatusReturnToSender, "44": carriers.StatusReturnToSender,
}

func TestTrackStatusMapping(t *testing.T) {
	t.Parallel()
	if diff := cmp.Diff(wantEventStatuses, eventStatuses); diff != "" {
		t.Errorf("event status table (-want +got):\n%s", diff)
	}
	codes := make([]string, 0, len(wantEventStatuses)+1)
	for code := range wantEventStatuses {
		codes = append(codes, code)
	}
	codes = append(codes, "ZZ", "") // unknown codes
	for _, code := range codes {
		body := fmt.Sprintf(`[{"trackingNumber":"9400","statusCategory":"","trackingEvents":[{"eventType":"scan","eventCode":%q,"eventTimestamp":"2026-11-02T09:30:00-06:00"}]}]`, code)
		u, err := parseTracking([]byte(body), "9400")
		if err != nil {
			t.Fatalf("code %q: %v", code, err)
		}
		want, ok := wantEventStatuses[code]
		if !ok {
			want = carriers.StatusUnknown
		}
		if u.Status != want || u.Events[0].Status != want || u.Events[0].CarrierCode != code {
			t.Errorf("code %q: status %q, event %+v; want %q", code, u.Status, u.Events[0], want)
		}
	}
}

func TestTrackCategoryFallback(t *testing.T) {
	t.Parallel()
	// The newest scan's code is unknown; the status category decides.
	body := `[{"trackingNumber":"9400","statusCategory":"In Transit","trackingEvents":[
	  {"eventType":"Arrived at USPS Regional Facility","eventCode":"U1","eventTimestamp":"2026-11-02T09:30:00-06:00"},
	  {"eventType":"Shipping Label Created","eventCode":"GX","eventTimestamp":"2026-11-01T09:30:00-06:00"}]}]`
	u, err := parseTracking([]byte(body), "9400")
	if err != nil {
		t.Fatal(err)
	}
	if u.Status != carriers.StatusInTransit || u.Events[1].Status != carriers.StatusUnknown || u.Events[0].CarrierCode != "GX" {
		t.Errorf("%+v", u)
	}
	for category, want := range map[string]string{"Pre-Shipment": carriers.StatusPreTransit, "Out for Delivery": carriers.StatusOutForDelivery,
		"Delivered": carriers.StatusDelivered, "Alert": carriers.StatusFailure, "Something new": carriers.StatusUnknown} {
		if got := categoryStatus(category); got != want {
			t.Errorf("categoryStatus(%q) = %q, want %q", category, got, want)
		}
	}
}

func TestEventTime(t *testing.T) {
	t.Parallel()
	utc := time.Date(2024, 4, 4, 21, 3, 12, 0, time.UTC)
	for _, tc := range []struct {
		name string
		ev   trackingEvent
		want time.Time
	}{
		{"GMT timestamp wins", trackingEvent{GMTTimestamp: "2024-04-04T21:03:12.000Z", EventTimestamp: "garbage"}, utc},
		{"local with offset", trackingEvent{EventTimestamp: "2024-04-04T14:03:12-07:00"}, utc},
		{"local with GMTOffset beside", trackingEvent{EventTimestamp: "2024-04-04T14:03:12", GMTOffset: "-7:00"}, utc},
		{"local without seconds", trackingEvent{EventTimestamp: "2024-04-04T14:03", GMTOffset: "-07:00"}, utc.Add(-12 * time.Second)},
		{"README example, Z", trackingEvent{EventTimestamp: "2023-08-02T07:31:00Z"}, time.Date(2023, 8, 2, 7, 31, 0, 0, time.UTC)},
		{"date only", trackingEvent{EventTimestamp: "2024-04-04"}, time.Date(2024, 4, 4, 0, 0, 0, 0, time.UTC)},
	} {
		got, err := eventTime(tc.ev)
		if err != nil || !got.Equal(tc.want) {
			t.Errorf("%s: %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
	body := `[{"trackingNumber":"9400","trackingEvents":[{"eventType":"x","eventCode":"01","eventTimestamp":"yesterday"}]}]`
	if _, err := parseTracking([]byte(body), "9400"); !errors.Is(err, carriers.ErrFailed) {
		t.Errorf("unreadable time: err = %v, want ErrFailed", err)
	}
}

func TestParseTrackingDocumentedExample(t *testing.T) {
	t.Parallel()
	// USPS's README shows the older single-object answer.
	u, err := parseTracking(readExample(t, "tracking_v3_detail.json"), "XXXXXXXXXXXXXXXXXXXX")
	if err != nil {
		t.Fatal(err)
	}
	want := carriers.TrackingUpdate{Status: carriers.StatusInTransit, Events: []carriers.TrackingEvent{{
		Status: carriers.StatusInTransit, Message: "USPS in possession of item", Location: "RICHMOND, VA",
		OccurredAt: time.Date(2023, 8, 2, 7, 31, 0, 0, time.UTC), CarrierCode: "03",
	}}}
	if diff := cmp.Diff(want, u); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestLocation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ city, state, country, want string }{
		{"RICHMOND", "VA", "", "RICHMOND, VA"},
		{"RICHMOND", "VA", "UNITED STATES", "RICHMOND, VA"},
		{"TORONTO", "ON", "CANADA", "TORONTO, ON, CANADA"},
		{"", "", "FRANCE", "FRANCE"},
		{"", "", "", ""},
	} {
		if got := location(tc.city, tc.state, tc.country); got != tc.want {
			t.Errorf("location(%q, %q, %q) = %q, want %q", tc.city, tc.state, tc.country, got, tc.want)
		}
	}
}

package fedex

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/fedex/fedexfake"
)

// TestTrackingStatusTable checks every mapped FedEx code against the
// FedEx API reference's meaning, written out again here so that a slip in
// either table shows.
func TestTrackingStatusTable(t *testing.T) {
	t.Parallel()
	want := map[string]string{
		"OC": "pre_transit", "EP": "pre_transit", "AP": "pre_transit", "DS": "pre_transit", "DR": "pre_transit",
		"PD": "pre_transit", "RP": "pre_transit", "RG": "pre_transit",
		"PU": "in_transit", "PX": "in_transit", "AA": "in_transit", "AC": "in_transit", "AF": "in_transit",
		"AO": "in_transit", "AR": "in_transit", "AX": "in_transit", "CH": "in_transit", "DD": "in_transit",
		"DP": "in_transit", "DY": "in_transit", "EA": "in_transit", "EO": "in_transit", "FD": "in_transit",
		"IT": "in_transit", "IX": "in_transit", "LO": "in_transit", "OF": "in_transit", "OW": "in_transit",
		"OX": "in_transit", "PF": "in_transit", "PL": "in_transit", "PM": "in_transit", "SF": "in_transit",
		"SP": "in_transit", "TR": "in_transit", "CC": "in_transit", "CD": "in_transit", "CP": "in_transit",
		"RR": "in_transit", "RM": "in_transit", "RC": "in_transit",
		"OD": "out_for_delivery", "ED": "out_for_delivery", "AD": "out_for_delivery",
		"DL": "delivered",
		"HL": "available_for_pickup", "HP": "available_for_pickup",
		"RS": "return_to_sender",
		"DE": "failure", "SE": "failure",
		"CA": "cancelled", "LP": "cancelled", "RD": "cancelled",
	}
	got := map[string]string{}
	for code := range trackingStatuses {
		got[code] = trackerStatus(code, "")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tracking status table (-want +got):\n%s", diff)
	}
	valid := map[string]bool{}
	for _, s := range carriers.Statuses() {
		valid[s] = true
	}
	for code, s := range trackingStatuses {
		if !valid[s] {
			t.Errorf("%s maps to %q, not a tracker status", code, s)
		}
	}
	for _, tt := range []struct{ code, derived, want string }{
		{"ZZ", "", carriers.StatusUnknown},
		{"", "", carriers.StatusUnknown},
		{"ZZ", "DL", carriers.StatusDelivered}, // the derived code helps when the code is new
		{"OD", "DL", carriers.StatusOutForDelivery},
	} {
		if got := trackerStatus(tt.code, tt.derived); got != tt.want {
			t.Errorf("trackerStatus(%q, %q) = %q, want %q", tt.code, tt.derived, got, tt.want)
		}
	}
}

func TestTrackProgresses(t *testing.T) {
	t.Parallel()
	c, _ := newTestCarrier(t)
	label := buyDomestic(t, c, "shp_track")
	ctx := context.Background()

	wantStatus := []string{carriers.StatusPreTransit, carriers.StatusInTransit, carriers.StatusOutForDelivery, carriers.StatusDelivered}
	wantCodes := [][]string{{"OC"}, {"OC", "PU", "AR", "IT"}, {"OC", "PU", "AR", "IT", "OD"}, {"OC", "PU", "AR", "IT", "OD", "DL"}}
	for i := range wantStatus {
		up, err := c.Track(ctx, label.TrackingNumber)
		if err != nil {
			t.Fatalf("Track #%d: %v", i+1, err)
		}
		if up.Status != wantStatus[i] {
			t.Errorf("Track #%d: status %q, want %q", i+1, up.Status, wantStatus[i])
		}
		var codes []string
		for j, ev := range up.Events {
			codes = append(codes, ev.CarrierCode)
			if j > 0 && ev.OccurredAt.Before(up.Events[j-1].OccurredAt) {
				t.Errorf("Track #%d: event %d (%s) is older than event %d: events must be oldest first", i+1, j, ev.CarrierCode, j-1)
			}
			if ev.OccurredAt.IsZero() {
				t.Errorf("Track #%d: event %s has no time", i+1, ev.CarrierCode)
			}
			if ev.Status != trackerStatus(ev.CarrierCode, "") {
				t.Errorf("Track #%d: event %s has status %q", i+1, ev.CarrierCode, ev.Status)
			}
		}
		if diff := cmp.Diff(wantCodes[i], codes); diff != "" {
			t.Errorf("Track #%d: event codes (-want +got):\n%s", i+1, diff)
		}
		delivered := up.Status == carriers.StatusDelivered
		if (up.EstimatedDeliveryAt == nil) != delivered {
			t.Errorf("Track #%d: EstimatedDeliveryAt = %v; want one until delivered", i+1, up.EstimatedDeliveryAt)
		}
	}

	up, err := c.Track(ctx, label.TrackingNumber)
	if err != nil {
		t.Fatal(err)
	}
	first, last := up.Events[0], up.Events[len(up.Events)-1]
	if first.Location != "San Francisco, CA" || last.Location != "New York, NY" || last.Message != "Delivered" {
		t.Errorf("first event at %q, last %q %q; want San Francisco, CA and Delivered at New York, NY",
			first.Location, last.Message, last.Location)
	}
	// The fake writes times at -06:00; the instant must survive the zone.
	if _, offset := last.OccurredAt.Zone(); offset != -6*3600 {
		t.Errorf("event time zone offset %d, want the answer's -06:00", offset)
	}
}

func TestTrackInternationalLocation(t *testing.T) {
	t.Parallel()
	c, _ := newTestCarrier(t)
	label, err := c.Buy(context.Background(), buyRequest("shp_intl_track", international(), "InternationalEconomy"))
	if err != nil {
		t.Fatal(err)
	}
	var up carriers.TrackingUpdate
	for range 3 {
		if up, err = c.Track(context.Background(), label.TrackingNumber); err != nil {
			t.Fatal(err)
		}
	}
	if got := up.Events[len(up.Events)-1].Location; got != "London, GB" {
		t.Errorf("out-for-delivery location %q, want London, GB (country shown outside the US)", got)
	}
}

func TestTrackNotFoundYet(t *testing.T) {
	t.Parallel()
	c, fake := newTestCarrier(t)
	up, err := c.Track(context.Background(), "794699999999")
	if err != nil {
		t.Fatalf("Track: %v", err)
	}
	if diff := cmp.Diff(carriers.TrackingUpdate{Status: carriers.StatusUnknown}, up); diff != "" {
		t.Errorf("update for an unknown number (-want +got):\n%s", diff)
	}
	// The same code as a whole-answer error (some FedEx gateways answer
	// 404 with it) means the same.
	fake.FailNext(fedexfake.OpTrack, 404, fedexfake.ErrorBody(fedexfake.CodeTrackingNotFound, "Tracking number cannot be found."))
	up, err = c.Track(context.Background(), "794699999999")
	if err != nil || up.Status != carriers.StatusUnknown {
		t.Errorf("Track after a 404 not-found = %+v, %v; want unknown, no error", up, err)
	}
}

func TestTrackOtherErrors(t *testing.T) {
	t.Parallel()
	c, fake := newTestCarrier(t)
	fake.FailNext(fedexfake.OpTrack, 200, `{"output":{"completeTrackResults":[{"trackingNumber":"1","trackResults":[{"error":{"code":"TRACKING.TRACKINGNUMBER.INVALID","message":"Invalid tracking number."}}]}]}}`)
	_, err := c.Track(context.Background(), "1")
	if !errors.Is(err, carriers.ErrRejected) {
		t.Fatalf("error = %v, want ErrRejected", err)
	}
	if ce := asCarrierError(t, err); ce.Code != "TRACKING.TRACKINGNUMBER.INVALID" {
		t.Errorf("code = %q", ce.Code)
	}
	fake.FailNext(fedexfake.OpTrack, 503, fedexfake.ErrorBody("SERVICE.UNAVAILABLE.ERROR", "The service is currently unavailable."))
	if _, err := c.Track(context.Background(), "1"); !errors.Is(err, carriers.ErrUnavailable) {
		t.Errorf("503: error = %v, want ErrUnavailable", err)
	}
}

func TestGoldenTrackRequest(t *testing.T) {
	t.Parallel()
	c, fake := newTestCarrier(t)
	if _, err := c.Track(context.Background(), " 794600000001 "); err != nil {
		t.Fatalf("Track: %v", err)
	}
	checkGolden(t, "track.json", fake.LastRequestBody(fedexfake.OpTrack))
}

func TestParseTrackResponse(t *testing.T) {
	t.Parallel()
	// Shaped like the Track API's documented answer: scans newest first,
	// times with and without an offset, an exception, a window-only ETA.
	body := `{"transactionId":"624deea6","output":{"completeTrackResults":[{"trackingNumber":"123456789012","trackResults":[{
		"trackingNumberInfo":{"trackingNumber":"123456789012","carrierCode":"FDXE"},
		"latestStatusDetail":{"code":"DE","derivedCode":"DE","statusByLocale":"Delivery exception","description":"Delivery exception"},
		"scanEvents":[
			{"date":"2018-02-03T10:15:00-07:00","eventType":"DE","eventDescription":"Delivery exception","exceptionDescription":"Customer not available or business closed","scanLocation":{"city":"SEATTLE","stateOrProvinceCode":"WA","countryCode":"US"}},
			{"date":"2018-02-02T12:01:00","eventType":"PU","eventDescription":"Picked up","scanLocation":{"city":"TORONTO","stateOrProvinceCode":"ON","countryCode":"CA"}},
			{"date":"2018-02-02","eventType":"ZZ","eventDescription":"Something new","scanLocation":null}
		],
		"estimatedDeliveryTimeWindow":{"window":{"begins":"2018-02-04T08:00:00","ends":"2018-02-04T20:00:00-07:00"}}
	}]}]}}`
	got, err := parseTrackResponse([]byte(body), "123456789012")
	if err != nil {
		t.Fatal(err)
	}
	mst := time.FixedZone("", -7*3600)
	eta := time.Date(2018, 2, 4, 20, 0, 0, 0, mst)
	want := carriers.TrackingUpdate{
		Status:              carriers.StatusFailure,
		EstimatedDeliveryAt: &eta,
		Events: []carriers.TrackingEvent{
			{Status: carriers.StatusUnknown, Message: "Something new", OccurredAt: time.Date(2018, 2, 2, 0, 0, 0, 0, time.UTC), CarrierCode: "ZZ"},
			{Status: carriers.StatusInTransit, Message: "Picked up", Location: "TORONTO, ON, CA", OccurredAt: time.Date(2018, 2, 2, 12, 1, 0, 0, time.UTC), CarrierCode: "PU"},
			{Status: carriers.StatusFailure, Message: "Delivery exception: Customer not available or business closed", Location: "SEATTLE, WA",
				OccurredAt: time.Date(2018, 2, 3, 10, 15, 0, 0, mst), CarrierCode: "DE"},
		},
	}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })); diff != "" {
		t.Errorf("update (-want +got):\n%s", diff)
	}
}

func TestParseTrackResponseBroken(t *testing.T) {
	t.Parallel()
	for name, body := range map[string]string{
		"not JSON":        `{"output":`,
		"no output":       `{"transactionId":"1"}`,
		"no results":      `{"output":{"completeTrackResults":[]}}`,
		"no track result": `{"output":{"completeTrackResults":[{"trackingNumber":"1","trackResults":[]}]}}`,
		"bad event date":  `{"output":{"completeTrackResults":[{"trackingNumber":"1","trackResults":[{"scanEvents":[{"date":"yesterday","eventType":"PU"}]}]}]}}`,
		"year 1 event":    `{"output":{"completeTrackResults":[{"trackingNumber":"1","trackResults":[{"scanEvents":[{"date":"0001-01-01T00:00:00Z","eventType":"PU"}]}]}]}}`,
		"wrong types":     `{"output":{"completeTrackResults":[{"trackingNumber":"1","trackResults":[{"scanEvents":{"date":1}}]}]}}`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if _, err := parseTrackResponse([]byte(body), "1"); !errors.Is(err, carriers.ErrFailed) {
				t.Errorf("error = %v, want ErrFailed", err)
			}
		})
	}
}

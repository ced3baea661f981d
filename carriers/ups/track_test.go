package ups

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/ups/upsfake"
)

func TestTrackProgresses(t *testing.T) {
	t.Parallel()
	c, _, _ := testCarrier(t)
	label, err := c.Buy(context.Background(), buyRequest(domesticShipment(), "Ground"))
	if err != nil {
		t.Fatal(err)
	}
	var statuses []string
	var counts []int
	var last carriers.TrackingUpdate
	for range 4 {
		u, err := c.Track(context.Background(), label.TrackingNumber)
		if err != nil {
			t.Fatal(err)
		}
		statuses = append(statuses, u.Status)
		counts = append(counts, len(u.Events))
		last = u
		if u.Status != carriers.StatusDelivered {
			// Scheduled delivery date at the commit time, no zone given.
			want := time.Date(2026, 3, 12, 20, 0, 0, 0, time.UTC)
			if u.EstimatedDeliveryAt == nil || !u.EstimatedDeliveryAt.Equal(want) {
				t.Errorf("%s: EstimatedDeliveryAt = %v, want %v", u.Status, u.EstimatedDeliveryAt, want)
			}
		}
	}
	if diff := cmp.Diff([]string{"pre_transit", "in_transit", "out_for_delivery", "delivered"}, statuses); diff != "" {
		t.Errorf("statuses over successive calls (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{1, 3, 5, 6}, counts); diff != "" {
		t.Errorf("event counts (-want +got):\n%s", diff)
	}
	est := time.FixedZone("-05:00", -5*3600)
	t0 := testNow()
	want := []carriers.TrackingEvent{
		{Status: "pre_transit", Message: "Shipper created a label, UPS has not received the package yet.", OccurredAt: t0.In(est), CarrierCode: "003"},
		{Status: "in_transit", Message: "Origin Scan", Location: "TIMONIUM, MD", OccurredAt: t0.Add(6 * time.Hour), CarrierCode: "005"},
		{Status: "in_transit", Message: "Departed from Facility", Location: "TIMONIUM, MD", OccurredAt: t0.Add(9 * time.Hour), CarrierCode: "005"},
		{Status: "in_transit", Message: "Arrived at Facility", Location: "SAN JOSE, CA", OccurredAt: t0.Add(30 * time.Hour), CarrierCode: "005"},
		{Status: "out_for_delivery", Message: "Out For Delivery Today", Location: "SAN JOSE, CA", OccurredAt: t0.Add(33 * time.Hour), CarrierCode: "021"},
		{Status: "delivered", Message: "DELIVERED", Location: "SAN JOSE, CA", OccurredAt: t0.Add(38 * time.Hour), CarrierCode: "011"},
	}
	// time.Time compares with Equal: the instant, whatever the zone.
	if diff := cmp.Diff(want, last.Events); diff != "" {
		t.Errorf("events, oldest first (-want +got):\n%s", diff)
	}
	if _, off := last.Events[0].OccurredAt.Zone(); off != -5*3600 {
		t.Errorf("OccurredAt is in offset %d s, want the scan's -05:00", off)
	}
	if last.EstimatedDeliveryAt != nil {
		t.Errorf("delivered package has EstimatedDeliveryAt %v, want none", last.EstimatedDeliveryAt)
	}
}

func TestTrackNotFoundYet(t *testing.T) {
	t.Parallel()
	c, fake, _ := testCarrier(t)
	want := carriers.TrackingUpdate{Status: carriers.StatusUnknown, Events: []carriers.TrackingEvent{}}
	// 200 with the TW0001 warning, as UPS answers an unknown number.
	u, err := c.Track(context.Background(), "1ZA1B2C30300000019")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, u); diff != "" {
		t.Errorf("warning answer (-want +got):\n%s", diff)
	}
	// The documented 404.
	fake.FailNext(upsfake.OpTrack, 404, upsfake.ErrorBody("TW0001", "Tracking Information Not Found"))
	if u, err = c.Track(context.Background(), "1ZA1B2C30300000019"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, u); diff != "" {
		t.Errorf("404 answer (-want +got):\n%s", diff)
	}
	// A 404 that is not UPS's (an HTML page: a wrong base URL) is an error.
	fake.Fail(upsfake.OpTrack, upsfake.Failure{Status: 404, ContentType: "text/html", Body: "<html>Not Found</html>"})
	if _, err := c.Track(context.Background(), "1ZA1B2C30300000019"); !errors.Is(err, carriers.ErrRejected) {
		t.Errorf("HTML 404: got %v, want an error", err)
	}
	// Other failures stay failures.
	fake.FailNext(upsfake.OpTrack, 500, upsfake.ErrorBody("9150002", "Internal error"))
	if _, err := c.Track(context.Background(), "1ZA1B2C30300000019"); !errors.Is(err, carriers.ErrFailed) {
		t.Errorf("500: got %v, want ErrFailed", err)
	}
	fake.FailNext(upsfake.OpTrack, 400, upsfake.ErrorBody("TV1002", "Invalid inquiry number"))
	if _, err := c.Track(context.Background(), "1ZA1B2C30300000019"); !errors.Is(err, carriers.ErrRejected) {
		t.Errorf("400: got %v, want ErrRejected", err)
	}
}

func TestTrackingStatusTable(t *testing.T) {
	t.Parallel()
	// Written out again on purpose: changing a mapping must change this.
	wantCodes := map[string]string{
		"000": "unknown", "003": "pre_transit", "005": "in_transit", "006": "out_for_delivery", "007": "cancelled",
		"010": "in_transit", "011": "delivered", "012": "in_transit", "013": "failure", "014": "in_transit",
		"016": "failure", "017": "available_for_pickup", "018": "in_transit", "019": "in_transit", "020": "in_transit",
		"021": "out_for_delivery", "022": "failure", "023": "failure", "024": "failure", "025": "in_transit",
		"026": "delivered", "027": "in_transit", "028": "in_transit", "029": "failure", "030": "failure",
		"032": "in_transit", "033": "return_to_sender", "034": "return_to_sender", "035": "return_to_sender",
		"036": "return_to_sender", "037": "return_to_sender", "039": "in_transit", "040": "available_for_pickup",
		"041": "in_transit", "042": "in_transit", "044": "pre_transit", "045": "pre_transit", "046": "in_transit",
		"047": "in_transit", "048": "in_transit", "049": "failure", "050": "failure", "051": "in_transit",
		"052": "in_transit", "053": "in_transit", "054": "in_transit", "055": "in_transit", "056": "in_transit",
		"057": "in_transit", "058": "failure", "059": "failure", "060": "failure", "061": "failure", "062": "failure",
		"064": "failure", "065": "pre_transit", "066": "failure", "067": "return_to_sender", "068": "failure",
		"069": "failure", "071": "in_transit", "072": "in_transit",
	}
	wantTypes := map[string]string{
		"M": "pre_transit", "MV": "cancelled", "P": "in_transit", "I": "in_transit", "O": "out_for_delivery",
		"D": "delivered", "X": "failure", "RS": "return_to_sender", "DO": "in_transit", "DD": "in_transit",
		"W": "in_transit", "NA": "unknown",
	}
	if diff := cmp.Diff(wantCodes, statusCodeTable()); diff != "" {
		t.Errorf("status codes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantTypes, statusTypeTable()); diff != "" {
		t.Errorf("status types (-want +got):\n%s", diff)
	}
	vocabulary := map[string]bool{}
	for _, s := range carriers.Statuses() {
		vocabulary[s] = true
	}
	for code, want := range wantCodes {
		if !vocabulary[want] {
			t.Errorf("%s maps to %q, not in the tracker vocabulary", code, want)
		}
		if got, cc := trackingStatus(upsStatus{StatusCode: code}); got != want || cc != code {
			t.Errorf("statusCode %s: %q (%s), want %q", code, got, cc, want)
		}
	}
	for typ, want := range wantTypes {
		if got, _ := trackingStatus(upsStatus{Type: typ}); got != want {
			t.Errorf("type %s: %q, want %q", typ, got, want)
		}
	}
}

func TestTrackingStatusPrecedence(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		in       upsStatus
		want     string
		wantCode string
	}{
		{"out for delivery is type I", upsStatus{Type: "I", Code: "OT", StatusCode: "021"}, "out_for_delivery", "021"},
		{"currentStatus carries the number in code", upsStatus{Code: "011", Description: "Delivered"}, "delivered", "011"},
		{"picked up by UPS", upsStatus{Type: "P", StatusCode: "038"}, "in_transit", "038"},
		{"picked up by the customer", upsStatus{Type: "D", StatusCode: "038"}, "delivered", "038"},
		{"unknown number, known type", upsStatus{Type: "X", StatusCode: "999"}, "failure", "999"},
		{"lower-case type", upsStatus{Type: "rs"}, "return_to_sender", "RS"},
		{"nothing known", upsStatus{Type: "ZZ", Code: "QQ", StatusCode: "998"}, "unknown", "998"},
		{"empty", upsStatus{}, "unknown", ""},
	} {
		got, code := trackingStatus(tc.in)
		if got != tc.want || code != tc.wantCode {
			t.Errorf("%s: %q (%q), want %q (%q)", tc.name, got, code, tc.want, tc.wantCode)
		}
	}
}

func TestParseTrackResponseTimes(t *testing.T) {
	t.Parallel()
	// Real answers: local date and time with gmtOffset; an activity with
	// only GMT times; one with neither; a non-US location; activities out
	// of order.
	body := `{"trackResponse":{"shipment":[{"package":[{"trackingNumber":"1Z1",
	  "currentStatus":{"description":"On the Way","code":"005"},
	  "deliveryDate":[{"type":"SDD","date":"20240205"},{"type":"RDD","date":"20240206"}],
	  "activity":[
	    {"location":{"address":{"city":"Koeln","countryCode":"DE"}},"status":{"type":"I","description":"Arrived","code":"AR","statusCode":"005"},
	     "date":"20240203","time":"0730","gmtDate":"20240203","gmtTime":"06:30:00"},
	    {"status":{"type":"I","description":"Departed","statusCode":"005"},"date":"20240202","time":"235959","gmtOffset":"+01:00"},
	    {"status":{"type":"M","description":"Label created","statusCode":"003"},"date":"20240201","time":"74700"}]}]}]}}`
	u, found, err := parseTrackResponse([]byte(body), "1Z1")
	if err != nil || !found {
		t.Fatalf("found %v, err %v", found, err)
	}
	got := []time.Time{u.Events[0].OccurredAt, u.Events[1].OccurredAt, u.Events[2].OccurredAt}
	want := []time.Time{
		time.Date(2024, 2, 1, 7, 47, 0, 0, time.UTC),
		time.Date(2024, 2, 2, 22, 59, 59, 0, time.UTC),
		time.Date(2024, 2, 3, 6, 30, 0, 0, time.UTC),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("times (-want +got):\n%s", diff)
	}
	if u.Events[2].Location != "Koeln, DE" {
		t.Errorf("location %q, want \"Koeln, DE\"", u.Events[2].Location)
	}
	if want := time.Date(2024, 2, 6, 0, 0, 0, 0, time.UTC); u.EstimatedDeliveryAt == nil || !u.EstimatedDeliveryAt.Equal(want) {
		t.Errorf("EstimatedDeliveryAt %v, want the rescheduled date %v", u.EstimatedDeliveryAt, want)
	}
	if u.Status != carriers.StatusInTransit {
		t.Errorf("status %q, want in_transit", u.Status)
	}

	for name, bad := range map[string]string{
		"no date":          `{"trackResponse":{"shipment":[{"package":[{"activity":[{"status":{"type":"I"},"time":"101010"}]}]}]}}`,
		"bad offset":       `{"trackResponse":{"shipment":[{"package":[{"activity":[{"status":{"type":"I"},"date":"20240101","gmtOffset":"EST"}]}]}]}}`,
		"bad time":         `{"trackResponse":{"shipment":[{"package":[{"activity":[{"status":{"type":"I"},"date":"20240101","time":"25:61"}]}]}]}}`,
		"year 1":           `{"trackResponse":{"shipment":[{"package":[{"activity":[{"status":{"type":"I"},"date":"00010101","time":"000000"}]}]}]}}`,
		"year 1 in GMT":    `{"trackResponse":{"shipment":[{"package":[{"activity":[{"status":{"type":"I"},"date":"00010101","time":"000000","gmtDate":"00010101","gmtTime":"00:00:00"}]}]}]}}`,
		"no shipment":      `{"trackResponse":{"shipment":[]}}`,
		"other warning":    `{"trackResponse":{"shipment":[{"warnings":[{"code":"TW0002","message":"Try again"}]}]}}`,
		"wrong type":       `{"trackResponse":{"shipment":[{"package":[{"activity":[{"date":20240101}]}]}]}}`,
		"not the envelope": `{"errors":[]}`,
	} {
		if _, _, err := parseTrackResponse([]byte(bad), "1Z1"); err == nil {
			t.Errorf("%s: parsed without error", name)
		}
	}
}

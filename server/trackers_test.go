package server_test

// Trackers of any package (POST/GET/DELETE /trackers) in test mode, through
// the API, against the sandbox carriers.

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/app"
	"github.com/shipd-dev/shipd/carriers/connectors"
)

type standaloneDoc struct {
	ID             string  `json:"id"`
	Mode           string  `json:"mode"`
	ShipmentID     *string `json:"shipmentId"`
	Carrier        string  `json:"carrier"`
	TrackingNumber string  `json:"trackingNumber"`
	Status         string  `json:"status"`
	Events         []struct {
		Status  string `json:"status"`
		Message string `json:"message"`
	} `json:"events"`
}

func (d standaloneDoc) statuses() []string {
	out := make([]string, len(d.Events))
	for i, e := range d.Events {
		out[i] = e.Status
	}
	return out
}

// postTracker creates (201) or finds (200) a tracker and checks the status.
func postTracker(t *testing.T, b *bundle, token string, body map[string]any, status int) standaloneDoc {
	t.Helper()
	r := b.doT(t, "POST", "/api/v1/trackers", token, body)
	wantStatus(t, r, status)
	if _, ok := r.JSON(t)["shipmentId"]; !ok {
		t.Fatalf("shipmentId absent (null for a standalone tracker): %s", r.Body)
	}
	var d standaloneDoc
	r.Decode(t, &d)
	return d
}

func getTracker(t *testing.T, b *bundle, token, id string) standaloneDoc {
	t.Helper()
	r := b.doT(t, "GET", "/api/v1/trackers/"+id, token, nil)
	wantStatus(t, r, http.StatusOK)
	var d standaloneDoc
	r.Decode(t, &d)
	return d
}

// waitTrackerStatus polls GET /trackers/{id} until its status is want.
func waitTrackerStatus(t *testing.T, b *bundle, token, id, want string) standaloneDoc {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		d := getTracker(t, b, token, id)
		if d.Status == want {
			return d
		}
		if time.Now().After(deadline) {
			t.Fatalf("tracker %s is %s after 20 s, want %s: %+v", id, d.Status, want, d)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitTrackerScanned waits for a tracker's first scan, whatever it is.
func waitTrackerScanned(t *testing.T, b *bundle, token, id string) standaloneDoc {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		d := getTracker(t, b, token, id)
		if len(d.Events) > 0 {
			return d
		}
		if time.Now().After(deadline) {
			t.Fatalf("tracker %s has no scan after 20 s: %+v", id, d)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func listTrackers(t *testing.T, b *bundle, token, query string) []standaloneDoc {
	t.Helper()
	r := b.doT(t, "GET", "/api/v1/trackers?"+query, token, nil)
	wantStatus(t, r, http.StatusOK)
	var l struct {
		Data       []standaloneDoc `json:"data"`
		NextCursor *string         `json:"nextCursor"`
	}
	r.Decode(t, &l)
	return l.Data
}

func trackerIDs(list []standaloneDoc) []string {
	out := make([]string, len(list))
	for i, d := range list {
		out[i] = d.ID
	}
	return out
}

// trackerEvents keeps the tracker.updated events whose data is the tracker.
func trackerEvents(events []eventDoc, trackerID string) []eventDoc {
	var out []eventDoc
	for _, e := range events {
		if e.Type == "tracker.updated" && e.Data["id"] == trackerID {
			out = append(out, e)
		}
	}
	return out
}

func TestStandaloneTrackerIsTrackedToDelivered(t *testing.T) {
	t.Parallel()
	b := setupLabels(t, withSandbox(5*time.Millisecond))

	created := postTracker(t, b, b.token, map[string]any{"trackingNumber": "1Z999AA10123456784"}, http.StatusCreated)
	if created.Carrier != "UPS" || created.ShipmentID != nil || created.Mode != "test" || created.TrackingNumber != "1Z999AA10123456784" {
		t.Fatalf("created %+v", created)
	}
	// The same carrier and number, written otherwise: the same tracker.
	again := postTracker(t, b, b.token, map[string]any{"trackingNumber": "1z 999 aa1 0123 4567 84", "carrier": "ups"}, http.StatusOK)
	if again.ID != created.ID {
		t.Fatalf("the same number again made tracker %s, want %s", again.ID, created.ID)
	}

	d := waitTrackerStatus(t, b, b.token, created.ID, "delivered")
	want := []string{"delivered", "out_for_delivery", "in_transit", "in_transit", "pre_transit"}
	if diff := cmp.Diff(want, d.statuses()); diff != "" {
		t.Errorf("scans, newest first (-want +got):\n%s", diff)
	}

	// One tracker.updated per scan, its data the tracker as it was then.
	evs := trackerEvents(listEvents(t, b, b.token, "tracker.updated"), created.ID)
	if len(evs) != len(want) {
		t.Fatalf("%d tracker.updated events, want %d: %+v", len(evs), len(want), evs)
	}
	newest := evs[0].Data
	if newest["status"] != "delivered" || newest["shipmentId"] != nil || newest["trackingNumber"] != "1Z999AA10123456784" {
		t.Errorf("newest tracker.updated data %v", newest)
	}
	if scans, _ := newest["events"].([]any); len(scans) != len(want) {
		t.Errorf("newest tracker.updated has %d scans, want %d", len(scans), len(want))
	}
}

func TestStandaloneTrackerSandboxEndings(t *testing.T) {
	t.Parallel()
	b := setupLabels(t, withSandbox(5*time.Millisecond))
	for number, status := range map[string]string{
		"9400111899223344556999": "failure",
		"9400111899223344556888": "return_to_sender",
		"123456789012":           "delivered",
	} {
		d := postTracker(t, b, b.token, map[string]any{"trackingNumber": number}, http.StatusCreated)
		waitTrackerStatus(t, b, b.token, d.ID, status)
	}
}

func TestCreateTrackerRefusesNumbers(t *testing.T) {
	t.Parallel()
	b := setupLabels(t)
	for _, tc := range []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"no carrier's form, no carrier", map[string]any{"trackingNumber": "ABC123"}, "carrier"},
		{"the form of USPS and FedEx, no carrier", map[string]any{"trackingNumber": "9611020987654312345672"}, "carrier"},
		{"not a carrier of the mode", map[string]any{"trackingNumber": "123456789012", "carrier": "DHL"}, "carrier"},
		{"not the carrier's form", map[string]any{"trackingNumber": "123456789012", "carrier": "UPS"}, "trackingNumber"},
		{"unknown field", map[string]any{"trackingNumber": "123456789012", "shipmentId": "shp_x"}, "shipmentId"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := wantError(t, b.doT(t, "POST", "/api/v1/trackers", b.token, tc.body), http.StatusUnprocessableEntity, "invalid_field")
			if m["field"] != tc.field {
				t.Errorf("field = %v, want %s; %v", m["field"], tc.field, m)
			}
		})
	}
	// Named, the ambiguous number is taken.
	postTracker(t, b, b.token, map[string]any{"trackingNumber": "9611020987654312345672", "carrier": "FedEx"}, http.StatusCreated)
}

func TestTrackersListAndDelete(t *testing.T) {
	t.Parallel()
	b := setupLabels(t, withSandbox(time.Hour))
	sh := waitForStatus(t, b, b.token, createLabel(t, b, b.token, labelBody()).ID, "purchased")
	first := postTracker(t, b, b.token, map[string]any{"trackingNumber": "123456789012"}, http.StatusCreated)
	second := postTracker(t, b, b.token, map[string]any{"trackingNumber": "1Z999AA10123456784"}, http.StatusCreated)

	// Newest first, standalone and labels' trackers, paged.
	all := listTrackers(t, b, b.token, "")
	if diff := cmp.Diff([]string{second.ID, first.ID, *sh.TrackerID}, trackerIDs(all)); diff != "" {
		t.Fatalf("GET /trackers (-want +got):\n%s", diff)
	}
	if all[2].ShipmentID == nil || *all[2].ShipmentID != sh.ID {
		t.Errorf("the label's tracker lists shipmentId %v, want %s", all[2].ShipmentID, sh.ID)
	}
	r := b.do("GET", "/api/v1/trackers?limit=2", b.token, nil)
	wantStatus(t, r, http.StatusOK)
	var page struct{ NextCursor *string }
	r.Decode(t, &page)
	if page.NextCursor == nil {
		t.Fatalf("first page of 2 has no nextCursor: %s", r.Body)
	}
	if diff := cmp.Diff([]string{*sh.TrackerID}, trackerIDs(listTrackers(t, b, b.token, "limit=2&cursor="+*page.NextCursor))); diff != "" {
		t.Errorf("second page (-want +got):\n%s", diff)
	}
	if got := listTrackers(t, b, b.token, "status=DELIVERED"); len(got) != 0 {
		t.Errorf("status=delivered lists %v", trackerIDs(got))
	}
	if diff := cmp.Diff([]string{second.ID, first.ID, *sh.TrackerID}, trackerIDs(listTrackers(t, b, b.token, "status=unknown"))); diff != "" {
		t.Errorf("status=unknown (-want +got):\n%s", diff)
	}
	m := wantError(t, b.do("GET", "/api/v1/trackers?status=lost", b.token, nil), http.StatusUnprocessableEntity, "invalid_field")
	if m["field"] != "status" {
		t.Errorf("field = %v, want status", m["field"])
	}
	// The other mode's list is its own.
	_, live := b.newToken(b.account.ID, "live", allScopes...)
	if got := listTrackers(t, b, live, ""); len(got) != 0 {
		t.Errorf("live mode lists test trackers %v", trackerIDs(got))
	}

	// A label's tracker stays; a standalone one goes, and can be made anew.
	wantError(t, b.do("DELETE", "/api/v1/trackers/"+*sh.TrackerID, b.token, nil), http.StatusConflict, "tracker_of_shipment")
	wantError(t, b.do("DELETE", "/api/v1/trackers/"+first.ID, live, nil), http.StatusForbidden, "wrong_mode")
	wantStatus(t, b.do("DELETE", "/api/v1/trackers/"+first.ID, b.token, nil), http.StatusNoContent)
	wantError(t, b.do("GET", "/api/v1/trackers/"+first.ID, b.token, nil), http.StatusNotFound, "not_found")
	wantError(t, b.do("DELETE", "/api/v1/trackers/"+first.ID, b.token, nil), http.StatusNotFound, "not_found")
	if diff := cmp.Diff([]string{second.ID, *sh.TrackerID}, trackerIDs(listTrackers(t, b, b.token, ""))); diff != "" {
		t.Errorf("GET /trackers after the delete (-want +got):\n%s", diff)
	}
	if again := postTracker(t, b, b.token, map[string]any{"trackingNumber": "123456789012"}, http.StatusCreated); again.ID == first.ID {
		t.Errorf("a deleted tracker came back: %s", again.ID)
	}

	// The label's own number finds the label's tracker.
	if got := postTracker(t, b, b.token, map[string]any{"trackingNumber": *sh.TrackingNumber, "carrier": sh.Carrier}, http.StatusOK); got.ID != *sh.TrackerID {
		t.Errorf("the label's number gave tracker %s, want the label's %s", got.ID, *sh.TrackerID)
	}
}

func TestDeletedTrackerStopsScanning(t *testing.T) {
	t.Parallel()
	// Scans half a second apart: the delete lands after the first scan and
	// before the rest, however late a loaded machine runs the first job
	// (waiting for "pre_transit" itself lost that race under -race in CI).
	b := setupLabels(t, withSandbox(500*time.Millisecond))
	d := postTracker(t, b, b.token, map[string]any{"trackingNumber": "123456789012"}, http.StatusCreated)
	waitTrackerScanned(t, b, b.token, d.ID)
	wantStatus(t, b.do("DELETE", "/api/v1/trackers/"+d.ID, b.token, nil), http.StatusNoContent)
	// A control tracker made after the delete is delivered: by then every
	// scan of the deleted one was due.
	control := postTracker(t, b, b.token, map[string]any{"trackingNumber": "123456789013"}, http.StatusCreated)
	waitTrackerStatus(t, b, b.token, control.ID, "delivered")
	var n int
	if err := b.sql(t).Get(&n, `SELECT count(*) FROM tracking_events WHERE tracker_id = ?`, d.ID); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("the deleted tracker has %d scans", n)
	}
	wantError(t, b.do("GET", "/api/v1/trackers/"+d.ID, b.token, nil), http.StatusNotFound, "not_found")
}

func TestCreateTrackerIdempotencyAndRace(t *testing.T) {
	t.Parallel()
	b := setupLabels(t, withSandbox(time.Hour))
	body := map[string]any{"trackingNumber": "123456789012", "idempotencyKey": "trk-1"}
	first := b.do("POST", "/api/v1/trackers", b.token, body)
	wantStatus(t, first, http.StatusCreated)
	replay := b.do("POST", "/api/v1/trackers", b.token, body)
	wantStatus(t, replay, http.StatusCreated)
	if replay.Header.Get("Idempotent-Replayed") != "true" || string(replay.Body) != string(first.Body) {
		t.Errorf("replay: %s %s, want %s", replay.Header.Get("Idempotent-Replayed"), replay.Body, first.Body)
	}
	wantError(t, b.do("POST", "/api/v1/trackers", b.token, map[string]any{"trackingNumber": "123456789013", "idempotencyKey": "trk-1"}),
		http.StatusConflict, "idempotency_key_collision")

	// Concurrent creates of one number: one tracker, one 201.
	const n = 8
	var wg sync.WaitGroup
	results := make([]response, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := b.send("POST", "/api/v1/trackers", b.token, map[string]any{"trackingNumber": "1Z999AA10123456784"})
			if err != nil {
				t.Error(err)
			}
			results[i] = r
		}()
	}
	wg.Wait()
	ids, created := map[string]bool{}, 0
	for _, r := range results {
		if r.Status == http.StatusCreated {
			created++
		} else if r.Status != http.StatusOK {
			t.Fatalf("concurrent create: %d %s", r.Status, r.Body)
		}
		var d standaloneDoc
		r.Decode(t, &d)
		ids[d.ID] = true
	}
	if created != 1 || len(ids) != 1 {
		t.Errorf("%d concurrent creates: %d answered 201, %d trackers; want 1 and 1", n, created, len(ids))
	}
}

// Past the account's limit of active trackers in a mode, POST /trackers is
// 422 tracker_limit with the contract's error body, however many creates
// arrive together; the same number is still 200, and a deleted tracker
// frees its place.
func TestCreateTrackerLimit(t *testing.T) {
	t.Parallel()
	const limit, n = 3, 10
	b := setup(t, withoutRateLimits(), func(c *app.Config) { c.TrackerLimit = limit })
	statuses := make([]int, n)
	ids := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			r := b.do("POST", "/api/v1/trackers", b.token, map[string]any{"trackingNumber": fmt.Sprintf("1234567890%02d", i)})
			statuses[i] = r.Status
			if r.Status == http.StatusCreated {
				var d standaloneDoc
				r.Decode(t, &d)
				ids[i] = d.ID
			}
		})
	}
	wg.Wait()
	count := map[int]int{}
	var created []string
	for i, s := range statuses {
		count[s]++
		if s == http.StatusCreated {
			created = append(created, ids[i])
		}
	}
	if diff := cmp.Diff(map[int]int{http.StatusCreated: limit, http.StatusUnprocessableEntity: n - limit}, count); diff != "" {
		t.Fatalf("statuses of %d concurrent creates under a limit of %d (-want +got):\n%s", n, limit, diff)
	}
	m := wantError(t, b.doT(t, "POST", "/api/v1/trackers", b.token, map[string]any{"trackingNumber": "123456789099"}), http.StatusUnprocessableEntity, "tracker_limit")
	if msg, _ := m["error"].(string); !strings.Contains(msg, "in test mode is 3;") {
		t.Errorf("the limit's message does not name it: %q", msg)
	}
	first := getTracker(t, b, b.token, created[0])
	if again := postTracker(t, b, b.token, map[string]any{"trackingNumber": first.TrackingNumber}, http.StatusOK); again.ID != first.ID {
		t.Errorf("the same number at the limit: %s, want %s", again.ID, first.ID)
	}

	wantStatus(t, b.doT(t, "DELETE", "/api/v1/trackers/"+first.ID, b.token, nil), http.StatusNoContent)
	postTracker(t, b, b.token, map[string]any{"trackingNumber": "123456789099"}, http.StatusCreated)
}

// A sandbox label's number (9400SANDBOX…, 1ZSANDBOX…, …) is the sandbox
// twin's in test mode: trackable standalone without naming the carrier,
// or naming it, and followed to delivered. Live mode knows no such number.
func TestSandboxNumbersTrackedStandalone(t *testing.T) {
	t.Parallel()
	b := setupLabels(t, withSandbox(5*time.Millisecond))
	for _, d := range connectors.Catalog().Descriptors() {
		if d.Sandbox == nil || d.Sandbox.TrackingPrefix == "" {
			continue
		}
		number := d.Sandbox.TrackingPrefix + strings.Repeat("4", d.Sandbox.TrackingDigits-1) + "1"
		got := postTracker(t, b, b.token, map[string]any{"trackingNumber": strings.ToLower(number)}, http.StatusCreated)
		if got.Carrier != string(d.ID) || got.TrackingNumber != number {
			t.Errorf("%s: tracker of carrier %s, number %s; want %s's", number, got.Carrier, got.TrackingNumber, d.ID)
			continue
		}
		if again := postTracker(t, b, b.token, map[string]any{"trackingNumber": number, "carrier": string(d.ID)}, http.StatusOK); again.ID != got.ID {
			t.Errorf("%s named with its carrier: tracker %s, want %s", number, again.ID, got.ID)
		}
		if d.ID == "USPS" {
			waitTrackerStatus(t, b, b.token, got.ID, "delivered")
		}
	}
	_, live := b.newToken(b.account.ID, "live", allScopes...)
	m := wantError(t, b.do("POST", "/api/v1/trackers", live, map[string]any{"trackingNumber": "9400SANDBOX123456789012"}), http.StatusUnprocessableEntity, "invalid_field")
	if m["field"] != "carrier" {
		t.Errorf("a sandbox number in live mode: %v, want carrier required", m)
	}
}

package server_test

// Webhook delivery, through the public HTTP API, to real HTTP receivers on
// 127.0.0.1. Async outcomes are awaited by polling the API with a deadline;
// assertions are on recorded values (the controllable clock), never on
// wall-clock timings.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/app"
	"github.com/shipd-dev/shipd/gen"
	"github.com/shipd-dev/shipd/internal/fakeclock"
	"github.com/shipd-dev/shipd/seal"
	"github.com/shipd-dev/shipd/store"
	"github.com/shipd-dev/shipd/store/storetest"
	"github.com/shipd-dev/shipd/webhooks"
	"github.com/shipd-dev/shipd/webhooks/signature"
)

// testSchedule is a millisecond-scale retry schedule. With 5 attempts only
// the first four waits are used, as the default's four are (1 min, 5 min,
// 25 min, 2 h); the fifth entry is never reached.
var testSchedule = []time.Duration{15 * time.Millisecond, 25 * time.Millisecond, 35 * time.Millisecond, 45 * time.Millisecond, 55 * time.Millisecond}

func withDeliverySchedule(schedule ...time.Duration) setupOption {
	return func(c *app.Config) { c.Webhooks.RetrySchedule = schedule }
}

// receivedRequest is one request a receiver got.
type receivedRequest struct {
	Path      string
	Header    http.Header
	Body      []byte
	VerifyErr error
	Envelope  map[string]any
}

// receiver is a real HTTP server that records every request, verifies its
// signature with the secret registered for its path, and answers with what
// handle returns (200 when handle is nil).
type receiver struct {
	t       *testing.T
	srv     *httptest.Server
	done    chan struct{}
	conns   atomic.Int64
	mu      sync.Mutex
	secrets map[string]string
	got     []receivedRequest
	handle  func(r *http.Request, n int) int // n: 1-based count of requests to r's path
}

func newReceiver(t *testing.T) *receiver {
	t.Helper()
	rc := &receiver{t: t, done: make(chan struct{}), secrets: map[string]string{}}
	rc.srv = httptest.NewUnstartedServer(http.HandlerFunc(rc.serve))
	rc.srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			rc.conns.Add(1)
		}
	}
	rc.srv.Start()
	t.Cleanup(rc.srv.Close)
	t.Cleanup(func() { close(rc.done) }) // runs first: unblocks waiting handlers
	return rc
}

func (rc *receiver) url(path string) string { return rc.srv.URL + path }

func (rc *receiver) setSecret(path, secret string) {
	rc.mu.Lock()
	rc.secrets[path] = secret
	rc.mu.Unlock()
}

func (rc *receiver) setHandle(h func(r *http.Request, n int) int) {
	rc.mu.Lock()
	rc.handle = h
	rc.mu.Unlock()
}

func (rc *receiver) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	req := receivedRequest{Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	rc.mu.Lock()
	secret := rc.secrets[r.URL.Path]
	rc.mu.Unlock()
	req.VerifyErr = signature.Verify(secret, r.Header, body, 0)
	if err := json.Unmarshal(body, &req.Envelope); err != nil && req.VerifyErr == nil {
		req.VerifyErr = fmt.Errorf("body is not a JSON object: %w", err)
	}
	if req.VerifyErr == nil && r.Header.Get(signature.HeaderEventID) != req.Envelope["id"] {
		req.VerifyErr = fmt.Errorf("%s %q is not the envelope id %v", signature.HeaderEventID, r.Header.Get(signature.HeaderEventID), req.Envelope["id"])
	}
	rc.mu.Lock()
	rc.got = append(rc.got, req)
	n := 0
	for _, g := range rc.got {
		if g.Path == r.URL.Path {
			n++
		}
	}
	handle := rc.handle
	rc.mu.Unlock()
	status := http.StatusOK
	if handle != nil {
		status = handle(r, n)
	}
	if status >= 300 && status < 400 {
		w.Header().Set("Location", "/elsewhere") // a redirect must never be followed
	}
	w.WriteHeader(status)
}

// requests returns what path received so far (every path when path is "").
func (rc *receiver) requests(path string) []receivedRequest {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var out []receivedRequest
	for _, g := range rc.got {
		if path == "" || g.Path == path {
			out = append(out, g)
		}
	}
	return out
}

// verified fails the test unless every request to path was signed and well formed.
func (rc *receiver) verified(t *testing.T, path string) []receivedRequest {
	t.Helper()
	reqs := rc.requests(path)
	for i, r := range reqs {
		if r.VerifyErr != nil {
			t.Fatalf("request %d to %s failed verification: %v", i+1, path, r.VerifyErr)
		}
	}
	return reqs
}

// receiverGate lets a test hold a receiver's answer: each request announces itself
// on arrived and waits for its status on release.
type receiverGate struct {
	arrived chan int
	release chan int
	done    chan struct{}
}

func newReceiverGate(rc *receiver) *receiverGate {
	return &receiverGate{arrived: make(chan int), release: make(chan int), done: rc.done}
}

func (g *receiverGate) handle(_ *http.Request, n int) int {
	select {
	case g.arrived <- n:
	case <-g.done:
		return http.StatusServiceUnavailable
	}
	select {
	case st := <-g.release:
		return st
	case <-g.done:
		return http.StatusServiceUnavailable
	}
}

func (g *receiverGate) waitArrival(t *testing.T) int {
	t.Helper()
	select {
	case n := <-g.arrived:
		return n
	case <-time.After(10 * time.Second):
		t.Fatal("no delivery reached the receiver within 10 s")
		return 0
	}
}

// subscribe creates a subscription to the receiver's path and registers its secret.
func subscribe(t *testing.T, b *bundle, rc *receiver, path string, events ...string) string {
	t.Helper()
	r := b.do("POST", "/api/v1/webhooks", b.token, map[string]any{"url": rc.url(path), "events": events})
	if r.Status != http.StatusCreated {
		t.Fatalf("create webhook: %d %s", r.Status, r.Body)
	}
	m := r.JSON(t)
	rc.setSecret(path, m["signingSecret"].(string))
	return m["id"].(string)
}

func deliveryShipmentBody() map[string]any {
	return map[string]any{
		"fromAddress": map[string]any{"name": "Shop", "street1": "1 Market St", "city": "San Francisco", "state": "CA", "zip": "94105", "country": "US"},
		"toAddress":   map[string]any{"name": "Ada", "street1": "350 Fifth Avenue", "city": "New York", "state": "NY", "zip": "10118", "country": "US"},
		"parcel":      map[string]any{"weightOz": 32},
	}
}

// purchase buys a label, which records shipment.purchased; it returns the shipment id.
func purchase(t *testing.T, b *bundle) string {
	t.Helper()
	r := b.do("POST", "/api/v1/labels/create", b.token, deliveryShipmentBody())
	if r.Status != http.StatusAccepted {
		t.Fatalf("create label: %d %s", r.Status, r.Body)
	}
	return r.JSON(t)["id"].(string)
}

func deliveriesWith(t *testing.T, b *bundle, token, subID, query string) gen.WebhookDeliveryList {
	t.Helper()
	r := b.do("GET", "/api/v1/webhooks/"+subID+"/deliveries"+query, token, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("list deliveries: %d %s", r.Status, r.Body)
	}
	var out gen.WebhookDeliveryList
	r.Decode(t, &out)
	return out
}

func deliveries(t *testing.T, b *bundle, subID string) []gen.WebhookDelivery {
	t.Helper()
	return deliveriesWith(t, b, b.token, subID, "").Data
}

// onlyDelivery waits until the subscription has exactly one delivery and cond holds for it.
func onlyDelivery(t *testing.T, b *bundle, subID, what string, cond func(d gen.WebhookDelivery) bool) gen.WebhookDelivery {
	t.Helper()
	var d gen.WebhookDelivery
	waitUntil(t, what, func() bool {
		ds := deliveries(t, b, subID)
		if len(ds) > 1 {
			t.Fatalf("%d deliveries, want 1: %+v", len(ds), ds)
		}
		if len(ds) == 1 {
			d = ds[0]
		}
		return len(ds) == 1 && cond(d)
	})
	return d
}

func deliveryStatusIs(status gen.WebhookDeliveryStatus) func(gen.WebhookDelivery) bool {
	return func(d gen.WebhookDelivery) bool { return d.Status == status }
}

func eventRecords(t *testing.T, b *bundle, query string) []gen.EventRecord {
	t.Helper()
	r := b.do("GET", "/api/v1/events"+query, b.token, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("list events: %d %s", r.Status, r.Body)
	}
	var out gen.EventList
	r.Decode(t, &out)
	return out.Data
}

func attemptStatuses(d gen.WebhookDelivery) []int {
	var out []int
	for _, a := range d.AttemptLog {
		if a.ResponseStatus == nil {
			out = append(out, 0)
		} else {
			out = append(out, *a.ResponseStatus)
		}
	}
	return out
}

// ---------------------------------------------------------------------------

func TestWebhookDeliverySignedEnvelope(t *testing.T) {
	t.Parallel()
	b := setup(t, withDeliverySchedule(testSchedule...))
	rc := newReceiver(t)
	subID := subscribe(t, b, rc, "/hook", "shipment.purchased")
	shipmentID := purchase(t, b)

	d := onlyDelivery(t, b, subID, "the delivery to be delivered", deliveryStatusIs(gen.WebhookDeliveryStatusDelivered))
	reqs := rc.verified(t, "/hook")
	if len(reqs) != 1 {
		t.Fatalf("receiver got %d requests, want 1", len(reqs))
	}
	req := reqs[0]
	if ct := req.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q", ct)
	}
	if ev := req.Header.Get(signature.HeaderEvent); ev != "shipment.purchased" {
		t.Errorf("%s = %q", signature.HeaderEvent, ev)
	}
	var keys []string
	for k := range req.Envelope {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if want := []string{"apiVersion", "createdAt", "data", "id", "type"}; !slices.Equal(keys, want) {
		t.Errorf("envelope keys = %v, want %v", keys, want)
	}
	if req.Envelope["type"] != "shipment.purchased" || req.Envelope["apiVersion"] != "v1" {
		t.Errorf("envelope = %v", req.Envelope)
	}
	data := req.Envelope["data"].(map[string]any)
	if data["id"] != shipmentID || data["status"] != "purchased" {
		t.Errorf("data id %v status %v, want %s purchased", data["id"], data["status"], shipmentID)
	}

	if d.EventId != req.Envelope["id"] || d.EventType != "shipment.purchased" || d.SubscriptionId != subID ||
		d.Attempts != 1 || d.NextAttemptAt != nil || !strings.HasPrefix(d.Id, "dlv_") {
		t.Errorf("delivery = %+v", d)
	}
	if got := attemptStatuses(d); !slices.Equal(got, []int{200}) || d.AttemptLog[0].Error != nil {
		t.Errorf("attempt log = %+v", d.AttemptLog)
	}

	// The envelope is the event as GET /events has it, with its delivery summary.
	evs := eventRecords(t, b, "?type=shipment.purchased")
	if len(evs) != 1 {
		t.Fatalf("%d shipment.purchased events, want 1", len(evs))
	}
	ev := evs[0]
	if ev.Id != d.EventId || ev.CreatedAt.Format(time.RFC3339Nano) != req.Envelope["createdAt"] {
		t.Errorf("event %s at %s; envelope %v at %v", ev.Id, ev.CreatedAt.Format(time.RFC3339Nano), req.Envelope["id"], req.Envelope["createdAt"])
	}
	if want := (gen.DeliverySummary{Total: 1, Delivered: 1}); ev.Deliveries != want {
		t.Errorf("summary = %+v, want %+v", ev.Deliveries, want)
	}
	envData, _ := json.Marshal(data)
	evData, _ := json.Marshal(ev.Data)
	if !bytes.Equal(envData, evData) {
		t.Errorf("envelope data differs from the event's:\n%s\n%s", envData, evData)
	}
}

func TestWebhookDeliveryRetriesAtScheduledOffsets(t *testing.T) {
	t.Parallel()
	b := setup(t, withDeliverySchedule(testSchedule...))
	rc := newReceiver(t)
	gate := newReceiverGate(rc)
	rc.setHandle(gate.handle)
	subID := subscribe(t, b, rc, "/flaky", "shipment.purchased")
	purchase(t, b)

	for k := 1; k <= 5; k++ {
		if n := gate.waitArrival(t); n != k {
			t.Fatalf("request %d arrived as number %d", k, n)
		}
		if k > 1 {
			// Attempt k is in flight, so attempt k-1 is recorded with the offset to this one.
			d := deliveries(t, b, subID)[0]
			prev := d.AttemptLog[k-2].AttemptedAt
			if d.Status != gen.WebhookDeliveryStatusPending || d.Attempts != k-1 || d.NextAttemptAt == nil ||
				d.NextAttemptAt.Sub(prev) != testSchedule[k-2] {
				t.Fatalf("after attempt %d: %+v, want pending with next attempt %s after the last", k-1, d, testSchedule[k-2])
			}
		}
		// Move the controllable clock to when the next attempt is due, so the
		// recorded attempt times are spaced as scheduled.
		if k < 5 {
			b.clock.Advance(testSchedule[k-1])
		}
		gate.release <- http.StatusInternalServerError
	}

	d := onlyDelivery(t, b, subID, "the delivery to fail", deliveryStatusIs(gen.WebhookDeliveryStatusFailed))
	if d.Attempts != 5 || d.NextAttemptAt != nil || !slices.Equal(attemptStatuses(d), []int{500, 500, 500, 500, 500}) {
		t.Fatalf("delivery = %+v", d)
	}
	for i := 1; i < 5; i++ {
		if got := d.AttemptLog[i].AttemptedAt.Sub(d.AttemptLog[i-1].AttemptedAt); got != testSchedule[i-1] {
			t.Errorf("attempt %d came %s after attempt %d, want %s", i+1, got, i, testSchedule[i-1])
		}
		if d.AttemptLog[i].Error == nil {
			t.Errorf("attempt %d has no error", i+1)
		}
	}
	reqs := rc.verified(t, "/flaky")
	if len(reqs) != 5 {
		t.Fatalf("receiver got %d requests, want 5", len(reqs))
	}
	for _, r := range reqs {
		if r.Envelope["id"] != d.EventId {
			t.Errorf("request for event %v, want %s", r.Envelope["id"], d.EventId)
		}
	}
}

func TestWebhookDeliveryOutcomes(t *testing.T) {
	t.Parallel()
	b := setup(t, withDeliverySchedule(testSchedule...))
	rc := newReceiver(t)
	rc.setHandle(func(r *http.Request, n int) int {
		switch r.URL.Path {
		case "/bad-request":
			return http.StatusBadRequest
		case "/gone":
			return http.StatusGone
		case "/redirect":
			return http.StatusFound
		case "/throttled":
			return []int{http.StatusRequestTimeout, http.StatusTooManyRequests, http.StatusOK}[min(n, 3)-1]
		}
		return http.StatusOK
	})
	// A receiver whose port no longer listens: every attempt is a network error.
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL + "/down"
	down.Close()

	subs := map[string]string{}
	for _, p := range []string{"/bad-request", "/gone", "/redirect", "/throttled"} {
		subs[p] = subscribe(t, b, rc, p, "shipment.purchased")
	}
	r := b.do("POST", "/api/v1/webhooks", b.token, map[string]any{"url": downURL, "events": []string{"shipment.purchased"}})
	if r.Status != http.StatusCreated {
		t.Fatalf("create webhook: %d %s", r.Status, r.Body)
	}
	downID := r.JSON(t)["id"].(string)
	purchase(t, b)

	for _, tc := range []struct {
		path     string
		status   gen.WebhookDeliveryStatus
		statuses []int
	}{
		{"/bad-request", gen.WebhookDeliveryStatusFailed, []int{400}},
		{"/gone", gen.WebhookDeliveryStatusFailed, []int{410}},
		{"/redirect", gen.WebhookDeliveryStatusFailed, []int{302}},
		{"/throttled", gen.WebhookDeliveryStatusDelivered, []int{408, 429, 200}},
	} {
		d := onlyDelivery(t, b, subs[tc.path], tc.path+" to finish", func(d gen.WebhookDelivery) bool { return d.Status != gen.WebhookDeliveryStatusPending })
		if d.Status != tc.status || !slices.Equal(attemptStatuses(d), tc.statuses) || d.Attempts != len(tc.statuses) || d.NextAttemptAt != nil {
			t.Errorf("%s: %s after %v (attempts %d, next %v), want %s after %v", tc.path, d.Status, attemptStatuses(d), d.Attempts, d.NextAttemptAt, tc.status, tc.statuses)
		}
		if got := len(rc.verified(t, tc.path)); got != len(tc.statuses) {
			t.Errorf("%s: receiver got %d requests, want %d", tc.path, got, len(tc.statuses))
		}
	}
	if got := rc.requests("/elsewhere"); len(got) != 0 {
		t.Errorf("the redirect was followed: %d requests", len(got))
	}

	// Network errors are retried: five attempts, no status, each with its error.
	d := onlyDelivery(t, b, downID, "the delivery to the closed port to fail", deliveryStatusIs(gen.WebhookDeliveryStatusFailed))
	if d.Attempts != 5 || len(d.AttemptLog) != 5 {
		t.Fatalf("closed port: %+v", d)
	}
	for i, a := range d.AttemptLog {
		if a.ResponseStatus != nil || a.Error == nil || !strings.Contains(*a.Error, "refused") {
			t.Errorf("closed port attempt %d = %+v", i+1, a)
		}
	}
}

func TestWebhookDeliveryPausedAndUnmatchedSubscriptionsGetNothing(t *testing.T) {
	t.Parallel()
	b := setup(t, withDeliverySchedule(testSchedule...))
	rc := newReceiver(t)
	active := subscribe(t, b, rc, "/active", "shipment.purchased")
	paused := subscribe(t, b, rc, "/paused", "*")
	otherType := subscribe(t, b, rc, "/failed-only", "shipment.failed")
	if r := b.do("PATCH", "/api/v1/webhooks/"+paused, b.token, map[string]any{"enabled": false}); r.Status != http.StatusOK {
		t.Fatalf("pause: %d %s", r.Status, r.Body)
	}
	// The same account's live subscription never sees test-mode events.
	_, live := b.newToken(b.account.ID, "live", allScopes...)
	r := b.do("POST", "/api/v1/webhooks", live, map[string]any{"url": "https://example.com/live", "events": []string{"*"}})
	if r.Status != http.StatusCreated {
		t.Fatalf("live webhook: %d %s", r.Status, r.Body)
	}
	liveID := r.JSON(t)["id"].(string)

	purchase(t, b)
	onlyDelivery(t, b, active, "the active subscription's delivery", deliveryStatusIs(gen.WebhookDeliveryStatusDelivered))

	for _, id := range []string{paused, otherType} {
		if ds := deliveries(t, b, id); len(ds) != 0 {
			t.Errorf("subscription %s got %d deliveries, want 0", id, len(ds))
		}
	}
	if ds := deliveriesWith(t, b, live, liveID, "").Data; len(ds) != 0 {
		t.Errorf("live subscription got %d deliveries, want 0", len(ds))
	}
	if n := len(rc.requests("/paused")) + len(rc.requests("/failed-only")); n != 0 {
		t.Errorf("paused or unmatched receivers got %d requests", n)
	}
	ev := eventRecords(t, b, "?type=shipment.purchased")
	if len(ev) != 1 || ev[0].Deliveries != (gen.DeliverySummary{Total: 1, Delivered: 1}) {
		t.Fatalf("events = %+v", ev)
	}

	// Resuming does not deliver what happened while paused.
	if r := b.do("PATCH", "/api/v1/webhooks/"+paused, b.token, map[string]any{"enabled": true}); r.Status != http.StatusOK {
		t.Fatalf("resume: %d %s", r.Status, r.Body)
	}
	if ds := deliveries(t, b, paused); len(ds) != 0 {
		t.Errorf("resumed subscription got %d deliveries", len(ds))
	}
}

func TestWebhookDeliveryPauseStopsRetries(t *testing.T) {
	t.Parallel()
	b := setup(t, withDeliverySchedule(testSchedule...))
	rc := newReceiver(t)
	gate := newReceiverGate(rc)
	rc.setHandle(gate.handle)
	subID := subscribe(t, b, rc, "/hook", "shipment.purchased")
	purchase(t, b)

	gate.waitArrival(t)
	if r := b.do("PATCH", "/api/v1/webhooks/"+subID, b.token, map[string]any{"enabled": false}); r.Status != http.StatusOK {
		t.Fatalf("pause: %d %s", r.Status, r.Body)
	}
	gate.release <- http.StatusServiceUnavailable // retryable, but the subscription is paused now

	d := onlyDelivery(t, b, subID, "the delivery to end", func(d gen.WebhookDelivery) bool { return d.Attempts == 1 })
	if d.Status != gen.WebhookDeliveryStatusFailed || d.NextAttemptAt != nil {
		t.Fatalf("delivery = %+v, want failed without a next attempt", d)
	}
	if n := len(rc.requests("/hook")); n != 1 {
		t.Fatalf("receiver got %d requests, want 1", n)
	}
}

func TestWebhookDeliveryDeleteAndPauseStopQueuedRetries(t *testing.T) {
	t.Parallel()
	// The first retry is due a second later: time enough to delete and pause before it.
	b := setup(t, withDeliverySchedule(time.Second, time.Second))
	rc := newReceiver(t)
	rc.setHandle(func(*http.Request, int) int { return http.StatusInternalServerError })
	deleted := subscribe(t, b, rc, "/deleted", "shipment.purchased")
	paused := subscribe(t, b, rc, "/paused", "shipment.purchased")
	purchase(t, b)

	firstFailed := func(d gen.WebhookDelivery) bool { return d.Attempts == 1 }
	dDeleted := onlyDelivery(t, b, deleted, "the first attempt to /deleted", firstFailed)
	dPaused := onlyDelivery(t, b, paused, "the first attempt to /paused", firstFailed)
	for _, d := range []gen.WebhookDelivery{dDeleted, dPaused} {
		if d.Status != gen.WebhookDeliveryStatusPending || d.NextAttemptAt == nil {
			t.Fatalf("delivery = %+v, want pending with a retry queued", d)
		}
	}
	if r := b.do("DELETE", "/api/v1/webhooks/"+deleted, b.token, nil); r.Status != http.StatusNoContent {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}
	if r := b.do("PATCH", "/api/v1/webhooks/"+paused, b.token, map[string]any{"enabled": false}); r.Status != http.StatusOK {
		t.Fatalf("pause: %d %s", r.Status, r.Body)
	}
	if n := len(rc.requests("")); n != 2 {
		t.Skipf("a retry ran before the delete or pause (%d requests); the machine is too slow for this test", n)
	}
	// Deleting cancels at once: the subscription's deliveries are gone with it
	// and the event's summary shows the delivery failed. Pausing holds the
	// retry until it is due.
	wantError(t, b.do("GET", "/api/v1/webhooks/"+deleted+"/deliveries", b.token, nil), http.StatusNotFound, "not_found")
	ev := eventRecords(t, b, "?type=shipment.purchased")
	if len(ev) != 1 || ev[0].Deliveries != (gen.DeliverySummary{Total: 2, Pending: 1, Failed: 1}) {
		t.Fatalf("events = %+v, want one delivery cancelled and one pending", ev)
	}

	// The queued retries' jobs run when due and send nothing.
	for _, d := range []gen.WebhookDelivery{dDeleted, dPaused} {
		waitUntil(t, "the queued retry's job to finish", func() bool {
			var state string
			args := `json_extract(args, '$.delivery_id') = ? AND json_extract(args, '$.attempt') = 2`
			if store.IsPostgres(b.dsn) {
				args = `args->>'delivery_id' = ? AND (args->>'attempt')::int = 2`
			}
			err := b.sql(t).Get(&state, `SELECT state FROM river_job WHERE kind = 'webhook_delivery' AND `+args, d.Id)
			return err == nil && state == "completed"
		})
	}
	if n := len(rc.requests("")); n != 2 {
		t.Fatalf("receiver got %d requests in all, want 2 (no retry)", n)
	}
	d := deliveries(t, b, paused)[0]
	if d.Status != gen.WebhookDeliveryStatusFailed || d.Attempts != 1 || d.NextAttemptAt != nil {
		t.Fatalf("paused subscription's delivery = %+v, want failed after 1 attempt", d)
	}
}

func TestWebhookTestEvent(t *testing.T) {
	t.Parallel()
	b := setup(t, withDeliverySchedule(testSchedule...))
	rc := newReceiver(t)
	subID := subscribe(t, b, rc, "/hook", "shipment.failed") // the test event ignores the filter
	otherID := subscribe(t, b, rc, "/other", "*")

	r := b.do("POST", "/api/v1/webhooks/"+subID+"/test", b.token, nil)
	if r.Status != http.StatusAccepted {
		t.Fatalf("test: %d %s", r.Status, r.Body)
	}
	var queued gen.WebhookDelivery
	r.Decode(t, &queued)
	if queued.EventType != "webhook.test" || queued.Status != gen.WebhookDeliveryStatusPending || queued.Attempts != 0 ||
		queued.SubscriptionId != subID || !strings.HasPrefix(queued.EventId, "evt_") || len(queued.AttemptLog) != 0 {
		t.Fatalf("queued = %+v", queued)
	}

	d := onlyDelivery(t, b, subID, "the test event", deliveryStatusIs(gen.WebhookDeliveryStatusDelivered))
	if d.Id != queued.Id || d.Attempts != 1 {
		t.Fatalf("delivery = %+v", d)
	}
	reqs := rc.verified(t, "/hook")
	if len(reqs) != 1 {
		t.Fatalf("receiver got %d requests, want 1", len(reqs))
	}
	env := reqs[0].Envelope
	if env["id"] != queued.EventId || env["type"] != "webhook.test" || env["apiVersion"] != "v1" ||
		reqs[0].Header.Get(signature.HeaderEvent) != "webhook.test" {
		t.Errorf("envelope = %v", env)
	}
	if data, _ := env["data"].(map[string]any); data["subscriptionId"] != subID || data["message"] == nil {
		t.Errorf("data = %v", env["data"])
	}
	// To that endpoint only, and not in the event history.
	if n := len(rc.requests("/other")); n != 0 {
		t.Errorf("the other subscription got %d requests", n)
	}
	if ds := deliveries(t, b, otherID); len(ds) != 0 {
		t.Errorf("the other subscription has %d deliveries", len(ds))
	}
	if evs := eventRecords(t, b, ""); len(evs) != 0 {
		t.Errorf("GET /events lists %d events, want none", len(evs))
	}

	// One attempt only: a test event is not retried automatically.
	rc.setHandle(func(r *http.Request, _ int) int { return http.StatusInternalServerError })
	r = b.do("POST", "/api/v1/webhooks/"+otherID+"/test", b.token, nil)
	if r.Status != http.StatusAccepted {
		t.Fatalf("test: %d %s", r.Status, r.Body)
	}
	d = onlyDelivery(t, b, otherID, "the failing test event", deliveryStatusIs(gen.WebhookDeliveryStatusFailed))
	if d.Attempts != 1 || d.NextAttemptAt != nil {
		t.Errorf("failing test event = %+v", d)
	}

	// Sent even while paused: someone asked for it.
	rc.setHandle(nil)
	if r := b.do("PATCH", "/api/v1/webhooks/"+subID, b.token, map[string]any{"enabled": false}); r.Status != http.StatusOK {
		t.Fatalf("pause: %d %s", r.Status, r.Body)
	}
	if r := b.do("POST", "/api/v1/webhooks/"+subID+"/test", b.token, nil); r.Status != http.StatusAccepted {
		t.Fatalf("test while paused: %d %s", r.Status, r.Body)
	}
	waitUntil(t, "the test event while paused", func() bool { return len(rc.requests("/hook")) == 2 })

	// Access rules: another mode is 403, another account or an unknown id 404.
	_, live := b.newToken(b.account.ID, "live", allScopes...)
	wantError(t, b.do("POST", "/api/v1/webhooks/"+subID+"/test", live, nil), http.StatusForbidden, "wrong_mode")
	other := b.newAccount("Other", true)
	_, otherTok := b.newToken(other.ID, "test", allScopes...)
	wantError(t, b.do("POST", "/api/v1/webhooks/"+subID+"/test", otherTok, nil), http.StatusNotFound, "not_found")
	wantError(t, b.do("POST", "/api/v1/webhooks/whk_000000000000000000000000/test", b.token, nil), http.StatusNotFound, "not_found")
	wantError(t, b.do("GET", "/api/v1/webhooks/"+subID+"/deliveries", live, nil), http.StatusForbidden, "wrong_mode")
	wantError(t, b.do("GET", "/api/v1/webhooks/"+subID+"/deliveries", otherTok, nil), http.StatusNotFound, "not_found")
}

func TestWebhookRetryEndpoint(t *testing.T) {
	t.Parallel()
	b := setup(t, withDeliverySchedule(testSchedule...))
	rc := newReceiver(t)
	rc.setHandle(func(*http.Request, int) int { return http.StatusBadRequest })
	subID := subscribe(t, b, rc, "/hook", "shipment.purchased")
	purchase(t, b)
	d := onlyDelivery(t, b, subID, "the delivery to fail", deliveryStatusIs(gen.WebhookDeliveryStatusFailed))
	path := "/api/v1/webhooks/" + subID + "/deliveries/" + d.Id + "/retry"

	gate := newReceiverGate(rc)
	rc.setHandle(gate.handle)
	r := b.do("POST", path, b.token, nil)
	if r.Status != http.StatusAccepted {
		t.Fatalf("retry: %d %s", r.Status, r.Body)
	}
	var queued gen.WebhookDelivery
	r.Decode(t, &queued)
	if queued.Id != d.Id || queued.Status != gen.WebhookDeliveryStatusPending || queued.Attempts != 1 ||
		len(queued.AttemptLog) != 1 || queued.NextAttemptAt == nil {
		t.Fatalf("queued = %+v", queued)
	}
	gate.waitArrival(t)
	// While that attempt is queued or in flight, another is refused.
	wantError(t, b.do("POST", path, b.token, nil), http.StatusConflict, "delivery_in_progress")
	gate.release <- http.StatusOK
	d = onlyDelivery(t, b, subID, "the retried delivery", deliveryStatusIs(gen.WebhookDeliveryStatusDelivered))
	if d.Attempts != 2 || !slices.Equal(attemptStatuses(d), []int{400, 200}) || d.NextAttemptAt != nil {
		t.Fatalf("retried delivery = %+v", d)
	}

	// Whatever its status: a delivered delivery is sent again.
	rc.setHandle(nil)
	if r := b.do("POST", path, b.token, nil); r.Status != http.StatusAccepted {
		t.Fatalf("retry delivered: %d %s", r.Status, r.Body)
	}
	d = onlyDelivery(t, b, subID, "the redelivery", func(d gen.WebhookDelivery) bool { return d.Attempts == 3 })
	if d.Status != gen.WebhookDeliveryStatusDelivered || !slices.Equal(attemptStatuses(d), []int{400, 200, 200}) {
		t.Fatalf("redelivered = %+v", d)
	}
	reqs := rc.verified(t, "/hook")
	if len(reqs) != 3 || reqs[2].Envelope["id"] != d.EventId {
		t.Fatalf("receiver got %d requests", len(reqs))
	}

	// A delivery of another subscription, an unknown one, another mode, another account.
	otherSub := subscribe(t, b, rc, "/other", "*")
	wantError(t, b.do("POST", "/api/v1/webhooks/"+otherSub+"/deliveries/"+d.Id+"/retry", b.token, nil), http.StatusNotFound, "not_found")
	wantError(t, b.do("POST", "/api/v1/webhooks/"+subID+"/deliveries/dlv_000000000000000000000000/retry", b.token, nil), http.StatusNotFound, "not_found")
	_, live := b.newToken(b.account.ID, "live", allScopes...)
	wantError(t, b.do("POST", path, live, nil), http.StatusForbidden, "wrong_mode")
	other := b.newAccount("Other", true)
	_, otherTok := b.newToken(other.ID, "test", allScopes...)
	wantError(t, b.do("POST", path, otherTok, nil), http.StatusNotFound, "not_found")
	// A deleted subscription's deliveries are gone with it.
	if r := b.do("DELETE", "/api/v1/webhooks/"+subID, b.token, nil); r.Status != http.StatusNoContent {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}
	wantError(t, b.do("POST", path, b.token, nil), http.StatusNotFound, "not_found")
}

func TestWebhookDeliveryLogPaging(t *testing.T) {
	t.Parallel()
	b := setup(t, withDeliverySchedule(testSchedule...))
	rc := newReceiver(t)
	subID := subscribe(t, b, rc, "/hook", "*")
	var sent []string
	for range 5 {
		r := b.do("POST", "/api/v1/webhooks/"+subID+"/test", b.token, nil)
		if r.Status != http.StatusAccepted {
			t.Fatalf("test: %d %s", r.Status, r.Body)
		}
		sent = append(sent, r.JSON(t)["id"].(string))
	}
	waitUntil(t, "five deliveries", func() bool {
		for _, d := range deliveries(t, b, subID) {
			if d.Status != gen.WebhookDeliveryStatusDelivered {
				return false
			}
		}
		return len(rc.requests("/hook")) == 5
	})

	var got []string
	var sizes []int
	query := "?limit=2"
	for {
		page := deliveriesWith(t, b, b.token, subID, query)
		sizes = append(sizes, len(page.Data))
		for _, d := range page.Data {
			if len(d.AttemptLog) != 1 || d.Attempts != 1 {
				t.Errorf("delivery %s: %+v", d.Id, d)
			}
			got = append(got, d.Id)
		}
		if page.NextCursor.IsNull() {
			break
		}
		query = "?limit=2&cursor=" + page.NextCursor.MustGet()
		if len(sizes) > 5 {
			t.Fatal("paging does not end")
		}
	}
	slices.Reverse(sent)
	if !slices.Equal(got, sent) || !slices.Equal(sizes, []int{2, 2, 1}) {
		t.Fatalf("pages %v of %v, want newest first %v", sizes, got, sent)
	}
	wantError(t, b.do("GET", "/api/v1/webhooks/"+subID+"/deliveries?cursor=nope", b.token, nil), http.StatusUnprocessableEntity, "invalid_field")
}

func TestWebhookDeliveryEventSummaries(t *testing.T) {
	t.Parallel()
	b := setup(t, withDeliverySchedule(testSchedule...))
	rc := newReceiver(t)
	gate := newReceiverGate(rc)
	rc.setHandle(func(r *http.Request, n int) int {
		switch r.URL.Path {
		case "/bad":
			return http.StatusBadRequest
		case "/slow":
			return gate.handle(r, n)
		}
		return http.StatusOK
	})
	ok := subscribe(t, b, rc, "/ok", "shipment.purchased")
	bad := subscribe(t, b, rc, "/bad", "shipment.purchased")
	subscribe(t, b, rc, "/slow", "shipment.purchased")
	purchase(t, b)

	gate.waitArrival(t)
	onlyDelivery(t, b, ok, "the ok delivery", deliveryStatusIs(gen.WebhookDeliveryStatusDelivered))
	onlyDelivery(t, b, bad, "the bad delivery", deliveryStatusIs(gen.WebhookDeliveryStatusFailed))
	ev := eventRecords(t, b, "?type=shipment.purchased")
	if len(ev) != 1 || ev[0].Deliveries != (gen.DeliverySummary{Total: 3, Pending: 1, Delivered: 1, Failed: 1}) {
		t.Fatalf("events = %+v", ev)
	}
	gate.release <- http.StatusOK
	waitUntil(t, "the slow delivery", func() bool {
		ev = eventRecords(t, b, "?type=shipment.purchased")
		return ev[0].Deliveries == gen.DeliverySummary{Total: 3, Delivered: 2, Failed: 1}
	})
	// Events no subscription asked for have an empty summary.
	for _, e := range eventRecords(t, b, "") {
		if e.Type != "shipment.purchased" && e.Deliveries != (gen.DeliverySummary{}) {
			t.Errorf("%s: %+v", e.Type, e.Deliveries)
		}
	}
}

func TestWebhookDeliverySSRFGuard(t *testing.T) {
	t.Parallel()
	b := setup(t, withDeliverySchedule(testSchedule...))
	rc := newReceiver(t)
	_, live := b.newToken(b.account.ID, "live", allScopes...)
	target := "https://" + rc.srv.Listener.Addr().String() + "/ssrf"

	// Submitting the address is refused outright...
	wantError(t, b.do("POST", "/api/v1/webhooks", live, map[string]any{"url": target, "events": []string{"*"}}), http.StatusUnprocessableEntity, "invalid_field")
	// ...so stand in for a host name that resolves to loopback only at
	// delivery time: the subscription is stored as it would have been.
	cipher, err := seal.NewCipher(bytes.Repeat([]byte{7}, 32)) // the bundle's key
	if err != nil {
		t.Fatal(err)
	}
	ciphertext, err := cipher.Encrypt("whsec_ssrf")
	if err != nil {
		t.Fatal(err)
	}
	now := b.clock.Now()
	sub := store.Subscription{ID: store.NewID("whk"), AccountID: b.account.ID, Mode: "live", URL: target, Enabled: true,
		EventsJSON: `["*"]`, SecretCiphertext: ciphertext, CreatedAt: now, UpdatedAt: now}
	if err := b.store.Tx(context.Background(), func(tx *store.Tx) error { return tx.InsertSubscription(context.Background(), &sub) }); err != nil {
		t.Fatal(err)
	}
	if r := b.do("POST", "/api/v1/webhooks/"+sub.ID+"/test", live, nil); r.Status != http.StatusAccepted {
		t.Fatalf("test: %d %s", r.Status, r.Body)
	}
	var d gen.WebhookDelivery
	waitUntil(t, "the live delivery to fail", func() bool {
		ds := deliveriesWith(t, b, live, sub.ID, "").Data
		if len(ds) == 1 {
			d = ds[0]
		}
		return len(ds) == 1 && d.Status == gen.WebhookDeliveryStatusFailed
	})
	if d.Attempts != 1 || d.AttemptLog[0].ResponseStatus != nil || d.AttemptLog[0].Error == nil ||
		!strings.Contains(*d.AttemptLog[0].Error, webhooks.ErrForbiddenAddress.Error()) {
		t.Fatalf("live delivery = %+v", d)
	}
	if n := rc.conns.Load(); n != 0 {
		t.Fatalf("the receiver on loopback accepted %d connections", n)
	}

	// Test mode reaches loopback (every other test) but not the rest of the
	// internal network, and a forbidden address is never retried.
	r := b.do("POST", "/api/v1/webhooks", b.token, map[string]any{"url": "http://169.254.169.254/latest/meta-data", "events": []string{"shipment.purchased"}})
	if r.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	metaID := r.JSON(t)["id"].(string)
	purchase(t, b)
	d = onlyDelivery(t, b, metaID, "the metadata delivery to fail", deliveryStatusIs(gen.WebhookDeliveryStatusFailed))
	if d.Attempts != 1 || d.AttemptLog[0].Error == nil || !strings.Contains(*d.AttemptLog[0].Error, webhooks.ErrForbiddenAddress.Error()) {
		t.Fatalf("metadata delivery = %+v", d)
	}
}

// TestWebhookDeliveryInFlightSurvivesRestart stops a server while an attempt
// is in flight and starts another on the same database file: the delivery
// is made by the second. (A hard kill leaves River's job running; River
// rescues it after RescueStuckJobsAfter, with the same outcome.)
func TestWebhookDeliveryInFlightSurvivesRestart(t *testing.T) {
	t.Parallel()
	dsn, docs := storetest.NewDatabase(t), t.TempDir()
	clock := fakeclock.New(time.Now().UTC())
	rc := newReceiver(t)
	arrived := make(chan struct{}, 1)
	rc.setHandle(func(r *http.Request, n int) int {
		if n == 1 {
			arrived <- struct{}{}
			select { // hold the first attempt until the sender goes away
			case <-r.Context().Done():
			case <-rc.done:
			}
			return http.StatusServiceUnavailable
		}
		return http.StatusOK
	})

	b1 := start(t, dsn, docs, clock, withDeliverySchedule(testSchedule...))
	acct := b1.newAccount("Acme", true)
	b1.account = acct
	b1.tokenID, b1.token = b1.newToken(acct.ID, "test", allScopes...)
	subID := subscribe(t, b1, rc, "/hook", "shipment.purchased")
	purchase(t, b1)
	select {
	case <-arrived:
	case <-time.After(10 * time.Second):
		t.Fatal("the first attempt never reached the receiver")
	}
	_ = b1.stop(100 * time.Millisecond) // running jobs are cancelled after 100 ms; reports the cut-short stop

	b2 := start(t, dsn, docs, clock, withDeliverySchedule(testSchedule...))
	b2.account, b2.token = acct, b1.token
	d := onlyDelivery(t, b2, subID, "the delivery after the restart", deliveryStatusIs(gen.WebhookDeliveryStatusDelivered))
	// The cut-off attempt was not the receiver's failure and is not counted.
	if d.Attempts != 1 || !slices.Equal(attemptStatuses(d), []int{200}) {
		t.Fatalf("delivery = %+v", d)
	}
	reqs := rc.verified(t, "/hook")
	if len(reqs) != 2 || reqs[0].Envelope["id"] != d.EventId || reqs[1].Envelope["id"] != d.EventId {
		t.Fatalf("receiver got %d requests (want the cut-off one and the delivery, same event)", len(reqs))
	}
}

// The delivery log says what happened and what will: a test event answered
// 429 is failed and says it is not retried; a manual retry in the middle of the
// automatic schedule is an extra attempt that leaves the schedule as it was.
func TestWebhookDeliveryLogSaysWhatHappens(t *testing.T) {
	t.Parallel()
	// A long wait after the first automatic attempt, so the manual retry lands inside the schedule.
	b := setup(t, withDeliverySchedule(time.Hour, testSchedule[1], testSchedule[2], testSchedule[3]))
	rc := newReceiver(t)
	rc.setHandle(func(r *http.Request, _ int) int { return http.StatusTooManyRequests })
	subID := subscribe(t, b, rc, "/hook", "shipment.purchased")

	wantStatus(t, b.do("POST", "/api/v1/webhooks/"+subID+"/test", b.token, nil), http.StatusAccepted)
	d := onlyDelivery(t, b, subID, "the test event to fail", deliveryStatusIs(gen.WebhookDeliveryStatusFailed))
	a := d.AttemptLog[0]
	if a.Error == nil || !strings.Contains(*a.Error, "429") || !strings.Contains(*a.Error, "not retried") || strings.Contains(*a.Error, "; retried") {
		t.Fatalf("test event attempt error %v, want the 429 and that it is not retried", deref(a.Error))
	}
	if a.AutomaticAttempt != nil || d.AutomaticAttempts == nil || *d.AutomaticAttempts != 0 || d.NextAttemptAt != nil {
		t.Fatalf("test event delivery %+v: want a manual attempt, no automatic ones, nothing next", d)
	}

	// An event's delivery: automatic attempt 1 answered 429, then a manual retry.
	purchase(t, b)
	var ev gen.WebhookDelivery
	waitUntil(t, "the purchase's first attempt", func() bool {
		for _, x := range deliveries(t, b, subID) {
			if x.EventType == "shipment.purchased" && x.Attempts == 1 {
				ev = x
				return true
			}
		}
		return false
	})
	first := ev.AttemptLog[0]
	if first.AutomaticAttempt == nil || *first.AutomaticAttempt != 1 || first.Error == nil || !strings.Contains(*first.Error, "automatic attempt 2 of 5") {
		t.Fatalf("first attempt %+v (%s): want automatic attempt 1 announcing attempt 2 of 5", first, deref(first.Error))
	}
	scheduled := *ev.NextAttemptAt
	wantStatus(t, b.do("POST", "/api/v1/webhooks/"+subID+"/deliveries/"+ev.Id+"/retry", b.token, nil), http.StatusAccepted)
	waitUntil(t, "the manual retry", func() bool {
		for _, x := range deliveries(t, b, subID) {
			if x.Id == ev.Id && x.Attempts == 2 {
				ev = x
				return true
			}
		}
		return false
	})
	retry := ev.AttemptLog[1]
	if retry.AutomaticAttempt != nil || retry.Error == nil || !strings.Contains(*retry.Error, "manual attempts are not retried; automatic attempt 2 of 5") {
		t.Fatalf("manual attempt %+v (%s)", retry, deref(retry.Error))
	}
	if ev.Status != gen.WebhookDeliveryStatusPending || *ev.AutomaticAttempts != 1 || ev.NextAttemptAt == nil || !ev.NextAttemptAt.Equal(scheduled) {
		t.Fatalf("after the retry: status %s, automatic %d, next %v; want pending, 1, %v unchanged", ev.Status, *ev.AutomaticAttempts, ev.NextAttemptAt, scheduled)
	}
}

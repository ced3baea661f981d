package server_test

// Tests of idempotency keys through real HTTP: replay byte for byte,
// collisions, scopes, concurrency, responses that are not kept (402, 4xx),
// expiry by the clock, the purge job, and a key still in progress.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/server"
)

func keyedLabelBody(key string) map[string]any {
	body := map[string]any{
		"fromAddress": map[string]any{"name": "Shop", "street1": "1 Market St", "city": "San Francisco", "state": "CA", "zip": "94105", "country": "US"},
		"toAddress":   map[string]any{"name": "Ada", "street1": "350 Fifth Avenue", "city": "New York", "state": "NY", "zip": "10118", "country": "US"},
		"parcel":      map[string]any{"weightOz": 32},
	}
	if key != "" {
		body["idempotencyKey"] = key
	}
	return body
}

func keyedAddressBody(key, city string) map[string]any {
	return map[string]any{"street1": "1 Main St", "city": city, "state": "TX", "zip": "78701", "country": "US", "idempotencyKey": key}
}

func keyedWebhookBody(key, url string) map[string]any {
	return map[string]any{"url": url, "events": []string{"*"}, "idempotencyKey": key}
}

// countItems is the number of items on the first page of a list.
func countItems(t *testing.T, b *bundle, token, path string) int {
	t.Helper()
	r := b.doT(t, "GET", path+"?limit=100", token, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, r.Status, r.Body)
	}
	var page struct {
		Data []map[string]any `json:"data"`
	}
	r.Decode(t, &page)
	return len(page.Data)
}

// wantReplay checks that again is first, replayed.
func wantReplay(t *testing.T, first, again response) {
	t.Helper()
	if first.Header.Get("Idempotent-Replayed") != "" {
		t.Errorf("the original response says Idempotent-Replayed: %q", first.Header.Get("Idempotent-Replayed"))
	}
	got := []any{again.Status, again.Header.Get("Content-Type"), again.Header.Get("Idempotent-Replayed"), string(again.Body)}
	want := []any{first.Status, first.Header.Get("Content-Type"), "true", string(first.Body)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("replay: status, Content-Type, Idempotent-Replayed, body (-want +got):\n%s", diff)
	}
	if again.Header.Get("X-Request-Id") == first.Header.Get("X-Request-Id") {
		t.Errorf("the replay reuses the original X-Request-Id")
	}
}

func TestIdempotencyReplay(t *testing.T) {
	t.Parallel()

	t.Run("create label", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		first := b.doT(t, "POST", "/api/v1/labels/create", b.token, keyedLabelBody("order-1"))
		if first.Status != http.StatusAccepted {
			t.Fatalf("create: %d %s", first.Status, first.Body)
		}
		again := b.doT(t, "POST", "/api/v1/labels/create", b.token, keyedLabelBody("order-1"))
		wantReplay(t, first, again)
		if n := countItems(t, b, b.token, "/api/v1/labels"); n != 1 {
			t.Fatalf("shipments = %d, want 1", n)
		}
	})

	t.Run("webhook keeps its signing secret", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		first := b.doT(t, "POST", "/api/v1/webhooks", b.token, keyedWebhookBody("hook-1", "https://example.com/h"))
		if first.Status != http.StatusCreated || first.JSON(t)["signingSecret"] == nil {
			t.Fatalf("create: %d %s", first.Status, first.Body)
		}
		wantReplay(t, first, b.doT(t, "POST", "/api/v1/webhooks", b.token, keyedWebhookBody("hook-1", "https://example.com/h")))
		if n := countItems(t, b, b.token, "/api/v1/webhooks"); n != 1 {
			t.Fatalf("subscriptions = %d, want 1", n)
		}
	})

	t.Run("address, same JSON written differently", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		first := b.doT(t, "POST", "/api/v1/addresses", b.token,
			`{"street1":"1 Main St","city":"Austin","state":"TX","zip":"78701","country":"US","idempotencyKey":"adr-1"}`)
		if first.Status != http.StatusCreated {
			t.Fatalf("create: %d %s", first.Status, first.Body)
		}
		// other key order, whitespace and escapes: the same canonical JSON
		again := b.doT(t, "POST", "/api/v1/addresses", b.token,
			"{\n  \"idempotencyKey\": \"adr-1\",\n  \"country\": \"US\", \"zip\": \"78701\",\n  \"state\": \"TX\", \"city\": \"Aus\\u0074in\", \"street1\": \"1 Main St\"\n}\n")
		wantReplay(t, first, again)
		if n := countItems(t, b, b.token, "/api/v1/addresses"); n != 1 {
			t.Fatalf("addresses = %d, want 1", n)
		}
	})

	t.Run("refund, scoped to the shipment", func(t *testing.T) {
		t.Parallel()
		b := setup(t, withoutRateLimits()) // the test polls
		var ids []string
		for range 2 {
			r := b.doT(t, "POST", "/api/v1/labels/create", b.token, keyedLabelBody(""))
			if r.Status != http.StatusAccepted {
				t.Fatalf("create: %d %s", r.Status, r.Body)
			}
			ids = append(ids, r.JSON(t)["id"].(string))
		}
		for _, id := range ids {
			waitForStatus(t, b, b.token, id, "purchased")
		}
		refund := func(id string) response {
			return b.doT(t, "POST", "/api/v1/labels/"+id+"/refund", b.token, `{"idempotencyKey":"void-1"}`)
		}
		first := refund(ids[0])
		if first.Status != http.StatusAccepted {
			t.Fatalf("refund: %d %s", first.Status, first.Body)
		}
		// without the key, a second refund is a conflict; with it, the original 202
		if r := b.doT(t, "POST", "/api/v1/labels/"+ids[0]+"/refund", b.token, nil); r.Status != http.StatusConflict {
			t.Fatalf("second refund without the key: %d %s", r.Status, r.Body) // refund_in_progress or already_voided
		}
		wantReplay(t, first, refund(ids[0]))
		// the same key on another shipment is another scope
		other := refund(ids[1])
		if other.Status != http.StatusAccepted || other.Header.Get("Idempotent-Replayed") != "" || other.JSON(t)["id"] != ids[1] {
			t.Fatalf("refund of the second shipment with the same key: %d %q %s", other.Status, other.Header.Get("Idempotent-Replayed"), other.Body)
		}
	})
}

func TestIdempotencyCollision(t *testing.T) {
	t.Parallel()
	b := setup(t)
	first := b.doT(t, "POST", "/api/v1/addresses", b.token, keyedAddressBody("k", "Austin"))
	if first.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", first.Status, first.Body)
	}
	r := b.doT(t, "POST", "/api/v1/addresses", b.token, keyedAddressBody("k", "Dallas"))
	wantError(t, r, http.StatusConflict, "idempotency_key_collision")
	if r.Header.Get("Idempotent-Replayed") != "" {
		t.Errorf("a collision says Idempotent-Replayed")
	}
	// an added field is another body too
	b1 := `{"street1":"1 Main St","city":"Austin","state":"TX","zip":"78701","country":"US","residential":true,"idempotencyKey":"k"}`
	wantError(t, b.doT(t, "POST", "/api/v1/addresses", b.token, b1), http.StatusConflict, "idempotency_key_collision")
	if n := countItems(t, b, b.token, "/api/v1/addresses"); n != 1 {
		t.Fatalf("addresses = %d, want 1", n)
	}

	// The scope is account, mode and endpoint: elsewhere the key is new.
	other := b.newAccount("Other", true)
	_, otherToken := b.newToken(other.ID, "test", allScopes...)
	_, liveToken := b.newToken(b.account.ID, "live", allScopes...)
	for name, req := range map[string]struct {
		token, path string
		body        any
	}{
		"another account":  {otherToken, "/api/v1/addresses", keyedAddressBody("k", "Dallas")},
		"the other mode":   {liveToken, "/api/v1/addresses", keyedAddressBody("k", "Dallas")},
		"another endpoint": {b.token, "/api/v1/webhooks", keyedWebhookBody("k", "https://example.com/k")},
	} {
		r := b.doT(t, "POST", req.path, req.token, req.body)
		if r.Status != http.StatusCreated || r.Header.Get("Idempotent-Replayed") != "" {
			t.Errorf("%s: %d, replayed %q: %s", name, r.Status, r.Header.Get("Idempotent-Replayed"), r.Body)
		}
	}
}

// 50 simultaneous creates with one key buy one label; every caller gets its response.
func TestIdempotencyConcurrentCreates(t *testing.T) {
	t.Parallel()
	b := setup(t, withRateLimits(map[server.Group]server.RateLimit{server.GroupBuys: {Rate: 1000, Burst: 1000}}))
	const n = 50
	var (
		wg    sync.WaitGroup
		start = make(chan struct{})
		out   = make([]response, n)
		errs  = make([]error, n)
	)
	for i := range n {
		wg.Go(func() {
			<-start
			out[i], errs[i] = b.send("POST", "/api/v1/labels/create", b.token, keyedLabelBody("burst-1"))
		})
	}
	close(start)
	wg.Wait()
	var originals []response
	for i, r := range out {
		if errs[i] != nil {
			t.Fatalf("request %d: %v", i, errs[i])
		}
		if r.Status != http.StatusAccepted {
			t.Fatalf("request %d: %d %s", i, r.Status, r.Body)
		}
		if r.Header.Get("Idempotent-Replayed") != "true" {
			originals = append(originals, r)
		}
	}
	if len(originals) != 1 {
		t.Fatalf("%d responses were not replays, want 1", len(originals))
	}
	for i, r := range out {
		if !bytes.Equal(r.Body, originals[0].Body) {
			t.Fatalf("response %d differs:\n%s\n%s", i, r.Body, originals[0].Body)
		}
	}
	if got := countItems(t, b, b.token, "/api/v1/labels"); got != 1 {
		t.Fatalf("shipments = %d, want 1", got)
	}
}

// 402 is not kept: the same key works once a payment method is on file.
func TestIdempotencyPaymentRequiredThenRetry(t *testing.T) {
	t.Parallel()
	b := setup(t)
	acct := b.newAccount("x", false)
	_, token := b.newToken(acct.ID, "test", allScopes...)
	create := func() response { return b.doT(t, "POST", "/api/v1/labels/create", token, keyedLabelBody("pay-1")) }
	for range 2 {
		r := create()
		wantError(t, r, http.StatusPaymentRequired, "no_payment_method")
		if r.Header.Get("Idempotent-Replayed") != "" {
			t.Fatalf("a 402 was replayed")
		}
	}
	if err := b.app.Accounts.SetPaymentMethod(context.Background(), acct.ID, true); err != nil {
		t.Fatal(err)
	}
	first := create()
	if first.Status != http.StatusAccepted {
		t.Fatalf("after adding a payment method: %d %s", first.Status, first.Body)
	}
	wantReplay(t, first, create())
	if n := countItems(t, b, token, "/api/v1/labels"); n != 1 {
		t.Fatalf("shipments = %d, want 1", n)
	}
}

// Only 2xx responses are kept; after a 4xx the key is free, even for another body.
func TestIdempotencyErrorsNotStored(t *testing.T) {
	t.Parallel()
	b := setup(t)
	post := func(body any) response { return b.doT(t, "POST", "/api/v1/webhooks", b.token, body) }

	// 422 from validation (events must be an array), then a valid body with the key
	wantError(t, post(map[string]any{"url": "https://example.com/a", "events": "*", "idempotencyKey": "v"}), http.StatusUnprocessableEntity, "invalid_field")
	if r := post(keyedWebhookBody("v", "https://example.com/a")); r.Status != http.StatusCreated {
		t.Fatalf("after a validation error: %d %s", r.Status, r.Body)
	}
	// 422 from the handler
	bad := keyedWebhookBody("h", "https://example.com/b")
	bad["events"] = []string{"shipment.teleported"}
	wantError(t, post(bad), http.StatusUnprocessableEntity, "invalid_event_type")
	if r := post(keyedWebhookBody("h", "https://example.com/b")); r.Status != http.StatusCreated {
		t.Fatalf("after a handler 422: %d %s", r.Status, r.Body)
	}
	// 409 from the handler: the request runs again once the conflict is gone
	dup := keyedWebhookBody("d", "https://example.com/a")
	wantError(t, post(dup), http.StatusConflict, "duplicate_endpoint")
	var list struct {
		Data []struct {
			ID  string `json:"id"`
			URL string `json:"url"`
		} `json:"data"`
	}
	b.doT(t, "GET", "/api/v1/webhooks", b.token, nil).Decode(t, &list)
	for _, w := range list.Data {
		if w.URL == "https://example.com/a" {
			if r := b.doT(t, "DELETE", "/api/v1/webhooks/"+w.ID, b.token, nil); r.Status != http.StatusNoContent {
				t.Fatalf("delete: %d %s", r.Status, r.Body)
			}
		}
	}
	r := post(dup)
	if r.Status != http.StatusCreated || r.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("after the conflict was resolved: %d %q %s", r.Status, r.Header.Get("Idempotent-Replayed"), r.Body)
	}
	n, err := b.store.CountIdempotencyKeys(context.Background())
	if err != nil || n != 3 {
		t.Fatalf("stored keys = %d (%v), want 3 (only the 201s)", n, err)
	}
}

// A key is kept 7 days by the clock; then the same key makes a new resource.
func TestIdempotencyKeyExpiry(t *testing.T) {
	t.Parallel()
	b := setup(t)
	post := func(city string) response {
		return b.doT(t, "POST", "/api/v1/addresses", b.token, keyedAddressBody("week", city))
	}
	first := post("Austin")
	if first.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", first.Status, first.Body)
	}
	b.clock.Advance(7*24*time.Hour - time.Second)
	wantError(t, post("Dallas"), http.StatusConflict, "idempotency_key_collision")
	wantReplay(t, first, post("Austin"))

	b.clock.Advance(time.Second)
	r := post("Dallas")
	if r.Status != http.StatusCreated || r.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("after 7 days: %d, replayed %q, %s", r.Status, r.Header.Get("Idempotent-Replayed"), r.Body)
	}
	if r.JSON(t)["id"] == first.JSON(t)["id"] || r.JSON(t)["city"] != "Dallas" {
		t.Fatalf("not a new address: %s", r.Body)
	}
	wantReplay(t, r, post("Dallas")) // and the key now holds the new response
	if n := countItems(t, b, b.token, "/api/v1/addresses"); n != 2 {
		t.Fatalf("addresses = %d, want 2", n)
	}
}

// The body limit (limitBody) answers 413 before anything reads 2 MiB.
func TestIdempotencyBodyLimit(t *testing.T) {
	t.Parallel()
	b := setup(t)
	big := `{"idempotencyKey":"big","pad":"` + strings.Repeat("x", 2<<20) + `"}`
	for name, body := range map[string]io.Reader{
		"with Content-Length": strings.NewReader(big),
		"chunked":             io.MultiReader(strings.NewReader(big)), // length unknown to the client
	} {
		req, err := http.NewRequest("POST", b.http.URL+"/api/v1/labels/create", body)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+b.token)
		res, err := b.http.Client().Do(req)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		raw, _ := io.ReadAll(res.Body)
		res.Body.Close()
		wantError(t, response{Status: res.StatusCode, Header: res.Header, Body: raw}, http.StatusRequestEntityTooLarge, "payload_too_large")
	}
	if n, err := b.store.CountIdempotencyKeys(context.Background()); err != nil || n != 0 {
		t.Fatalf("keys = %d (%v), want 0", n, err)
	}
}

// lossyWriter fails every write, as a connection that broke after the
// request was sent would: the response is lost after the create committed.
type lossyWriter struct{ http.ResponseWriter }

func (lossyWriter) Write([]byte) (int, error) { return 0, errors.New("connection reset by peer") }

// loseFirstResponse makes the first response of every path (after its
// commit) fail to reach the client.
func loseFirstResponse(lost *sync.Map) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if _, seen := lost.LoadOrStore(r.URL.Path, true); !seen {
				next.ServeHTTP(lossyWriter{w}, r)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// A create whose response was lost after its commit is replayed to the
// retry, for every idempotent create: the retry learns the resource it made,
// and nothing is made twice.
func TestIdempotencyLostResponseIsReplayed(t *testing.T) {
	t.Parallel()
	b := setup(t, withoutRateLimits())
	lost := &sync.Map{}
	lossy := httptest.NewServer(loseFirstResponse(lost)(b.app.Handler()))
	defer lossy.Close()
	send := func(path string, body any) (response, error) {
		raw, _ := json.Marshal(body)
		req, _ := http.NewRequest("POST", lossy.URL+path, bytes.NewReader(raw))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+b.token)
		res, err := lossy.Client().Do(req)
		if err != nil {
			return response{}, err
		}
		defer res.Body.Close()
		data, err := io.ReadAll(res.Body)
		return response{Status: res.StatusCode, Header: res.Header, Body: data}, err
	}
	shipment := createLabel(t, b, b.token, labelBody())
	waitForStatus(t, b, b.token, shipment.ID, "purchased")
	cases := []struct {
		name, path, list string
		body             map[string]any
	}{
		{"label", "/api/v1/labels/create", "/api/v1/labels", keyedLabelBody("lost-label")},
		{"address", "/api/v1/addresses", "/api/v1/addresses", keyedAddressBody("lost-address", "Austin")},
		{"webhook", "/api/v1/webhooks", "/api/v1/webhooks", keyedWebhookBody("lost-webhook", "https://example.com/lost")},
		{"refund", "/api/v1/labels/" + shipment.ID + "/refund", "", map[string]any{"idempotencyKey": "lost-refund"}},
	}
	for _, tc := range cases {
		before := 0
		if tc.list != "" {
			before = countItems(t, b, b.token, tc.list)
		}
		first, err := send(tc.path, tc.body)
		if err == nil && len(first.Body) > 0 {
			t.Fatalf("%s: the first response reached the client: %d %s", tc.name, first.Status, first.Body)
		}
		again, err := send(tc.path, tc.body)
		if err != nil {
			t.Fatalf("%s: retry: %v", tc.name, err)
		}
		if again.Status/100 != 2 || again.Header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("%s: retry after a lost response: %d replayed %q %s", tc.name, again.Status, again.Header.Get("Idempotent-Replayed"), again.Body)
		}
		if tc.list != "" {
			if n := countItems(t, b, b.token, tc.list); n != before+1 {
				t.Fatalf("%s: %d items after the retry, want %d: the create ran twice or never", tc.name, n, before+1)
			}
		}
		third, err := send(tc.path, tc.body)
		if err != nil || !bytes.Equal(third.Body, again.Body) {
			t.Fatalf("%s: replays differ: %s / %s (%v)", tc.name, again.Body, third.Body, err)
		}
	}
	if sh := getLabel(t, b, b.token, shipment.ID); sh.Status != "void_requested" && sh.Status != "voided" {
		t.Fatalf("the refund did not happen: %s", sh.Status)
	}
}

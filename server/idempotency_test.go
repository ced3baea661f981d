package server

// Tests of idempotency keys through real HTTP: replay byte for byte,
// collisions, scopes, concurrency, responses that are not kept (402, 4xx),
// expiry by the clock, the purge job, and a key still in progress.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jmoiron/sqlx"
	"github.com/labstack/echo/v4"
	"github.com/riverqueue/river"

	"github.com/shipd-dev/shipd/store"
)

func idemLabelBody(key string) map[string]any {
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

func idemAddressBody(key, city string) map[string]any {
	return map[string]any{"street1": "1 Main St", "city": city, "state": "TX", "zip": "78701", "country": "US", "idempotencyKey": key}
}

func idemWebhookBody(key, url string) map[string]any {
	return map[string]any{"url": url, "events": []string{"*"}, "idempotencyKey": key}
}

// idemCount is the number of items on the first page of a list.
func idemCount(t *testing.T, b *bundle, token, path string) int {
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

func idemWaitStatus(t *testing.T, b *bundle, id, status string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		r := b.doT(t, "GET", "/api/v1/labels/"+id, b.token, nil)
		if got := r.JSON(t)["status"]; got == status {
			return
		} else if time.Now().After(deadline) {
			t.Fatalf("shipment %s: status %v, want %s", id, got, status)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestIdempotencyReplay(t *testing.T) {
	t.Parallel()

	t.Run("create label", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		first := b.doT(t, "POST", "/api/v1/labels/create", b.token, idemLabelBody("order-1"))
		if first.Status != http.StatusAccepted {
			t.Fatalf("create: %d %s", first.Status, first.Body)
		}
		again := b.doT(t, "POST", "/api/v1/labels/create", b.token, idemLabelBody("order-1"))
		wantReplay(t, first, again)
		if n := idemCount(t, b, b.token, "/api/v1/labels"); n != 1 {
			t.Fatalf("shipments = %d, want 1", n)
		}
	})

	t.Run("webhook keeps its signing secret", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		first := b.doT(t, "POST", "/api/v1/webhooks", b.token, idemWebhookBody("hook-1", "https://example.com/h"))
		if first.Status != http.StatusCreated || first.JSON(t)["signingSecret"] == nil {
			t.Fatalf("create: %d %s", first.Status, first.Body)
		}
		wantReplay(t, first, b.doT(t, "POST", "/api/v1/webhooks", b.token, idemWebhookBody("hook-1", "https://example.com/h")))
		if n := idemCount(t, b, b.token, "/api/v1/webhooks"); n != 1 {
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
		if n := idemCount(t, b, b.token, "/api/v1/addresses"); n != 1 {
			t.Fatalf("addresses = %d, want 1", n)
		}
	})

	t.Run("refund, scoped to the shipment", func(t *testing.T) {
		t.Parallel()
		b := setup(t, withoutRateLimits()) // the test polls
		var ids []string
		for range 2 {
			r := b.doT(t, "POST", "/api/v1/labels/create", b.token, idemLabelBody(""))
			if r.Status != http.StatusAccepted {
				t.Fatalf("create: %d %s", r.Status, r.Body)
			}
			ids = append(ids, r.JSON(t)["id"].(string))
		}
		for _, id := range ids {
			idemWaitStatus(t, b, id, "purchased")
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
	first := b.doT(t, "POST", "/api/v1/addresses", b.token, idemAddressBody("k", "Austin"))
	if first.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", first.Status, first.Body)
	}
	r := b.doT(t, "POST", "/api/v1/addresses", b.token, idemAddressBody("k", "Dallas"))
	wantError(t, r, http.StatusConflict, "idempotency_key_collision")
	if r.Header.Get("Idempotent-Replayed") != "" {
		t.Errorf("a collision says Idempotent-Replayed")
	}
	// an added field is another body too
	b1 := `{"street1":"1 Main St","city":"Austin","state":"TX","zip":"78701","country":"US","residential":true,"idempotencyKey":"k"}`
	wantError(t, b.doT(t, "POST", "/api/v1/addresses", b.token, b1), http.StatusConflict, "idempotency_key_collision")
	if n := idemCount(t, b, b.token, "/api/v1/addresses"); n != 1 {
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
		"another account":  {otherToken, "/api/v1/addresses", idemAddressBody("k", "Dallas")},
		"the other mode":   {liveToken, "/api/v1/addresses", idemAddressBody("k", "Dallas")},
		"another endpoint": {b.token, "/api/v1/webhooks", idemWebhookBody("k", "https://example.com/k")},
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
	b := setup(t, withRateLimits(map[Group]RateLimit{GroupBuys: {Rate: 1000, Burst: 1000}}))
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
			out[i], errs[i] = b.send("POST", "/api/v1/labels/create", b.token, idemLabelBody("burst-1"))
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
	if got := idemCount(t, b, b.token, "/api/v1/labels"); got != 1 {
		t.Fatalf("shipments = %d, want 1", got)
	}
}

// 402 is not kept: the same key works once a payment method is on file.
func TestIdempotencyPaymentRequiredThenRetry(t *testing.T) {
	t.Parallel()
	b := setup(t)
	acct := b.newAccount("x", false)
	_, token := b.newToken(acct.ID, "test", allScopes...)
	create := func() response { return b.doT(t, "POST", "/api/v1/labels/create", token, idemLabelBody("pay-1")) }
	for range 2 {
		r := create()
		wantError(t, r, http.StatusPaymentRequired, "no_payment_method")
		if r.Header.Get("Idempotent-Replayed") != "" {
			t.Fatalf("a 402 was replayed")
		}
	}
	if err := b.store.SetPaymentMethod(context.Background(), acct.ID, true); err != nil {
		t.Fatal(err)
	}
	first := create()
	if first.Status != http.StatusAccepted {
		t.Fatalf("after adding a payment method: %d %s", first.Status, first.Body)
	}
	wantReplay(t, first, create())
	if n := idemCount(t, b, token, "/api/v1/labels"); n != 1 {
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
	if r := post(idemWebhookBody("v", "https://example.com/a")); r.Status != http.StatusCreated {
		t.Fatalf("after a validation error: %d %s", r.Status, r.Body)
	}
	// 422 from the handler
	bad := idemWebhookBody("h", "https://example.com/b")
	bad["events"] = []string{"shipment.teleported"}
	wantError(t, post(bad), http.StatusUnprocessableEntity, "invalid_event_type")
	if r := post(idemWebhookBody("h", "https://example.com/b")); r.Status != http.StatusCreated {
		t.Fatalf("after a handler 422: %d %s", r.Status, r.Body)
	}
	// 409 from the handler: the request runs again once the conflict is gone
	dup := idemWebhookBody("d", "https://example.com/a")
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
		return b.doT(t, "POST", "/api/v1/addresses", b.token, idemAddressBody("week", city))
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
	if n := idemCount(t, b, b.token, "/api/v1/addresses"); n != 2 {
		t.Fatalf("addresses = %d, want 2", n)
	}
}

// The purge job deletes keys older than 7 days and nothing younger.
func TestIdempotencyPurge(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	for i := range 3 {
		if r := b.doT(t, "POST", "/api/v1/addresses", b.token, idemAddressBody(fmt.Sprint("old-", i), "Austin")); r.Status != http.StatusCreated {
			t.Fatalf("create: %d %s", r.Status, r.Body)
		}
	}
	b.clock.Advance(3 * 24 * time.Hour)
	if r := b.doT(t, "POST", "/api/v1/addresses", b.token, idemAddressBody("young", "Austin")); r.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	b.clock.Advance(4*24*time.Hour - time.Nanosecond)
	if n, err := b.server.purgeIdempotencyKeys(ctx); err != nil || n != 0 {
		t.Fatalf("purge before 7 days: %d, %v", n, err)
	}
	b.clock.Advance(time.Nanosecond)

	// through the worker, as the periodic job runs it
	workers := river.NewWorkers()
	b.server.registerIdempotencyWorkers(workers)
	if jobs := b.server.idempotencyPeriodicJobs(); len(jobs) != 1 {
		t.Fatalf("periodic jobs: %d", len(jobs))
	}
	w := &purgeIdempotencyKeysWorker{s: b.server}
	if err := w.Work(ctx, &river.Job[purgeIdempotencyKeysArgs]{}); err != nil {
		t.Fatal(err)
	}
	if n, err := b.store.CountIdempotencyKeys(ctx); err != nil || n != 1 {
		t.Fatalf("keys left = %d (%v), want 1", n, err)
	}
	if n, err := b.server.purgeIdempotencyKeys(ctx); err != nil || n != 0 {
		t.Fatalf("second purge: %d, %v", n, err)
	}
}

// idemClaim puts an in-progress row for a request body, as a concurrent request would.
func idemClaim(t *testing.T, b *bundle, path, body, owner string) store.IdempotencyScope {
	t.Helper()
	key, sum, err := canonicalHash([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	sc := store.IdempotencyScope{AccountID: b.account.ID, Mode: "test", Endpoint: "POST " + path, Key: key}
	now := b.clock.Now()
	err = b.store.Tx(context.Background(), func(tx *sqlx.Tx) error {
		return store.ClaimIdempotencyKey(context.Background(), tx, sc, sum[:], owner, now, now.Add(-idempotencyRetention), now.Add(-idempotencyAbandonAfter))
	})
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// A request finding its key in progress waits: it replays the response once
// stored, runs itself once the key is released, and after the wait limit gets
// 409 idempotency_key_in_use; a key whose request died is taken over.
func TestIdempotencyKeyInProgress(t *testing.T) {
	t.Parallel()
	wait := IdempotencyWait{Poll: 5 * time.Millisecond, Limit: time.Second}
	b := setup(t, func(c *Config) { c.IdempotencyWait = wait })
	const path = "/api/v1/addresses"
	body := `{"street1":"1 Main St","city":"Austin","state":"TX","zip":"78701","country":"US","idempotencyKey":"busy"}`
	ctx := context.Background()

	t.Run("waits, then replays", func(t *testing.T) {
		sc := idemClaim(t, b, path, body, "other-request")
		done := make(chan response, 1)
		go func() {
			r, _ := b.send("POST", path, b.token, body)
			done <- r
		}()
		time.Sleep(50 * time.Millisecond)
		stored := []byte(`{"id":"adr_stored"}` + "\n")
		if err := b.store.Tx(ctx, func(tx *sqlx.Tx) error {
			return store.CompleteIdempotencyKey(ctx, tx, sc, "other-request", http.StatusCreated, "application/json; charset=UTF-8", stored, b.clock.Now())
		}); err != nil {
			t.Fatal(err)
		}
		r := <-done
		got := []any{r.Status, r.Header.Get("Content-Type"), r.Header.Get("Idempotent-Replayed"), string(r.Body)}
		if diff := cmp.Diff([]any{201, "application/json; charset=UTF-8", "true", string(stored)}, got); diff != "" {
			t.Fatalf("waiting request (-want +got):\n%s", diff)
		}
		b.clock.Advance(idempotencyRetention) // expire it for the next subtest
	})

	t.Run("waits, then runs when released", func(t *testing.T) {
		sc := idemClaim(t, b, path, body, "failing-request")
		done := make(chan response, 1)
		go func() {
			r, _ := b.send("POST", path, b.token, body)
			done <- r
		}()
		time.Sleep(50 * time.Millisecond)
		if err := b.store.Tx(ctx, func(tx *sqlx.Tx) error { return store.ReleaseIdempotencyKey(ctx, tx, sc, "failing-request") }); err != nil {
			t.Fatal(err)
		}
		r := <-done
		if r.Status != http.StatusCreated || r.Header.Get("Idempotent-Replayed") != "" {
			t.Fatalf("after the release: %d %q %s", r.Status, r.Header.Get("Idempotent-Replayed"), r.Body)
		}
		b.clock.Advance(idempotencyRetention)
	})

	t.Run("in use after the wait limit; abandoned keys are taken over", func(t *testing.T) {
		idemClaim(t, b, path, body, "stuck-request")
		started := time.Now()
		r := b.doT(t, "POST", path, b.token, body)
		wantError(t, r, http.StatusConflict, "idempotency_key_in_use")
		if waited := time.Since(started); waited < wait.Limit {
			t.Errorf("answered after %v, before the wait limit %v", waited, wait.Limit)
		}
		if r.Header.Get("Retry-After") != "1" {
			t.Errorf("Retry-After = %q, want 1", r.Header.Get("Retry-After"))
		}
		// a different body is a collision at once, in progress or not
		wantError(t, b.doT(t, "POST", path, b.token, strings.Replace(body, "Austin", "Dallas", 1)), http.StatusConflict, "idempotency_key_collision")
		b.clock.Advance(idempotencyAbandonAfter)
		r = b.doT(t, "POST", path, b.token, body)
		if r.Status != http.StatusCreated {
			t.Fatalf("abandoned key: %d %s", r.Status, r.Body)
		}
	})
}

// A handler that panics (answered 500) releases its key.
func TestIdempotencyPanicReleasesKey(t *testing.T) {
	t.Parallel()
	b := setup(t)
	s := b.server
	p := &principal{TokenID: b.tokenID, AccountID: b.account.ID, Mode: "test", Scopes: allScopes}
	calls := 0
	e := echo.New()
	e.HTTPErrorHandler = func(err error, c echo.Context) { s.writeError(c, err) }
	e.Use(s.requestID, s.recoverPanics, func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			c.SetRequest(c.Request().WithContext(withPrincipal(c.Request().Context(), p)))
			return next(c)
		}
	}, s.idempotency)
	e.POST(BasePath+"/webhooks", func(c echo.Context) error {
		if calls++; calls == 1 {
			panic("boom")
		}
		return c.JSON(http.StatusCreated, map[string]any{"call": calls})
	})
	send := func() *httptest.ResponseRecorder {
		req := httptest.NewRequest("POST", BasePath+"/webhooks", strings.NewReader(`{"url":"https://example.com/p","events":["*"],"idempotencyKey":"p"}`))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		return rec
	}
	if rec := send(); rec.Code != http.StatusInternalServerError {
		t.Fatalf("panic: %d %s", rec.Code, rec.Body)
	}
	if n, err := b.store.CountIdempotencyKeys(context.Background()); err != nil || n != 0 {
		t.Fatalf("keys after the panic = %d (%v), want 0", n, err)
	}
	first := send()
	again := send()
	if first.Code != http.StatusCreated || again.Code != http.StatusCreated || again.Header().Get("Idempotent-Replayed") != "true" ||
		first.Body.String() != again.Body.String() || calls != 2 {
		t.Fatalf("after the panic: %d %s; again %d %q %s; handler calls %d", first.Code, first.Body, again.Code,
			again.Header().Get("Idempotent-Replayed"), again.Body, calls)
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

func TestCanonicalHash(t *testing.T) {
	t.Parallel()
	key, a, err := canonicalHash([]byte(`{"b":[1,2,{"y":true,"x":null}],"a":"\u00e9","idempotencyKey":"k","n":12345678901234567890}`))
	if err != nil || key != "k" {
		t.Fatalf("key %q, %v", key, err)
	}
	_, same, _ := canonicalHash([]byte("{ \"n\": 12345678901234567890, \"idempotencyKey\": \"k\", \"a\": \"é\",\n\"b\": [1, 2, {\"x\": null, \"y\": true}] }"))
	_, bigger, _ := canonicalHash([]byte(`{"b":[1,2,{"y":true,"x":null}],"a":"é","idempotencyKey":"k","n":12345678901234567891}`))
	_, reordered, _ := canonicalHash([]byte(`{"b":[2,1,{"y":true,"x":null}],"a":"é","idempotencyKey":"k","n":12345678901234567890}`))
	if a != same {
		t.Errorf("key order, whitespace and escapes changed the hash")
	}
	if a == bigger {
		t.Errorf("a large integer lost precision")
	}
	if a == reordered {
		t.Errorf("array order was ignored")
	}
	if want := sha256.Sum256([]byte(`{"a":"é","b":[1,2,{"x":null,"y":true}],"idempotencyKey":"k","n":12345678901234567890}`)); a != want {
		t.Errorf("hash is not SHA-256 of the canonical form")
	}
	if key, _, _ := canonicalHash([]byte(`{"idempotencyKey":7}`)); key != "" {
		t.Errorf("a non-string key: %q", key)
	}
}

func BenchmarkCanonicalHash(b *testing.B) {
	body := []byte(`{"fromAddress":{"name":"Shop","street1":"1 Market St","city":"San Francisco","state":"CA","zip":"94105","country":"US"},` +
		`"toAddress":{"name":"Ada","street1":"350 Fifth Avenue","city":"New York","state":"NY","zip":"10118","country":"US"},` +
		`"parcel":{"weightOz":32,"lengthIn":10,"widthIn":8,"heightIn":4},"carrier":"USPS","service":"Priority",` +
		`"options":{"signatureConfirmation":true},"idempotencyKey":"order-10023-label"}`)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := canonicalHash(body); err != nil {
			b.Fatal(err)
		}
	}
}

// A request that committed its resource but whose response could not be
// recorded must never run again: a retry would buy a second label.
func TestIdempotencyLostResponseIsNeverRunAgain(t *testing.T) {
	t.Parallel()
	b := setup(t, withoutRateLimits(), func(c *Config) { c.failIdempotencyRecording = true })
	body := idemLabelBody("order-lost-1")
	first := b.do("POST", "/api/v1/labels/create", b.token, body)
	if first.Status != http.StatusAccepted {
		t.Fatalf("create: %d %s", first.Status, first.Body)
	}
	retry := b.do("POST", "/api/v1/labels/create", b.token, body)
	wantError(t, retry, http.StatusConflict, "idempotency_response_lost")
	if n := idemCount(t, b, b.token, "/api/v1/labels"); n != 1 {
		t.Fatalf("%d shipments after the retry, want 1", n)
	}

	// A failure before the commit still frees the key: a 422 is not a lost response.
	bad := idemLabelBody("order-lost-2")
	bad["toAddress"].(map[string]any)["zip"] = "00000" // no rates
	wantError(t, b.do("POST", "/api/v1/labels/create", b.token, bad), http.StatusUnprocessableEntity, "no_rates")
	wantError(t, b.do("POST", "/api/v1/labels/create", b.token, bad), http.StatusUnprocessableEntity, "no_rates")
}

// A key whose process died after committing is not taken over when it is
// abandoned: the retry learns the response was lost instead of buying again.
func TestIdempotencyCommittedKeyOfADeadProcess(t *testing.T) {
	t.Parallel()
	b := setup(t, withoutRateLimits())
	body := idemLabelBody("order-dead-1")
	raw, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	sc := idemClaim(t, b, "/api/v1/labels/create", string(raw), "req_dead")
	err = b.store.Tx(context.Background(), func(tx *sqlx.Tx) error {
		return store.MarkIdempotencyCommitted(context.Background(), tx, sc, "req_dead")
	})
	if err != nil {
		t.Fatal(err)
	}
	b.clock.Advance(idempotencyAbandonAfter + time.Second)
	wantError(t, b.do("POST", "/api/v1/labels/create", b.token, body), http.StatusConflict, "idempotency_response_lost")
	if n := idemCount(t, b, b.token, "/api/v1/labels"); n != 0 {
		t.Fatalf("%d shipments, want none: the dead request's purchase must not run again", n)
	}
}

package server_test

// Webhook subscriptions through the API: create, read, update, delete and their rules.

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/seal"
)

func TestWebhookCreate(t *testing.T) {
	t.Parallel()
	b := setup(t)
	r := b.doT(t, "POST", "/api/v1/webhooks", b.token, map[string]any{
		"url": "https://example.com/hooks/a", "events": []string{"shipment.purchased", "tracker.updated"}, "description": "Order system",
	})
	wantStatus(t, r, http.StatusCreated)
	got := r.JSON(t)
	secret, _ := got["signingSecret"].(string)
	if !strings.HasPrefix(secret, "whsec_") || len(secret) < len("whsec_")+32 {
		t.Fatalf("signingSecret = %q", secret)
	}
	id, _ := got["id"].(string)
	if !strings.HasPrefix(id, "whk_") {
		t.Fatalf("id = %q", id)
	}
	createdAt, err := time.Parse(time.RFC3339Nano, got["createdAt"].(string))
	if err != nil || createdAt.Sub(b.clock.Now()).Abs() > time.Second {
		t.Fatalf("createdAt = %v (%v), want about %v", got["createdAt"], err, b.clock.Now())
	}
	want := map[string]any{
		"id": id, "mode": "test", "url": "https://example.com/hooks/a", "events": []any{"shipment.purchased", "tracker.updated"},
		"description": "Order system", "enabled": true, "createdAt": got["createdAt"], "signingSecret": secret,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("created (-want +got):\n%s", diff)
	}

	// never returned again: not by GET, list, nor PATCH
	delete(want, "signingSecret")
	for _, rr := range []response{
		b.doT(t, "GET", "/api/v1/webhooks/"+id, b.token, nil),
		b.doT(t, "GET", "/api/v1/webhooks", b.token, nil),
		b.doT(t, "PATCH", "/api/v1/webhooks/"+id, b.token, map[string]any{"enabled": true}),
	} {
		wantStatus(t, rr, 200)
		if bytes.Contains(rr.Body, []byte("signingSecret")) || bytes.Contains(rr.Body, []byte(secret)) || bytes.Contains(rr.Body, []byte("whsec_")) {
			t.Fatalf("a later response carries the signing secret: %s", rr.Body)
		}
	}
	one := b.doT(t, "GET", "/api/v1/webhooks/"+id, b.token, nil)
	if diff := cmp.Diff(want, one.JSON(t)); diff != "" {
		t.Fatalf("GET (-want +got):\n%s", diff)
	}

	// stored encrypted, under the server's key
	var ciphertext string
	if err := b.sql(t).Get(&ciphertext, `SELECT secret_ciphertext FROM webhook_subscriptions WHERE id = ?`, id); err != nil {
		t.Fatal(err)
	}
	rest := strings.TrimPrefix(secret, "whsec_")
	if ciphertext == "" || strings.Contains(ciphertext, secret) || strings.Contains(ciphertext, rest) || strings.Contains(ciphertext, rest[:16]) {
		t.Fatalf("the signing secret is stored in the clear: %q", ciphertext)
	}
	cipher, err := seal.NewCipher(bytes.Repeat([]byte{7}, 32)) // the bundle's key
	if err != nil {
		t.Fatal(err)
	}
	plain, err := cipher.Decrypt(ciphertext)
	if err != nil || plain != secret {
		t.Fatalf("stored secret decrypts to %q (%v), want the one returned", plain, err)
	}
	// no other column holds it either
	row := map[string]any{}
	rows, err := b.sql(t).Queryx(`SELECT * FROM webhook_subscriptions WHERE id = ?`, id)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		if err := rows.MapScan(row); err != nil {
			t.Fatal(err)
		}
	}
	rows.Close()
	for col, v := range row {
		if strings.Contains(fmt.Sprintf("%s", v), rest[:16]) {
			t.Fatalf("column %s holds the secret in the clear", col)
		}
	}

	// two subscriptions get different secrets
	other := createWebhook(t, b, b.token, "https://example.com/hooks/b")
	if other["signingSecret"] == secret {
		t.Fatal("two subscriptions share a signing secret")
	}
	// enabled may be set at creation
	r = b.doT(t, "POST", "/api/v1/webhooks", b.token, map[string]any{"url": "https://example.com/hooks/c", "events": []string{"*"}, "enabled": false})
	wantStatus(t, r, http.StatusCreated)
	if m := r.JSON(t); m["enabled"] != false || m["description"] != nil {
		t.Fatalf("enabled:false / no description: %s", r.Body)
	}
	if !bytes.Contains(r.Body, []byte(`"description":null`)) {
		t.Fatalf("description must be present and null: %s", r.Body)
	}
}

func TestWebhookRules(t *testing.T) {
	t.Parallel()

	t.Run("unknown event type", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		r := b.doT(t, "POST", "/api/v1/webhooks", b.token, map[string]any{"url": "https://example.com/h", "events": []string{"shipment.purchased", "shipment.teleported"}})
		m := wantError(t, r, 422, "invalid_event_type")
		known, _ := m["knownEvents"].([]any)
		for _, ev := range []string{"*", "shipment.purchased", "shipment.failed", "shipment.voided", "tracker.updated"} {
			if !slices.Contains(known, any(ev)) {
				t.Errorf("knownEvents %v lacks %s", known, ev)
			}
		}
		if slices.Contains(known, any("shipment.teleported")) {
			t.Errorf("knownEvents lists the unknown type")
		}
		// and on PATCH
		h := createWebhook(t, b, b.token, "https://example.com/h")
		r = b.doT(t, "PATCH", "/api/v1/webhooks/"+h["id"].(string), b.token, map[string]any{"events": []string{"nope"}})
		m = wantError(t, r, 422, "invalid_event_type")
		if _, ok := m["knownEvents"].([]any); !ok {
			t.Errorf("PATCH: no knownEvents: %s", r.Body)
		}
		got := b.doT(t, "GET", "/api/v1/webhooks/"+h["id"].(string), b.token, nil).JSON(t)
		if diff := cmp.Diff([]any{"shipment.purchased"}, got["events"]); diff != "" {
			t.Errorf("a rejected PATCH changed events:\n%s", diff)
		}
	})

	t.Run("duplicate endpoint", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		first := createWebhook(t, b, b.token, "https://example.com/dup")
		r := b.doT(t, "POST", "/api/v1/webhooks", b.token, map[string]any{"url": "https://example.com/dup", "events": []string{"*"}})
		wantError(t, r, http.StatusConflict, "duplicate_endpoint")
		// other accounts and the other mode are separate
		other := b.newAccount("Other", true)
		_, otherTok := b.newToken(other.ID, "test", "write:webhooks")
		createWebhook(t, b, otherTok, "https://example.com/dup")
		_, live := b.newToken(b.account.ID, "live", "write:webhooks")
		createWebhook(t, b, live, "https://example.com/dup")
		// once deleted, the URL can be subscribed again
		wantStatus(t, b.doT(t, "DELETE", "/api/v1/webhooks/"+first["id"].(string), b.token, nil), http.StatusNoContent)
		again := createWebhook(t, b, b.token, "https://example.com/dup")
		if again["id"] == first["id"] {
			t.Fatal("re-subscribing reused the deleted id")
		}
	})

	t.Run("subscription limit", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		var ids []string
		for i := range 25 {
			ids = append(ids, createWebhook(t, b, b.token, fmt.Sprintf("https://example.com/h%d", i))["id"].(string))
		}
		r := b.doT(t, "POST", "/api/v1/webhooks", b.token, map[string]any{"url": "https://example.com/h25", "events": []string{"*"}})
		wantError(t, r, 422, "subscription_limit")
		// the live mode has its own 25
		_, live := b.newToken(b.account.ID, "live", "write:webhooks")
		createWebhook(t, b, live, "https://example.com/live")
		// deleted ones do not count
		wantStatus(t, b.doT(t, "DELETE", "/api/v1/webhooks/"+ids[3], b.token, nil), http.StatusNoContent)
		createWebhook(t, b, b.token, "https://example.com/h25")
		wantError(t, b.doT(t, "POST", "/api/v1/webhooks", b.token, map[string]any{"url": "https://example.com/h26", "events": []string{"*"}}), 422, "subscription_limit")
	})

	t.Run("limits hold under concurrency", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		for i := range 20 {
			createWebhook(t, b, b.token, fmt.Sprintf("https://example.com/pre%d", i))
		}
		statuses := make([]int, 12)
		var wg sync.WaitGroup
		for i := range statuses {
			wg.Go(func() {
				// two requests per URL: each URL may be subscribed once, and only 5 fit
				r := b.doT(t, "POST", "/api/v1/webhooks", b.token, map[string]any{"url": fmt.Sprintf("https://example.com/race%d", i/2), "events": []string{"*"}})
				statuses[i] = r.Status
			})
		}
		wg.Wait()
		count := map[int]int{}
		for _, st := range statuses {
			count[st]++
		}
		if count[201] != 5 || count[201]+count[409]+count[422] != len(statuses) {
			t.Fatalf("statuses %v", count)
		}
		var n, urls int
		if err := b.sql(t).Get(&n, `SELECT count(*) FROM webhook_subscriptions WHERE revoked_at IS NULL`); err != nil || n != 25 {
			t.Fatalf("%d active subscriptions (%v), want 25", n, err)
		}
		if err := b.sql(t).Get(&urls, `SELECT count(DISTINCT url) FROM webhook_subscriptions WHERE revoked_at IS NULL`); err != nil || urls != 25 {
			t.Fatalf("%d distinct URLs among 25 subscriptions (%v)", urls, err)
		}
	})

	t.Run("live mode needs a public https URL", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		_, live := b.newToken(b.account.ID, "live", "write:webhooks")
		for _, u := range []string{"http://example.com/h", "https://localhost/h", "https://127.0.0.1/h", "https://10.0.0.1/h", "ftp://example.com/h", "example.com/h"} {
			r := b.doT(t, "POST", "/api/v1/webhooks", live, map[string]any{"url": u, "events": []string{"*"}})
			m := wantError(t, r, 422, "invalid_field")
			if m["field"] != "url" {
				t.Errorf("%s: field = %v, want url", u, m["field"])
			}
		}
		createWebhook(t, b, live, "https://example.com/h")
		// test mode accepts http
		createWebhook(t, b, b.token, "http://example.com/h")
	})

	t.Run("url and secret are immutable", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		h := createWebhook(t, b, b.token, "https://example.com/immutable")
		path := "/api/v1/webhooks/" + h["id"].(string)
		for field, value := range map[string]any{"url": "https://example.com/other", "signingSecret": "whsec_mine"} {
			r := b.doT(t, "PATCH", path, b.token, map[string]any{field: value, "description": "sneaky"})
			m := wantError(t, r, 422, "invalid_field")
			if m["field"] != field {
				t.Errorf("PATCH %s: field = %v", field, m["field"])
			}
		}
		got := b.doT(t, "GET", path, b.token, nil).JSON(t)
		delete(h, "signingSecret")
		if diff := cmp.Diff(h, got); diff != "" {
			t.Fatalf("a rejected PATCH changed the subscription:\n%s", diff)
		}
	})

	t.Run("patch", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		r := b.doT(t, "POST", "/api/v1/webhooks", b.token, map[string]any{"url": "https://example.com/p", "events": []string{"*"}, "description": "first"})
		wantStatus(t, r, 201)
		h := r.JSON(t)
		path := "/api/v1/webhooks/" + h["id"].(string)
		delete(h, "signingSecret")

		steps := []struct {
			body   any
			change map[string]any // fields expected to change
		}{
			{map[string]any{"events": []string{"shipment.delivered", "shipment.exception"}}, map[string]any{"events": []any{"shipment.delivered", "shipment.exception"}}},
			{map[string]any{"enabled": false}, map[string]any{"enabled": false}},
			{map[string]any{"description": "second"}, map[string]any{"description": "second"}},
			{map[string]any{}, map[string]any{}},
			{`{"description": null}`, map[string]any{"description": nil}},
			{map[string]any{"enabled": true, "events": []string{"*"}}, map[string]any{"enabled": true, "events": []any{"*"}}},
		}
		want := h
		for i, st := range steps {
			for k, v := range st.change {
				want[k] = v
			}
			r := b.doT(t, "PATCH", path, b.token, st.body)
			wantStatus(t, r, 200)
			if diff := cmp.Diff(want, r.JSON(t)); diff != "" {
				t.Fatalf("step %d: PATCH response (-want +got):\n%s", i, diff)
			}
			if diff := cmp.Diff(want, b.doT(t, "GET", path, b.token, nil).JSON(t)); diff != "" {
				t.Fatalf("step %d: GET after PATCH (-want +got):\n%s", i, diff)
			}
			if _, cleared := st.change["description"]; cleared && st.change["description"] == nil {
				if !bytes.Contains(r.Body, []byte(`"description":null`)) {
					t.Fatalf("step %d: description must be null, not absent: %s", i, r.Body)
				}
			}
		}
		wantError(t, b.doT(t, "PATCH", path, b.token, map[string]any{"events": []string{}}), 422, "invalid_field")
		wantError(t, b.doT(t, "PATCH", path, b.token, map[string]any{"enabled": "yes"}), 422, "invalid_field")
	})

	t.Run("delete", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		h := createWebhook(t, b, b.token, "https://example.com/d")
		keep := createWebhook(t, b, b.token, "https://example.com/keep")
		path := "/api/v1/webhooks/" + h["id"].(string)
		r := b.doT(t, "DELETE", path, b.token, nil)
		wantStatus(t, r, http.StatusNoContent)
		if len(r.Body) != 0 {
			t.Fatalf("204 with a body: %s", r.Body)
		}
		wantError(t, b.doT(t, "GET", path, b.token, nil), 404, "not_found")
		wantError(t, b.doT(t, "PATCH", path, b.token, map[string]any{"enabled": false}), 404, "not_found")
		wantError(t, b.doT(t, "DELETE", path, b.token, nil), 404, "not_found")
		list := b.doT(t, "GET", "/api/v1/webhooks", b.token, nil)
		var l webhookList
		list.Decode(t, &l)
		if len(l.Data) != 1 || l.Data[0].ID != keep["id"] {
			t.Fatalf("list after delete: %s", list.Body)
		}
		// the row is kept, marked revoked
		var revoked *time.Time
		if err := b.sql(t).Get(&revoked, `SELECT revoked_at FROM webhook_subscriptions WHERE id = ?`, h["id"]); err != nil || revoked == nil {
			t.Fatalf("deleted subscription: revoked_at %v, err %v", revoked, err)
		}
	})

	t.Run("list pages newest first", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		var created []string
		for i := range 5 {
			created = append(created, createWebhook(t, b, b.token, fmt.Sprintf("https://example.com/l%d", i))["id"].(string))
		}
		slices.Reverse(created)
		got, sizes := pages(t, b, "/api/v1/webhooks", 2, func(r response) []string {
			var l webhookList
			r.Decode(t, &l)
			ids := []string{}
			for _, d := range l.Data {
				ids = append(ids, d.ID)
			}
			return ids
		})
		if diff := cmp.Diff(created, got); diff != "" {
			t.Fatalf("ids across pages (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]int{2, 2, 1}, sizes); diff != "" {
			t.Fatalf("page sizes (-want +got):\n%s", diff)
		}
	})
}

// pages walks a list with the given limit and returns every id in order
// and the page sizes; it checks nextCursor is null exactly on the last page.
func pages(t *testing.T, b *bundle, path string, limit int, ids func(response) []string) ([]string, []int) {
	t.Helper()
	var all []string
	var sizes []int
	cursor := ""
	for page := 0; ; page++ {
		if page > 20 {
			t.Fatal("pagination does not end")
		}
		q := url.Values{"limit": {fmt.Sprint(limit)}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		r := b.doT(t, "GET", path+"?"+q.Encode(), b.token, nil)
		wantStatus(t, r, 200)
		m := r.JSON(t)
		next, present := m["nextCursor"]
		if !present {
			t.Fatalf("nextCursor absent (must be null on the last page): %s", r.Body)
		}
		got := ids(r)
		all = append(all, got...)
		sizes = append(sizes, len(got))
		if next == nil {
			break
		}
		if len(got) != limit {
			t.Fatalf("a non-last page has %d items, want %d", len(got), limit)
		}
		cursor = next.(string)
	}
	seen := map[string]bool{}
	for _, id := range all {
		if seen[id] {
			t.Fatalf("id %s on two pages", id)
		}
		seen[id] = true
	}
	return all, sizes
}

package server_test

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// U+0000 in any string of a request is refused before it reaches the
// database, the same on both backends: PostgreSQL's text cannot hold it, so
// there these requests were 500 internal_error while SQLite answered 404,
// 200 or 201. A path id with NUL names nothing (404 not_found); a query
// parameter or a body string with NUL is 422 invalid_field naming it.
// Run on PostgreSQL with scripts/pg-test.sh go test -run NUL ./server/.
func TestNULInPathIDsIsNotFound(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, tc := range []struct{ method, path string }{
		{"GET", "/api/v1/labels/%00"},
		{"GET", "/api/v1/labels/shp_%00"},
		{"GET", "/api/v1/labels/shp_%00/label.pdf"},
		{"POST", "/api/v1/labels/shp_%00/refund"},
		{"GET", "/api/v1/trackers/trk_%00"},
		{"GET", "/api/v1/webhooks/whk_%00"},
		{"PATCH", "/api/v1/webhooks/whk_%00"},
		{"DELETE", "/api/v1/webhooks/whk_%00"},
		{"POST", "/api/v1/webhooks/whk_%00/test"},
		{"GET", "/api/v1/webhooks/whk_%00/deliveries"},
		{"POST", "/api/v1/webhooks/whk_x/deliveries/dlv_%00/retry"},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			var body any
			if tc.method == "PATCH" {
				body = map[string]any{"enabled": false}
			}
			wantError(t, b.doT(t, tc.method, tc.path, b.token, body), http.StatusNotFound, "not_found")
		})
	}
}

func TestNULInQueryIsInvalidField(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, tc := range []struct{ path, field string }{
		{"/api/v1/events?type=%00", "type"},
		{"/api/v1/events?type=shipment.purchased%00", "type"},
		{"/api/v1/labels?cursor=%00", "cursor"},
		{"/api/v1/labels?status=purchased%00", "status"},
		{"/api/v1/addresses?cursor=abc%00", "cursor"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			m := wantError(t, b.doT(t, "GET", tc.path, b.token, nil), http.StatusUnprocessableEntity, "invalid_field")
			if m["field"] != tc.field {
				t.Errorf("field = %v, want %s", m["field"], tc.field)
			}
		})
	}
}

func TestNULInBodyIsInvalidField(t *testing.T) {
	t.Parallel()
	b := setup(t)
	hook := createWebhook(t, b, b.token, "https://example.com/hook")
	const nul = "a\x00b" // json.Marshal writes it as a\u0000b
	for _, tc := range []struct {
		name, method, path string
		body               any
		field              string
	}{
		{"webhook description", "POST", "/api/v1/webhooks",
			map[string]any{"url": "https://example.com/h", "events": []string{"shipment.purchased"}, "description": nul}, "description"},
		{"webhook event", "POST", "/api/v1/webhooks",
			map[string]any{"url": "https://example.com/h", "events": []string{"shipment.purchased", nul}}, "events.1"},
		{"webhook idempotency key", "POST", "/api/v1/webhooks",
			map[string]any{"url": "https://example.com/h", "events": []string{"shipment.purchased"}, "idempotencyKey": nul}, "idempotencyKey"},
		{"webhook patch", "PATCH", "/api/v1/webhooks/" + hook["id"].(string), map[string]any{"description": nul}, "description"},
		{"address", "POST", "/api/v1/addresses", addressBody(func(m map[string]any) { m["street1"] = nul }), "street1"},
		{"address idempotency key", "POST", "/api/v1/addresses",
			addressBody(func(m map[string]any) { m["idempotencyKey"] = nul }), "idempotencyKey"},
		{"address to verify", "POST", "/api/v1/addresses/verify", addressBody(func(m map[string]any) { m["city"] = nul }), "city"},
		{"quote address", "POST", "/api/v1/labels/quote",
			quoteBody(func(m map[string]any) { object(m, "toAddress")["city"] = nul }), "toAddress.city"},
		{"create address", "POST", "/api/v1/labels/create",
			quoteBody(func(m map[string]any) { object(m, "fromAddress")["name"] = nul }), "fromAddress.name"},
		{"create idempotency key", "POST", "/api/v1/labels/create",
			quoteBody(func(m map[string]any) { m["idempotencyKey"] = nul }), "idempotencyKey"},
		{"refund idempotency key", "POST", "/api/v1/labels/shp_nope/refund", map[string]any{"idempotencyKey": nul}, "idempotencyKey"},
		{"a member name", "POST", "/api/v1/addresses", addressBody(func(m map[string]any) { m[nul] = "x" }), "body"},
		{"a raw escape", "POST", "/api/v1/addresses", `{"name":"Ada","street1":"1 A St\u0000","city":"New York","state":"NY","zip":"10118","country":"US"}`, "street1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := wantError(t, b.doT(t, tc.method, tc.path, b.token, tc.body), http.StatusUnprocessableEntity, "invalid_field")
			if m["field"] != tc.field {
				t.Errorf("field = %v, want %s; %v", m["field"], tc.field, m["error"])
			}
		})
	}

	// Nothing was stored: the one webhook is the fixture's, unchanged, and
	// the address book is empty.
	var hooks webhookList
	r := b.do("GET", "/api/v1/webhooks", b.token, nil)
	wantStatus(t, r, http.StatusOK)
	r.Decode(t, &hooks)
	if len(hooks.Data) != 1 || hooks.Data[0].ID != hook["id"] {
		t.Errorf("webhooks after the refused requests: %+v", hooks.Data)
	}
	got := b.do("GET", "/api/v1/webhooks/"+hook["id"].(string), b.token, nil).JSON(t)
	if diff := cmp.Diff(hook["description"], got["description"]); diff != "" {
		t.Errorf("the webhook's description changed (-before +after):\n%s", diff)
	}
	var addrs addressList
	r = b.do("GET", "/api/v1/addresses", b.token, nil)
	wantStatus(t, r, http.StatusOK)
	r.Decode(t, &addrs)
	if len(addrs.Data) != 0 {
		t.Errorf("addresses after the refused requests: %+v", addrs.Data)
	}
}

// A backslash before u0000 is the text \u0000, not NUL: it is kept as given.
func TestEscapedBackslashBeforeU0000IsNotNUL(t *testing.T) {
	t.Parallel()
	b := setup(t)
	r := b.do("POST", "/api/v1/webhooks", b.token,
		`{"url":"https://example.com/h","events":["shipment.purchased"],"description":"C:\\u0000"}`)
	wantStatus(t, r, http.StatusCreated)
	if got := r.JSON(t)["description"]; got != `C:\u0000` {
		t.Errorf("description = %q, want the text C:\\u0000", got)
	}
}

// Without a token, a NUL anywhere is still 401: the check runs after
// authentication, so it tells nothing to a caller who may not ask.
func TestNULAfterAuthentication(t *testing.T) {
	t.Parallel()
	b := setup(t)
	wantError(t, b.doT(t, "GET", "/api/v1/labels/%00", "", nil), http.StatusUnauthorized, "missing_authorization")
}

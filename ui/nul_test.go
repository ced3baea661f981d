package ui_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
)

// U+0000 in a path or a form is refused before any page reads it, the same
// on both backends (PostgreSQL's text cannot hold it: these were error
// pages, 500, there). Run on PostgreSQL with
// scripts/pg-test.sh go test -run NUL ./ui/.
func TestNULInSettingsPathsIsNotFound(t *testing.T) {
	t.Parallel()
	b := setup(t)
	br := b.browser()
	br.signIn(b.email)
	for _, tc := range []struct{ method, path string }{
		{"GET", "/settings/shipments/%00"},
		{"GET", "/settings/shipments/shp_%00/label.pdf"},
		{"POST", "/settings/shipments/shp_%00/refund"},
		{"GET", "/settings/webhooks/whk_%00"},
		{"POST", "/settings/webhooks/whk_%00/pause"},
		{"POST", "/settings/tokens/tok_%00/revoke"},
	} {
		var p page
		if tc.method == "GET" {
			p = br.get(tc.path)
		} else {
			p = br.post(tc.path, nil)
		}
		must(t, tc.method+" "+tc.path, p, http.StatusNotFound, "There is no such page.")
	}
}

func TestNULInSettingsFormsIsRefused(t *testing.T) {
	t.Parallel()
	b := setup(t)
	br := b.browser()
	br.signIn(b.email)
	const refused = "contains a NUL character, which is not allowed"
	must(t, "a token named a\\0b", br.post("/settings/tokens", url.Values{"name": {"a\x00b"}, "scope": {"read:shipments"}, "mode": {"test"}}),
		http.StatusUnprocessableEntity, refused, "“name”")
	must(t, "a webhook description with NUL", br.post("/settings/webhooks",
		url.Values{"url": {"https://example.com/h"}, "event": {"*"}, "description": {"a\x00b"}}), http.StatusUnprocessableEntity, refused, "“description”")
	must(t, "an event filter with NUL", br.get("/settings/events?type=%00"), http.StatusUnprocessableEntity, refused, "“type”")
	must(t, "a shipments filter with NUL", br.get("/settings/shipments?status=purchased%00"), http.StatusUnprocessableEntity, refused, "“status”")

	// Nothing was written: the fixture's token is the only one, no endpoint.
	ctx := context.Background()
	if ts, err := b.app.Accounts.ListTokens(ctx, b.account.ID); err != nil || len(ts) != 1 {
		t.Errorf("%d tokens (%v) after the refused form, want only the fixture's", len(ts), err)
	}
	if status, body := b.api("GET", "/webhooks", b.token, nil); status != http.StatusOK || len(body["data"].([]any)) != 0 {
		t.Errorf("webhooks after the refused form: %d %v", status, body)
	}

	// Signing in with NUL in the email is refused the same way, and sets no cookie.
	other := b.browser()
	must(t, "an email with NUL", other.post("/settings/login", url.Values{"email": {"ada\x00@example.com"}, "password": {password}}),
		http.StatusUnprocessableEntity, refused, "“email”")
	if other.sessionCookie() != nil {
		t.Error("a sign-in with NUL set a cookie")
	}
}

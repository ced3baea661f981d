package ui_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
)

// Bytes that are not UTF-8 in a path or a form are refused before any page
// reads them, the same on both backends: PostgreSQL refuses them in text
// (SQLSTATE 22021: these were error pages, 500, there). Run on PostgreSQL
// with scripts/pg-test.sh go test -run UTF8 ./ui/.
func TestInvalidUTF8InSettingsPathsIsNotFound(t *testing.T) {
	t.Parallel()
	b := setup(t)
	br := b.browser()
	br.signIn(b.email)
	for _, bad := range []string{"%ff", "%c0%80", "%ed%a0%80"} {
		for _, tc := range []struct{ method, path string }{
			{"GET", "/settings/shipments/" + bad},
			{"GET", "/settings/shipments/shp_" + bad + "/label.pdf"},
			{"GET", "/settings/shipments/shp_" + bad + "/customs.pdf"},
			{"POST", "/settings/shipments/shp_" + bad + "/refund"},
			{"POST", "/settings/shipments/shp_" + bad + "/return"},
			{"GET", "/settings/webhooks/whk_" + bad},
			{"POST", "/settings/webhooks/whk_" + bad},
			{"POST", "/settings/webhooks/whk_" + bad + "/pause"},
			{"POST", "/settings/webhooks/whk_x/deliveries/dlv_" + bad + "/retry"},
			{"POST", "/settings/tokens/tok_" + bad + "/revoke"},
			{"POST", "/settings/carrier-accounts/ca_" + bad + "/disable"},
			{"GET", "/settings/batches/bat_" + bad + "/labels.pdf"},
			{"GET", "/settings/manifests/man_" + bad + "/form.pdf"},
			{"POST", "/settings/pickups/pck_" + bad + "/cancel"},
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
}

func TestInvalidUTF8InSettingsFormsIsRefused(t *testing.T) {
	t.Parallel()
	b := setup(t)
	br := b.browser()
	br.signIn(b.email)
	const refused = "is not UTF-8 text"
	must(t, "a token name that is not UTF-8", br.post("/settings/tokens", url.Values{"name": {"a\xffb"}, "scope": {"read:shipments"}, "mode": {"test"}}),
		http.StatusUnprocessableEntity, refused, "“name”")
	must(t, "a webhook description that is not UTF-8", br.post("/settings/webhooks",
		url.Values{"url": {"https://example.com/h"}, "event": {"*"}, "description": {"\xc0\x80"}}), http.StatusUnprocessableEntity, refused, "“description”")
	must(t, "an event filter that is not UTF-8", br.get("/settings/events?type=%ed%a0%80"), http.StatusUnprocessableEntity, refused, "“type”")
	must(t, "a shipments cursor that is not UTF-8", br.get("/settings/shipments?cursor=%ff"), http.StatusUnprocessableEntity, refused, "“cursor”")

	ctx := context.Background()
	if ts, err := b.app.Accounts.ListTokens(ctx, b.account.ID); err != nil || len(ts) != 1 {
		t.Errorf("%d tokens (%v) after the refused form, want only the fixture's", len(ts), err)
	}
	if status, body := b.api("GET", "/webhooks", b.token, nil); status != http.StatusOK || len(body["data"].([]any)) != 0 {
		t.Errorf("webhooks after the refused form: %d %v", status, body)
	}

	other := b.browser()
	must(t, "an email that is not UTF-8", other.post("/settings/login", url.Values{"email": {"ada\xff@example.com"}, "password": {password}}),
		http.StatusUnprocessableEntity, refused, "“email”")
	if other.sessionCookie() != nil {
		t.Error("a sign-in that is not UTF-8 set a cookie")
	}
}

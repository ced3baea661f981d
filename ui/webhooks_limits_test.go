package ui_test

import (
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestWebhookFormLimitsAreTheAPIs: the settings pages refuse a description
// of 300 characters, on the add form and the edit form, with the rule and the
// words the API answers for the same description; nothing is stored.
func TestWebhookFormLimitsAreTheAPIs(t *testing.T) {
	t.Parallel()
	b := setup(t)
	long := strings.Repeat("d", 300)

	status, body := b.api("POST", "/webhooks", b.token, map[string]any{"url": "https://example.com/a", "events": []string{"*"}, "description": long})
	if status != http.StatusUnprocessableEntity || body["code"] != "invalid_field" || body["field"] != "description" {
		t.Fatalf("API: %d %v", status, body)
	}
	apiMsg := body["error"].(string)
	// The pages write an error as a sentence: capitalised, with a full stop.
	want := html.EscapeString(strings.ToUpper(apiMsg[:1]) + apiMsg[1:] + ".")

	br := b.browser()
	br.signIn(b.email)
	must(t, "add with a long description", br.post("/settings/webhooks", url.Values{"url": {"https://example.com/a"}, "event": {"*"}, "description": {long}}),
		http.StatusUnprocessableEntity, want)
	_, list := b.api("GET", "/webhooks", b.token, nil)
	if n := len(list["data"].([]any)); n != 0 {
		t.Fatalf("%d subscriptions stored, want none", n)
	}

	status, created := b.api("POST", "/webhooks", b.token, map[string]any{"url": "https://example.com/b", "events": []string{"*"}, "description": "short"})
	if status != http.StatusCreated {
		t.Fatalf("create: %d %v", status, created)
	}
	id := created["id"].(string)
	status, body = b.api("PATCH", "/webhooks/"+id, b.token, map[string]any{"description": long})
	if status != http.StatusUnprocessableEntity || body["error"] != apiMsg {
		t.Fatalf("API update: %d %v, want the create's %q", status, body, apiMsg)
	}
	must(t, "save a long description", br.post("/settings/webhooks/"+id, url.Values{"event": {"*"}, "description": {long}}),
		http.StatusUnprocessableEntity, want)
	_, got := b.api("GET", "/webhooks/"+id, b.token, nil)
	if got["description"] != "short" {
		t.Fatalf("description %v after a refused save, want short", got["description"])
	}
	// The form's inputs carry the same limit.
	must(t, "edit form", br.get("/settings/webhooks/"+id), http.StatusOK, `name="description" type="text" maxlength="255"`)
}

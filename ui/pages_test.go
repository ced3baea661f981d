package ui_test

import (
	"context"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/app"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/sandbox"
	"github.com/shipd-dev/shipd/shipping"
)

func TestAnotherAccountsObjectsAreNotFound(t *testing.T) {
	t.Parallel()
	b := setup(t)
	other, _, otherToken := b.newAccount("Other", "grace@example.com")
	ctx := context.Background()
	theirs, _, err := b.app.Accounts.CreateToken(ctx, accounts.NewToken{AccountID: other.ID, Mode: accounts.Test, Scopes: accounts.Scopes()})
	if err != nil {
		t.Fatal(err)
	}
	status, sub := b.api("POST", "/webhooks", otherToken, map[string]any{"url": "http://127.0.0.1:9/theirs", "events": []string{"*"}})
	if status != http.StatusCreated {
		t.Fatalf("POST /webhooks: %d %v", status, sub)
	}
	whk := sub["id"].(string)
	status, test := b.api("POST", "/webhooks/"+whk+"/test", otherToken, nil)
	if status != http.StatusAccepted {
		t.Fatalf("POST /webhooks/%s/test: %d %v", whk, status, test)
	}
	shipment := b.buyLabel(otherToken)

	br := b.browser()
	br.signIn(b.email)
	for _, r := range []struct{ method, path string }{
		{"POST", "/settings/tokens/" + theirs.ID + "/revoke"},
		{"GET", "/settings/webhooks/" + whk},
		{"POST", "/settings/webhooks/" + whk},
		{"POST", "/settings/webhooks/" + whk + "/pause"},
		{"POST", "/settings/webhooks/" + whk + "/delete"},
		{"POST", "/settings/webhooks/" + whk + "/test"},
		{"POST", "/settings/webhooks/" + whk + "/deliveries/" + test["id"].(string) + "/retry"},
		{"GET", "/settings/shipments/" + shipment},
		{"GET", "/settings/shipments/" + shipment + "/label.pdf"},
		{"POST", "/settings/shipments/" + shipment + "/refund"},
		{"POST", "/settings/tokens/tok_nosuchtoken/revoke"},
	} {
		form := url.Values{"event": {"*"}, "description": {"taken over"}}
		p := br.do(r.method, r.path, form)
		must(t, r.method+" "+r.path, p, http.StatusNotFound, "There is no such object in this account.")
	}
	// Nothing of theirs changed, and no list shows it.
	if tok, _ := b.app.Accounts.ListTokens(ctx, other.ID); tok[0].RevokedAt != nil || tok[1].RevokedAt != nil {
		t.Error("another account's token was revoked")
	}
	if status, got := b.api("GET", "/webhooks/"+whk, otherToken, nil); status != http.StatusOK || got["enabled"] != true || got["description"] != nil {
		t.Errorf("their webhook after the attempts: %d %v", status, got)
	}
	if status, got := b.api("GET", "/labels/"+shipment, otherToken, nil); status != http.StatusOK || got["status"] != "purchased" {
		t.Errorf("their shipment after the attempts: %d %v", status, got)
	}
	for _, path := range []string{"/settings/tokens", "/settings/webhooks", "/settings/events", "/settings/shipments", "/settings/account"} {
		p := br.get(path)
		for _, theirs := range []string{theirs.Prefix, whk, shipment, "grace@example.com", other.ID} {
			if strings.Contains(p.body, theirs) {
				t.Errorf("GET %s shows %s of another account", path, theirs)
			}
		}
	}
}

func TestModeSwitchNeverMixesModes(t *testing.T) {
	t.Parallel()
	b := setup(t, withScanInterval(time.Hour)) // refunded below: never scanned
	live := b.liveToken(b.account.ID)
	shipment := b.buyLabel(b.token)
	for _, w := range []struct{ token, url string }{{b.token, "http://127.0.0.1:9/test-hooks"}, {live, "https://hooks.example.com/live-hooks"}} {
		if status, body := b.api("POST", "/webhooks", w.token, map[string]any{"url": w.url, "events": []string{"*"}}); status != http.StatusCreated {
			t.Fatalf("POST /webhooks %s: %d %v", w.url, status, body)
		}
	}
	br := b.browser()
	br.signIn(b.email)

	testOnly := map[string]string{
		"/settings/webhooks":  "/test-hooks",
		"/settings/shipments": shipment,
		"/settings/events":    shipment,
		"/settings/tokens":    b.token[:15],
		"/settings/account":   "Balance applied",
	}
	liveOnly := map[string]string{
		"/settings/webhooks": "/live-hooks",
		"/settings/tokens":   live[:15],
	}
	look := func(mode string, shown, hidden map[string]string) {
		t.Helper()
		for path, text := range shown {
			must(t, mode+" "+path, br.get(path), http.StatusOK, text, "Switch to "+map[string]string{"test": "live", "live": "test"}[mode]+" mode")
		}
		for path, text := range hidden {
			if p := br.get(path); strings.Contains(p.body, text) {
				t.Errorf("%s mode: GET %s shows %q of the other mode", mode, path, text)
			}
		}
	}
	// A refund credit puts an entry in the test-mode ledger.
	if _, _, err := b.app.Shipping.Refund(context.Background(), callerOf(t, b), shipment, shipping.RefundRequest{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, func() bool { _, sh := b.api("GET", "/labels/"+shipment, b.token, nil); return sh["status"] == "voided" })
	testOnly["/settings/account"] = "Refund credit"

	look("test", testOnly, liveOnly)
	p := br.post("/settings/mode", url.Values{"mode": {"live"}, "next": {"/settings/webhooks"}})
	if p.status != http.StatusSeeOther || p.location() != "/settings/webhooks" {
		t.Fatalf("switch to live: %d → %q", p.status, p.location())
	}
	look("live", liveOnly, testOnly)
	must(t, "a test shipment in live mode", br.get("/settings/shipments/"+shipment), http.StatusNotFound, "This belongs to test mode")
	// A detail page's switch goes to its section's list, which exists in both modes.
	if p := br.post("/settings/mode", url.Values{"mode": {"test"}, "next": {"/settings/shipments/" + shipment}}); p.location() != "/settings/shipments" {
		t.Fatalf("switch back: → %q", p.location())
	}
	look("test", testOnly, liveOnly)
	must(t, "an unknown mode", br.post("/settings/mode", url.Values{"mode": {"prod"}}), http.StatusBadRequest, "Choose test or live mode.")
}

func TestTokensPageCreatesShowsOnceAndRevokes(t *testing.T) {
	t.Parallel()
	b := setup(t)
	br := b.browser()
	br.signIn(b.email)
	must(t, "tokens page", br.get("/settings/tokens"), http.StatusOK, ">Create token</button>", `<label for="token-name">Name</label>`,
		`<label for="scope-read:shipments">read:shipments</label>`, `<label for="token-mode">Mode</label>`, "Expires")

	for _, bad := range []struct {
		form url.Values
		says string
	}{
		{url.Values{"name": {"none"}, "mode": {"test"}}, "Choose at least one scope."},
		{url.Values{"name": {"past"}, "scope": {"read:shipments"}, "mode": {"test"}, "expires": {"2001-01-01"}}, "The expiry date must be in the future."},
		{url.Values{"name": {"garbled"}, "scope": {"read:shipments"}, "mode": {"test"}, "expires": {"next week"}}, "The expiry date is not a date"},
		{url.Values{"name": {"prod"}, "scope": {"read:shipments"}, "mode": {"prod"}}, "The mode must be test or live."},
		{url.Values{"name": {"admin"}, "scope": {"admin"}, "mode": {"test"}}, "Unknown scope"},
		{url.Values{"name": {strings.Repeat("n", 101)}, "scope": {"read:shipments"}, "mode": {"test"}}, "at most 100 characters"},
	} {
		p := br.post("/settings/tokens", bad.form)
		must(t, "bad form "+bad.form.Encode(), p, http.StatusUnprocessableEntity, html.EscapeString(bad.says))
		if strings.Contains(p.body, `id="token-secret"`) {
			t.Fatal("a refused form shows a secret")
		}
	}

	p := br.post("/settings/tokens", url.Values{"name": {"checkout <prod>"}, "scope": {"read:shipments", "write:webhooks"}, "mode": {"test"}, "expires": {"2999-12-31"}})
	must(t, "create", p, http.StatusCreated, "Token created", "It will not be shown again", `data-copy="token-secret"`, "checkout &lt;prod&gt;")
	secret := regexp.MustCompile(`svc_test_[A-Za-z0-9]{64}`).FindString(p.body)
	if secret == "" {
		t.Fatalf("no secret on the page\n%s", p.body)
	}
	if status, _ := b.api("GET", "/labels", secret, nil); status != http.StatusOK {
		t.Fatalf("GET /labels with the new token: %d", status)
	}
	list := br.get("/settings/tokens")
	must(t, "list", list, http.StatusOK, secret[:15], "read:shipments", "write:webhooks", "2999-12-31", "checkout &lt;prod&gt;")
	if strings.Contains(list.body, secret) {
		t.Fatal("the list shows the secret again")
	}
	tokens, _ := b.app.Accounts.ListTokens(context.Background(), b.account.ID)
	var id string
	for _, tok := range tokens {
		if tok.Name == "checkout <prod>" {
			id = tok.ID
		}
	}
	p = br.post("/settings/tokens/"+id+"/revoke", nil)
	if p.status != http.StatusSeeOther || p.location() != "/settings/tokens?done=token-revoked" {
		t.Fatalf("revoke: %d → %q", p.status, p.location())
	}
	must(t, "after revoking", br.get(p.location()), http.StatusOK, "Token revoked: the API refuses it from now on.")
	if status, body := b.api("GET", "/labels", secret, nil); status != http.StatusUnauthorized || body["code"] != "token_revoked" {
		t.Fatalf("the revoked token: %d %v", status, body)
	}

	// A token's change made through the API is in the audit log too, with its prefix as actor.
	status, sub := b.api("POST", "/webhooks", b.token, map[string]any{"url": "http://127.0.0.1:9/hooks", "events": []string{"*"}})
	if status != http.StatusCreated {
		t.Fatalf("POST /webhooks: %d %v", status, sub)
	}
	account := br.get("/settings/account")
	must(t, "audit log", account, http.StatusOK, "Audit log (test)", "Token created", "Token revoked", "Webhook created", b.token[:15], "127.0.0.1", b.email)
}

func TestWebhookPagesAndDeliveryLog(t *testing.T) {
	t.Parallel()
	b := setup(t)
	var mu sync.Mutex
	var bodies []string
	// The receiver fails with a body longer than the excerpt, a two-byte
	// character straddling byte 200, and markup that must come out escaped.
	answer := "<b>boom</b> " + strings.Repeat("x", 187) + "é and more after the cut"
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(raw))
		mu.Unlock()
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = io.WriteString(w, answer)
	}))
	defer receiver.Close()
	received := func() int { mu.Lock(); defer mu.Unlock(); return len(bodies) }

	br := b.browser()
	br.signIn(b.email)
	must(t, "webhooks page", br.get("/settings/webhooks"), http.StatusOK, ">Add endpoint</button>", `<label for="webhook-url">URL</label>`,
		`<label for="event-all">All events</label>`, `<label for="webhook-description">Description`)
	must(t, "no events", br.post("/settings/webhooks", url.Values{"url": {receiver.URL}}), http.StatusUnprocessableEntity, "Events: minimum number of items is 1.")
	must(t, "a refused URL", br.post("/settings/webhooks", url.Values{"url": {"ftp://example.com"}, "event": {"*"}}), http.StatusUnprocessableEntity, "The URL is not allowed")

	p := br.post("/settings/webhooks", url.Values{"url": {receiver.URL}, "event": {"*", "shipment.failed"}, "description": {"orders"}})
	must(t, "add", p, http.StatusCreated, "Endpoint added", "It will not be shown again", `data-copy="signing-secret"`)
	if !regexp.MustCompile(`whsec_[A-Za-z0-9_-]+`).MatchString(p.body) {
		t.Fatalf("no signing secret shown\n%s", p.body)
	}
	must(t, "duplicate", br.post("/settings/webhooks", url.Values{"url": {receiver.URL}, "event": {"*"}}), http.StatusUnprocessableEntity, "already exists")
	id := idPattern("whk").FindString(p.body)
	endpoint := "/settings/webhooks/" + id
	must(t, "endpoint page", br.get(endpoint), http.StatusOK, ">Send test</button>", ">Pause</button>", ">Delete</button>", "No deliveries yet")

	p = br.post(endpoint+"/test", nil)
	if p.status != http.StatusSeeOther || p.location() != endpoint+"?done=test-sent" {
		t.Fatalf("send test: %d → %q", p.status, p.location())
	}
	eventually(t, func() bool { return strings.Contains(br.get(endpoint).body, "status-bad\">failed") })
	log := br.get(endpoint)
	excerpt := answer[:199] // byte 200 is the first of é's two: the cut drops it
	must(t, "delivery log", log, http.StatusOK, "webhook.test", ">500<", html.EscapeString(excerpt), "Retry")
	if strings.Contains(log.body, "<b>boom</b>") || strings.Contains(log.body, "é and more") {
		t.Fatal("the excerpt is unescaped or longer than 200 bytes")
	}
	// The API's delivery log has the same excerpt.
	status, deliveries := b.api("GET", "/webhooks/"+id+"/deliveries", b.token, nil)
	if status != http.StatusOK {
		t.Fatalf("GET deliveries: %d", status)
	}
	d := deliveries["data"].([]any)[0].(map[string]any)
	got := d["attemptLog"].([]any)[0].(map[string]any)["responseExcerpt"].(string)
	if got != excerpt || !utf8.ValidString(got) {
		t.Fatalf("API responseExcerpt %q (%d bytes), want %q", got, len(got), excerpt)
	}

	p = br.post(endpoint+"/deliveries/"+d["id"].(string)+"/retry", nil)
	if p.status != http.StatusSeeOther || p.location() != endpoint+"?done=retry-queued" {
		t.Fatalf("retry: %d → %q", p.status, p.location())
	}
	eventually(t, func() bool { return received() == 2 })
	eventually(t, func() bool {
		_, ds := b.api("GET", "/webhooks/"+id+"/deliveries", b.token, nil)
		return ds["data"].([]any)[0].(map[string]any)["attempts"].(float64) == 2
	})

	// Edit, pause, resume, delete.
	p = br.post(endpoint, url.Values{"description": {"orders, edited"}, "event": {"shipment.purchased", "shipment.voided"}})
	if p.location() != endpoint+"?done=webhook-saved" {
		t.Fatalf("save: %d → %q\n%s", p.status, p.location(), p.body)
	}
	must(t, "saved", br.get(endpoint), http.StatusOK, "orders, edited", `value="shipment.voided" checked`)
	must(t, "save without events", br.post(endpoint, url.Values{"description": {"x"}}), http.StatusUnprocessableEntity, "Events: minimum number of items is 1.")
	for _, step := range []struct{ action, done, shows string }{
		{"pause", "webhook-paused", ">Resume</button>"},
		{"resume", "webhook-resumed", ">Pause</button>"},
	} {
		p := br.post(endpoint+"/"+step.action, nil)
		if p.location() != endpoint+"?done="+step.done {
			t.Fatalf("%s: → %q", step.action, p.location())
		}
		must(t, step.action, br.get(p.location()), http.StatusOK, step.shows)
	}
	p = br.post(endpoint+"/delete", nil)
	if p.location() != "/settings/webhooks?done=webhook-deleted" {
		t.Fatalf("delete: → %q", p.location())
	}
	must(t, "deleted", br.get(endpoint), http.StatusNotFound)
	audit := br.get("/settings/account").body
	for _, action := range []string{"Webhook created", "Webhook updated", "Webhook paused", "Webhook resumed", "Webhook deleted"} {
		if !strings.Contains(audit, action) {
			t.Errorf("the audit log lacks %s", action)
		}
	}
}

func TestShipmentPagesAndRefund(t *testing.T) {
	t.Parallel()
	// No scans: a scanned label is not refundable (TestShipmentPageOfAScannedLabel).
	b := setup(t, withScanInterval(time.Hour))
	var ids []string
	for range 3 {
		ids = append(ids, b.buyLabel(b.token))
	}
	br := b.browser()
	br.signIn(b.email)
	list := br.get("/settings/shipments")
	must(t, "shipments", list, http.StatusOK, ids[0], ids[1], ids[2], "Purchased", "USPS", "$")
	must(t, "filter", br.get("/settings/shipments?status=voided"), http.StatusOK, "No Voided shipments")
	must(t, "bad filter", br.get("/settings/shipments?status=lost"), http.StatusOK, "There is no status lost")
	must(t, "bad cursor", br.get("/settings/shipments?after=bm9wZQ"), http.StatusBadRequest, "This page link is out of date")

	detail := br.get("/settings/shipments/" + ids[0])
	must(t, "detail", detail, http.StatusOK, ">Refund</button>", "Download label (PDF)", `<iframe class="label"`, "Tracking number", "Ada Lovelace")

	p := br.post("/settings/shipments/"+ids[0]+"/refund", nil)
	if p.status != http.StatusSeeOther || p.location() != "/settings/shipments/"+ids[0]+"?done=refund-requested" {
		t.Fatalf("refund: %d → %q\n%s", p.status, p.location(), p.body)
	}
	eventually(t, func() bool { return strings.Contains(br.get("/settings/shipments/"+ids[0]).body, "status-voided") })
	voided := br.get("/settings/shipments/" + ids[0])
	if strings.Contains(voided.body, ">Refund</button>") {
		t.Fatal("Refund offered on a voided label")
	}
	must(t, "refund again", br.post("/settings/shipments/"+ids[0]+"/refund", nil), http.StatusConflict, "This label is already voided.")
	must(t, "voided filter", br.get("/settings/shipments?status=voided"), http.StatusOK, ids[0])
	must(t, "ledger", br.get("/settings/account"), http.StatusOK, "Refund credit", "Shipping balance (test)")
	must(t, "events", br.get("/settings/events?type=shipment.voided"), http.StatusOK, "shipment.voided", ids[0])
	must(t, "unknown event type", br.get("/settings/events?type=shipment.voidd"), http.StatusOK,
		"There is no event type shipment.voidd; showing every type.", "shipment.purchased", "shipment.voided")
	if p := br.get("/settings/events?type=shipment.voided"); strings.Contains(p.body, "<td>shipment.purchased</td>") {
		t.Fatal("the type filter let shipment.purchased through")
	}
}

// callerOf is the fixture user's caller, as the UI would make it.
func callerOf(t *testing.T, b *bundle) accounts.Caller {
	t.Helper()
	in, err := b.app.Accounts.SignIn(context.Background(), b.email, password)
	if err != nil {
		t.Fatal(err)
	}
	c, err := b.app.Accounts.SessionCaller(context.Background(), in.ID, "192.0.2.1")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A label still being bought says so, by the rule the API's label_pending
// answer uses (shipping.Status.LabelPending), not a copy of it.
func TestShipmentPageWhileTheLabelIsBought(t *testing.T) {
	t.Parallel()
	b := setup(t)
	status, body := b.api("POST", "/labels/create", b.token, map[string]any{
		"fromAddress": map[string]any{"name": "Shop", "phone": "415 555 0100", "street1": "1 Market St", "city": "San Francisco", "state": "CA", "zip": "94105", "country": "US"},
		"toAddress":   map[string]any{"name": "Slow Carrier", "phone": "212 555 0199", "street1": "350 Fifth Avenue", "city": "New York", "state": "NY", "zip": "10118", "country": "US"},
		"parcel":      map[string]any{"weightOz": 32},
	})
	if status != http.StatusAccepted {
		t.Fatalf("POST /labels/create: %d %v", status, body)
	}
	id := body["id"].(string)
	br := b.browser()
	br.signIn(b.email)
	must(t, "paying", br.get("/settings/shipments/"+id), http.StatusOK, "The label is being bought.")
	if code, _ := b.api("GET", "/labels/"+id+"/label.pdf", b.token, nil); code != http.StatusAccepted {
		t.Errorf("label.pdf while paying: %d, want 202 label_pending", code)
	}
	eventually(t, func() bool { return strings.Contains(br.get("/settings/shipments/"+id).body, "Download label (PDF)") })
}

// A label the carrier has scanned shows its timeline and offers no refund;
// a refund posted anyway is refused with the reason.
func TestShipmentPageOfAScannedLabel(t *testing.T) {
	t.Parallel()
	b := setup(t)
	id := b.buyLabel(b.token)
	br := b.browser()
	br.signIn(b.email)
	eventually(t, func() bool { return strings.Contains(br.get("/settings/shipments/"+id).body, "status-delivered") })
	detail := br.get("/settings/shipments/" + id)
	must(t, "delivered", detail, http.StatusOK, `<ol class="timeline">`, "Delivered")
	if strings.Contains(detail.body, ">Refund</button>") {
		t.Error("Refund offered on a delivered label")
	}
	must(t, "refund anyway", br.post("/settings/shipments/"+id+"/refund", nil), http.StatusConflict, "carriers refund only unused labels")
}

func withScanInterval(d time.Duration) option {
	return func(c *app.Config) {
		c.Carriers = carriers.NewRegistry(sandbox.New(sandbox.Config{ScanInterval: d}), nil)
	}
}

// The live bar says which carriers live mode uses, and when it has none.
func TestLiveBarNamesTheCarriers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		live []carriers.Carrier
		says string
	}{
		{"none", nil, "No carriers configured"},
		{"some", sandbox.New(sandbox.Config{})[:3], "Carriers: USPS, UPS, FedEx."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, func(c *app.Config) { c.Carriers = carriers.NewRegistry(sandbox.New(sandbox.Config{}), tc.live) })
			br := b.browser()
			br.signIn(b.email)
			if p := br.post("/settings/mode", url.Values{"mode": {"live"}, "next": {"/settings/shipments"}}); p.status != http.StatusSeeOther {
				t.Fatalf("switch to live: %d", p.status)
			}
			must(t, "live bar", br.get("/settings/shipments"), http.StatusOK, tc.says)
			br.post("/settings/mode", url.Values{"mode": {"test"}, "next": {"/settings/shipments"}})
			if p := br.get("/settings/shipments"); strings.Contains(p.body, tc.says) {
				t.Errorf("test mode's bar says %q", tc.says)
			}
		})
	}
}

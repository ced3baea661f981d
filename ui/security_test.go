package ui_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

func TestCrossOriginPostsRefused(t *testing.T) {
	t.Parallel()
	b := setup(t)
	br := b.browser()
	br.signIn(b.email)
	form := url.Values{"name": {"planted"}, "scope": {"read:shipments"}, "mode": {"test"}}
	for name, header := range map[string]http.Header{
		"Sec-Fetch-Site: cross-site":     {"Sec-Fetch-Site": {"cross-site"}},
		"Sec-Fetch-Site: same-site":      {"Sec-Fetch-Site": {"same-site"}},
		"Origin of another site":         {"Origin": {"https://evil.example"}},
		"Origin of another port on host": {"Origin": {"http://127.0.0.1:1"}},
	} {
		br.header = header
		p := br.post("/settings/tokens", form)
		must(t, name, p, http.StatusForbidden, "sent from another site")
		checkSecurityHeaders(t, name, p)
		// Signing in (login CSRF) and signing out are refused the same way.
		if p := br.post("/settings/login", url.Values{"email": {b.email}, "password": {password}}); p.status != http.StatusForbidden {
			t.Errorf("%s: POST /settings/login answered %d, want 403", name, p.status)
		}
		if p := br.post("/settings/logout", nil); p.status != http.StatusForbidden {
			t.Errorf("%s: POST /settings/logout answered %d, want 403", name, p.status)
		}
	}
	if ts, _ := b.app.Accounts.ListTokens(context.Background(), b.account.ID); len(ts) != 1 {
		t.Fatalf("%d tokens after cross-origin posts, want only the fixture's", len(ts))
	}
	// The same form from the page itself goes through.
	br.header = http.Header{"Sec-Fetch-Site": {"same-origin"}, "Origin": {b.http.URL}}
	must(t, "same-origin post", br.post("/settings/tokens", form), http.StatusCreated, "Token created")
}

// checkSecurityHeaders fails unless a response of the UI carries every security header.
func checkSecurityHeaders(t *testing.T, what string, p page) {
	t.Helper()
	csp := p.header.Get("Content-Security-Policy")
	for _, directive := range []string{"default-src 'self'", "frame-ancestors 'none'", "form-action 'self'", "base-uri 'none'", "script-src 'self'"} {
		if !strings.Contains(csp, directive) {
			t.Errorf("%s: Content-Security-Policy %q lacks %s", what, csp, directive)
		}
	}
	if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
		t.Errorf("%s: Content-Security-Policy %q allows inline or eval'd script", what, csp)
	}
	for name, want := range map[string]string{"X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer", "X-Content-Type-Options": "nosniff"} {
		if got := p.header.Get(name); got != want {
			t.Errorf("%s: %s = %q, want %q", what, name, got, want)
		}
	}
}

// scriptTag and handlerAttr find script the policy would block, so that
// none is ever written: a <script> without src or with a body, an on…
// handler attribute, a javascript: URL.
var (
	scriptTag   = regexp.MustCompile(`(?is)<script\b([^>]*)>(.*?)</script>`)
	handlerAttr = regexp.MustCompile(`(?i)<[a-z][^>]*\son[a-z]+\s*=|javascript:`)
)

func inlineScript(body string) string {
	for _, m := range scriptTag.FindAllStringSubmatch(body, -1) {
		if !strings.Contains(m[1], "src=") || strings.TrimSpace(m[2]) != "" {
			return m[0]
		}
	}
	return handlerAttr.FindString(body)
}

func TestSecurityHeadersOnEveryPage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	shipment := b.buyLabel(b.token)
	br := b.browser()
	checkSecurityHeaders(t, "the redirect to sign in", br.get("/settings/tokens"))
	checkSecurityHeaders(t, "the sign-in page", br.get("/settings/login"))
	checkSecurityHeaders(t, "a failed sign-in", br.post("/settings/login", url.Values{"email": {"x@example.com"}, "password": {"y"}}))
	checkSecurityHeaders(t, "the stylesheet", br.get("/settings/static/app.css"))
	checkSecurityHeaders(t, "the script", br.get("/settings/static/app.js"))
	br.signIn(b.email)
	status, sub := b.api("POST", "/webhooks", b.token, map[string]any{"url": "http://127.0.0.1:9/hooks", "events": []string{"*"}})
	if status != http.StatusCreated {
		t.Fatalf("POST /webhooks: %d %v", status, sub)
	}
	for _, path := range []string{
		"/settings/tokens", "/settings/webhooks", "/settings/webhooks/" + sub["id"].(string), "/settings/events",
		"/settings/shipments", "/settings/shipments/" + shipment, "/settings/account", "/settings/no-such-page",
	} {
		p := br.get(path)
		if p.status != http.StatusOK && path != "/settings/no-such-page" {
			t.Fatalf("GET %s: %d\n%s", path, p.status, p.body)
		}
		checkSecurityHeaders(t, path, p)
		if m := inlineScript(p.body); m != "" {
			t.Errorf("GET %s writes script the policy blocks: %q", path, m)
		}
		if p.header.Get("Cache-Control") != "no-store" && path != "/settings/no-such-page" {
			t.Errorf("GET %s: Cache-Control %q, want no-store", path, p.header.Get("Cache-Control"))
		}
	}
	// The label preview may be framed by the shipment page, and only by it.
	p := br.get("/settings/shipments/" + shipment + "/label.pdf")
	if p.status != http.StatusOK || p.header.Get("Content-Type") != "application/pdf" || !strings.HasPrefix(p.body, "%PDF-") {
		t.Fatalf("label preview: %d %s", p.status, p.header.Get("Content-Type"))
	}
	if csp := p.header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'self'") || p.header.Get("X-Frame-Options") != "SAMEORIGIN" {
		t.Errorf("label preview framing: CSP %q, X-Frame-Options %q", csp, p.header.Get("X-Frame-Options"))
	}
	if d := br.get("/settings/shipments/" + shipment + "/label.pdf?download=1").header.Get("Content-Disposition"); !strings.HasPrefix(d, "attachment") {
		t.Errorf("download: Content-Disposition %q", d)
	}
	// The API keeps its own answers: no UI header leaks onto it, and / leads to the UI.
	if p := br.get("/"); p.status != http.StatusFound || p.header.Get("Location") != "/settings/" {
		t.Errorf("GET /: %d → %q", p.status, p.header.Get("Location"))
	}
	if p := br.get("/healthz"); p.status != http.StatusOK || p.header.Get("Content-Security-Policy") != "" {
		t.Errorf("GET /healthz: %d, CSP %q", p.status, p.header.Get("Content-Security-Policy"))
	}
}

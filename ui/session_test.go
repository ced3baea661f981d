package ui_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/app"
	"github.com/shipd-dev/shipd/store"
)

func TestSignInSetsCookieAndStoresOnlyItsHash(t *testing.T) {
	t.Parallel()
	b := setup(t)
	br := b.browser()

	p := br.get("/settings/webhooks")
	if p.status != http.StatusSeeOther || p.location() != "/settings/login?next=%2Fsettings%2Fwebhooks" {
		t.Fatalf("signed out: %d → %q, want the sign-in page with the way back", p.status, p.location())
	}
	must(t, "the sign-in page", br.get(p.location()), http.StatusOK, `<label for="email">Email</label>`, `<label for="password">Password</label>`, ">Sign in</button>")

	// A wrong password and an unknown email get the same answer.
	wrong := br.post("/settings/login", url.Values{"email": {b.email}, "password": {"not the password"}})
	unknown := br.post("/settings/login", url.Values{"email": {"nobody@example.com"}, "password": {password}})
	must(t, "wrong password", wrong, http.StatusUnauthorized, "The email or password is wrong.")
	must(t, "unknown email", unknown, http.StatusUnauthorized, "The email or password is wrong.")
	if br.sessionCookie() != nil || wrong.header.Get("Set-Cookie") != "" {
		t.Fatal("a failed sign-in set a cookie")
	}

	p = br.post("/settings/login", url.Values{"email": {strings.ToUpper(b.email)}, "password": {password}, "next": {"/settings/webhooks"}})
	if p.status != http.StatusSeeOther || p.location() != "/settings/webhooks" {
		t.Fatalf("sign in: %d → %q, want back to /settings/webhooks", p.status, p.location())
	}
	set := p.header.Get("Set-Cookie")
	for _, attr := range []string{"shipd_session=", "Path=/", "HttpOnly", "SameSite=Lax"} {
		if !strings.Contains(set, attr) {
			t.Errorf("Set-Cookie %q lacks %s", set, attr)
		}
	}
	if strings.Contains(set, "Secure") {
		t.Errorf("Set-Cookie %q is Secure over plain HTTP: the browser would never send it back", set)
	}
	cookie := br.sessionCookie()
	if cookie == nil || len(cookie.Value) != 43 {
		t.Fatalf("session cookie %v, want 32 random bytes in base64url", cookie)
	}
	ctx := context.Background()
	sum := sha256.Sum256([]byte(cookie.Value))
	if _, err := b.store.Session(ctx, sum[:]); err != nil {
		t.Fatalf("no session under the SHA-256 of the cookie: %v", err)
	}
	if _, err := b.store.Session(ctx, []byte(cookie.Value)); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a session is stored under the cookie's value itself: %v", err)
	}
	must(t, "signed in", br.get("/settings/webhooks"), http.StatusOK, "<h1>Webhooks</h1>", b.email)

	// An open redirect through next is refused.
	other := b.browser()
	p = other.post("/settings/login", url.Values{"email": {b.email}, "password": {password}, "next": {"//evil.example/"}})
	if p.location() != "/settings/" {
		t.Errorf("next=//evil.example/ led to %q", p.location())
	}

	// Sign out deletes the session: the cookie, replayed, opens nothing.
	p = br.post("/settings/logout", nil)
	if p.status != http.StatusSeeOther || !strings.HasPrefix(p.location(), "/settings/login") {
		t.Fatalf("sign out: %d → %q", p.status, p.location())
	}
	if _, err := b.store.Session(ctx, sum[:]); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the session outlived sign-out: %v", err)
	}
	replay := b.browser()
	replay.header.Set("Cookie", "shipd_session="+cookie.Value)
	if p := replay.get("/settings/tokens"); p.status != http.StatusSeeOther || !strings.HasPrefix(p.location(), "/settings/login") {
		t.Fatalf("the signed-out cookie replayed: %d → %q", p.status, p.location())
	}
	// A form posted with the old session writes nothing.
	if p := replay.post("/settings/tokens", url.Values{"name": {"after sign-out"}, "scope": {"read:shipments"}, "mode": {"test"}}); p.status != http.StatusSeeOther {
		t.Fatalf("a post with the ended session: %d", p.status)
	}
	if ts, _ := b.app.Accounts.ListTokens(ctx, b.account.ID); len(ts) != 1 {
		t.Fatalf("%d tokens after a post with an ended session, want only the fixture's", len(ts))
	}
}

func TestSessionIdleAndAbsoluteExpiry(t *testing.T) {
	t.Parallel()
	b := setup(t)
	signedIn := func(br *browser) bool {
		t.Helper()
		p := br.get("/settings/tokens")
		switch {
		case p.status == http.StatusOK:
			return true
		case p.status == http.StatusSeeOther && strings.HasPrefix(p.location(), "/settings/login"):
			return false
		}
		t.Fatalf("GET /settings/tokens: %d", p.status)
		return false
	}

	idle := b.browser()
	idle.signIn(b.email)
	for range 3 {
		b.clock.Advance(29 * time.Minute)
		if !signedIn(idle) {
			t.Fatal("signed out after 29 minutes since the last page")
		}
	}
	b.clock.Advance(30 * time.Minute)
	if signedIn(idle) {
		t.Fatal("still signed in after 30 idle minutes")
	}

	busy := b.browser()
	busy.signIn(b.email)
	for elapsed := 25 * time.Minute; elapsed < 12*time.Hour; elapsed += 25 * time.Minute {
		b.clock.Advance(25 * time.Minute)
		if !signedIn(busy) {
			t.Fatalf("signed out after %v of use", elapsed)
		}
	}
	b.clock.Advance(25 * time.Minute)
	if signedIn(busy) {
		t.Fatal("still signed in 12 h after signing in")
	}
}

func TestSecureCookieBehindHTTPS(t *testing.T) {
	t.Parallel()
	b := setup(t, func(c *app.Config) { c.PublicURL = "https://shipd.example.com" })
	p := b.browser().post("/settings/login", url.Values{"email": {b.email}, "password": {password}})
	set := p.header.Get("Set-Cookie")
	if p.status != http.StatusSeeOther || !strings.HasPrefix(set, "__Host-shipd_session=") || !strings.Contains(set, "Secure") ||
		!strings.Contains(set, "Path=/") || strings.Contains(set, "Domain=") {
		t.Fatalf("behind an https public URL: %d, Set-Cookie %q; want __Host-shipd_session, Secure, Path=/, no Domain", p.status, set)
	}
}

func TestSignInThrottle(t *testing.T) {
	t.Parallel()
	const tooMany = "Too many failed sign-in attempts. Try again in"
	b := setup(t)
	br := b.browser()
	attempt := func(email, pw string) page {
		return br.post("/settings/login", url.Values{"email": {email}, "password": {pw}})
	}
	for i := range 5 {
		must(t, "failure "+string(rune('1'+i)), attempt(b.email, "wrong password"), http.StatusUnauthorized, "The email or password is wrong.")
	}
	// Throttled: even the right password is refused, and the wording is the
	// same for an email nobody has.
	must(t, "right password while throttled", attempt(b.email, password), http.StatusTooManyRequests, tooMany, "15 minutes")
	for range 5 {
		attempt("nobody@example.com", "wrong password")
	}
	must(t, "unknown email while throttled", attempt("nobody@example.com", password), http.StatusTooManyRequests, tooMany)
	if br.sessionCookie() != nil {
		t.Fatal("a throttled sign-in set a cookie")
	}
	b.clock.Advance(15 * time.Minute)
	if p := attempt(b.email, password); p.status != http.StatusSeeOther {
		t.Fatalf("15 minutes later: %d, want signed in\n%s", p.status, p.body)
	}

	// Per address: 20 failures from one address, spread over emails, stop every email.
	c := setup(t)
	other := c.browser()
	for i := range 20 {
		p := other.post("/settings/login", url.Values{"email": {"guess" + string(rune('a'+i)) + "@example.com"}, "password": {"x"}})
		must(t, "failure from one address", p, http.StatusUnauthorized)
	}
	must(t, "a 21st email from the same address", other.post("/settings/login", url.Values{"email": {c.email}, "password": {password}}),
		http.StatusTooManyRequests, tooMany)
}

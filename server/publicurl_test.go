package server_test

import (
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/shipd-dev/shipd/app"
)

// Without a configured public URL, a label's URL is the one the client
// reached shipd at: its Host header, or a trusted proxy's X-Forwarded-Host
// and X-Forwarded-Proto; a Host no client could reach (a wildcard address,
// a malformed name) gives the fallback, never the listen address 0.0.0.0.
func TestLabelURLFollowsTheRequest(t *testing.T) {
	t.Parallel()
	_, loopback, _ := net.ParseCIDR("127.0.0.0/8")
	b := setupLabels(t, func(c *app.Config) {
		c.PublicURL = ""
		c.FallbackURL = "http://localhost:8080"
		c.TrustedProxies = []*net.IPNet{loopback}
	})
	s := waitForStatus(t, b, b.token, createLabel(t, b, b.token, labelBody()).ID, "purchased")
	path := "/api/v1/labels/" + s.ID + "/label.pdf"
	for _, tc := range []struct {
		name    string
		headers []string
		want    string
	}{
		{"host header", []string{"Host", "ship.example.com:8443"}, "http://ship.example.com:8443"},
		{"IPv6 host", []string{"Host", "[2001:db8::1]:8080"}, "http://[2001:db8::1]:8080"},
		{"trusted proxy", []string{"Host", "10.0.0.5:8080", "X-Forwarded-Host", "ship.example.com", "X-Forwarded-Proto", "https"}, "https://ship.example.com"},
		{"proxy chain", []string{"Host", "10.0.0.5:8080", "X-Forwarded-Host", "ship.example.com, inner.local", "X-Forwarded-Proto", "https, http"}, "https://ship.example.com"},
		{"unknown scheme ignored", []string{"Host", "ship.example.com", "X-Forwarded-Proto", "gopher"}, "http://ship.example.com"},
		{"wildcard address", []string{"Host", "0.0.0.0:8080"}, "http://localhost:8080"},
		{"wildcard IPv6", []string{"Host", "[::]:8080"}, "http://localhost:8080"},
		{"malformed host", []string{"Host", "evil.example.com/x?"}, "http://localhost:8080"},
		{"bare IPv6", []string{"Host", "::1"}, "http://localhost:8080"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := b.send("GET", "/api/v1/labels/"+s.ID, b.token, nil, tc.headers...)
			if err != nil {
				t.Fatal(err)
			}
			wantStatus(t, r, http.StatusOK)
			var got shipmentDoc
			r.Decode(t, &got)
			if u := got.str(got.LabelURL); u != tc.want+path {
				t.Errorf("labelUrl = %q, want %q", u, tc.want+path)
			}
		})
	}
}

// An untrusted peer's X-Forwarded-Host is ignored: anyone could send one.
func TestLabelURLIgnoresUntrustedForwardedHost(t *testing.T) {
	t.Parallel()
	b := setupLabels(t, func(c *app.Config) { c.PublicURL = ""; c.FallbackURL = "http://localhost:8080" })
	s := waitForStatus(t, b, b.token, createLabel(t, b, b.token, labelBody()).ID, "purchased")
	r, err := b.send("GET", "/api/v1/labels/"+s.ID, b.token, nil, "Host", "ship.example.com", "X-Forwarded-Host", "attacker.example", "X-Forwarded-Proto", "https")
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, r, http.StatusOK)
	var got shipmentDoc
	r.Decode(t, &got)
	if u := got.str(got.LabelURL); !strings.HasPrefix(u, "http://ship.example.com/") {
		t.Errorf("labelUrl = %q, want it on http://ship.example.com (the Host), not the forwarded one", u)
	}
}

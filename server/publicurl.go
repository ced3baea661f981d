package server

import (
	"context"
	"net"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// baseKey holds a request's base URL in its context.
type baseKey struct{}

// publicBase keeps, for the answers' URLs, the request's base URL: the
// configured PublicURL, or the one the client reached (derivedBase).
func (s *Server) publicBase(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		base := s.cfg.PublicURL
		if base == "" {
			base = derivedBase(c.Request(), s.fromTrustedProxy(c.Request()), s.cfg.FallbackURL)
		}
		r := c.Request()
		c.SetRequest(r.WithContext(context.WithValue(r.Context(), baseKey{}, base)))
		return next(c)
	}
}

// base is the base URL of the answer's URLs: the request's (publicBase),
// else the configured or fallback one.
func (s *Server) base(ctx context.Context) string {
	if b, ok := ctx.Value(baseKey{}).(string); ok && b != "" {
		return b
	}
	if s.cfg.PublicURL != "" {
		return s.cfg.PublicURL
	}
	return s.cfg.FallbackURL
}

// fromTrustedProxy reports whether the request's peer is one of the
// trusted proxies, whose X-Forwarded-* headers name what the client used.
func (s *Server) fromTrustedProxy(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	for _, n := range s.cfg.TrustedProxies {
		if ip != nil && n.Contains(ip) {
			return true
		}
	}
	return false
}

// derivedBase is the URL the client reached shipd at: the scheme (https
// under TLS) and the Host header, or a trusted proxy's X-Forwarded-Proto
// and X-Forwarded-Host; fallback when the host is not a host[:port].
func derivedBase(r *http.Request, trusted bool, fallback string) string {
	scheme, host := "http", r.Host
	if r.TLS != nil {
		scheme = "https"
	}
	if trusted {
		if p := strings.ToLower(strings.TrimSpace(firstValue(r.Header.Get("X-Forwarded-Proto")))); p == "http" || p == "https" {
			scheme = p
		}
		if h := strings.TrimSpace(firstValue(r.Header.Get("X-Forwarded-Host"))); h != "" {
			host = h
		}
	}
	if !validHost(host) {
		return fallback
	}
	return scheme + "://" + host
}

// firstValue is the first of a comma-separated header's values (the
// client's, when proxies appended theirs).
func firstValue(v string) string {
	first, _, _ := strings.Cut(v, ",")
	return first
}

// validHost reports whether h is a host[:port] a URL may carry: a name of
// letters, digits, dots and dashes, or an IP address in brackets for IPv6;
// a wildcard listen address (0.0.0.0, [::]) is not a host a client reaches.
func validHost(h string) bool {
	if h == "" || len(h) > 255 {
		return false
	}
	name, port, err := net.SplitHostPort(h)
	if err != nil {
		name, port = h, ""
	}
	if port != "" && strings.Trim(port, "0123456789") != "" {
		return false
	}
	if ip := net.ParseIP(strings.Trim(name, "[]")); ip != nil {
		bracketed := strings.HasPrefix(h, "[")
		return !ip.IsUnspecified() && (ip.To4() != nil) != bracketed
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-') {
			return false
		}
	}
	return name != ""
}

package webhooks

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"
)

// ErrForbiddenAddress is wrapped by dial errors from a client built with
// AllowPrivate false when the destination is not a public unicast address.
var ErrForbiddenAddress = errors.New("webhooks: destination address is not allowed")

// ErrInvalidURL is wrapped by every error from [ValidateURL].
var ErrInvalidURL = errors.New("invalid webhook URL")

// DefaultClientTimeout bounds one delivery attempt from dial to the end of the
// response body, matching the receiver time-out the spec allows.
const DefaultClientTimeout = 10 * time.Second

// ClientOptions configures [NewHTTPClient].
type ClientOptions struct {
	// AllowPrivate disables the address guard. It is meant for development
	// against a receiver on localhost, never for a shared deployment.
	AllowPrivate bool
	// Timeout bounds a whole request; zero or less means DefaultClientTimeout.
	Timeout time.Duration
}

// NewHTTPClient returns a client for webhook deliveries to user-supplied URLs.
//
// Unless AllowPrivate is set, the client refuses to connect to any address
// for which [IsForbiddenIP] is true. The check runs on the IP address of each
// socket just before it connects, after name resolution, so a hostname that
// resolves (or is re-bound between validation and delivery) to an internal
// address is still refused. Redirects are never followed: the response to the
// first request is returned as is, because a redirect would let a receiver
// send the signed delivery, or the worker itself, somewhere else.
func NewHTTPClient(opts ClientOptions) *http.Client {
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultClientTimeout
	}

	dialer := &net.Dialer{
		Timeout:   min(timeout, 5*time.Second),
		KeepAlive: 30 * time.Second,
	}
	if !opts.AllowPrivate {
		dialer.Control = guardDial
	}

	transport := &http.Transport{
		// A proxy would be dialled instead of the receiver, so the guard would
		// check the proxy's address while the proxy reaches anything, and the
		// environment could silently switch that on. Deliveries go direct.
		Proxy:                  nil,
		DialContext:            dialer.DialContext,
		ForceAttemptHTTP2:      true, // a custom DialContext turns HTTP/2 off otherwise
		TLSClientConfig:        &tls.Config{MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:    min(timeout, 5*time.Second),
		ResponseHeaderTimeout:  timeout,
		ExpectContinueTimeout:  time.Second,
		MaxIdleConns:           100,
		MaxIdleConnsPerHost:    4,
		MaxConnsPerHost:        16, // one slow receiver must not absorb every worker's sockets
		IdleConnTimeout:        90 * time.Second,
		MaxResponseHeaderBytes: 64 << 10,
	}

	return &http.Client{
		Transport: transport,
		Timeout:   timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// guardDial is a net.Dialer Control function; address is the resolved
// "ip:port" the socket is about to connect to.
func guardDial(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		// Fail closed: an address the guard cannot read is one it cannot vouch for.
		return fmt.Errorf("%w: cannot parse %q", ErrForbiddenAddress, address)
	}
	if IsForbiddenIP(ap.Addr()) {
		return fmt.Errorf("%w: %s is not a public address", ErrForbiddenAddress, ap.Addr())
	}
	return nil
}

// forbiddenPrefixes lists special-purpose ranges (IANA registries) not covered
// by the netip.Addr predicates used in IsForbiddenIP. A delivery to any of
// them is either impossible or reaches something that is not the public
// internet.
var forbiddenPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // carrier-grade NAT, often cloud-internal
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // documentation
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // documentation
	netip.MustParsePrefix("203.0.113.0/24"),  // documentation
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, includes broadcast
	netip.MustParsePrefix("::/96"),           // IPv4-compatible (deprecated); reaches IPv4 on some stacks
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use NAT64, translates to private IPv4
	netip.MustParsePrefix("100::/64"),        // discard-only
	netip.MustParsePrefix("2001::/32"),       // Teredo tunnels to arbitrary IPv4
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("fec0::/10"),       // site-local (deprecated), still routed internally by some stacks
}

// Prefixes that embed an IPv4 address a gateway may translate to; the
// embedded address is what is reached, so that is what gets checked.
var (
	nat64Prefix = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour   = netip.MustParsePrefix("2002::/16")
)

// IsForbiddenIP reports whether ip must not be a webhook destination:
// loopback, private (RFC 1918, fc00::/7), link-local (169.254.0.0/16 with the
// cloud metadata address, fe80::/10), unspecified, multicast, carrier-grade
// NAT, other special-purpose ranges, and IPv6 forms that embed any of those
// IPv4 addresses. The zero Addr is forbidden.
func IsForbiddenIP(ip netip.Addr) bool {
	if !ip.IsValid() {
		return true
	}
	ip = ip.WithZone("").Unmap()

	if ip.Is6() {
		switch {
		case nat64Prefix.Contains(ip):
			b := ip.As16()
			return IsForbiddenIP(netip.AddrFrom4([4]byte(b[12:16])))
		case sixToFour.Contains(ip):
			b := ip.As16()
			return IsForbiddenIP(netip.AddrFrom4([4]byte(b[2:6])))
		}
	}

	if ip.IsLoopback() || ip.IsPrivate() || ip.IsUnspecified() ||
		ip.IsLinkLocalUnicast() || ip.IsMulticast() ||
		ip.IsLinkLocalMulticast() || ip.IsInterfaceLocalMulticast() {
		return true
	}
	for _, p := range forbiddenPrefixes {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// ValidateURL checks a subscription URL when it is submitted, so the user gets
// a clear reason instead of a failed delivery later. It requires an absolute
// http or https URL with a host and no user information (credentials in a
// URL end up in logs and the settings UI); live mode additionally requires
// https and rejects hosts that are forbidden IP literals or localhost names.
//
// Passing this check does not make a URL safe to call: the name may resolve to
// an internal address at delivery time. [NewHTTPClient] enforces that.
func ValidateURL(raw string, live bool) error {
	invalid := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrInvalidURL}, args...)...)
	}

	if raw == "" {
		return invalid("URL is empty")
	}
	if utf8.RuneCountInString(raw) > MaxURLLength {
		return invalid("URL is longer than %d characters", MaxURLLength)
	}
	if strings.TrimSpace(raw) != raw {
		return invalid("URL has leading or trailing whitespace")
	}
	u, err := url.Parse(raw)
	if err != nil {
		// url.Error repeats the whole input; the innermost error is the reason.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return invalid("cannot parse URL: %v", err)
	}

	switch u.Scheme {
	case "https":
	case "http":
		if live {
			return invalid("live mode requires an https URL")
		}
	case "":
		return invalid("URL must be absolute, starting with https://")
	default:
		return invalid("scheme %q is not supported; use https", u.Scheme)
	}
	if u.Opaque != "" || u.Host == "" {
		return invalid("URL has no host")
	}
	if u.User != nil {
		return invalid("URL must not contain a user name or password")
	}
	host := u.Hostname()
	if host == "" {
		return invalid("URL has no host")
	}
	if port := u.Port(); port != "" {
		// url.Parse only checks that the port is digits.
		if n, err := strconv.ParseUint(port, 10, 16); err != nil || n == 0 {
			return invalid("port %s is not between 1 and 65535", port)
		}
	}

	addr, err := netip.ParseAddr(host)
	if err != nil {
		// Not an IP literal. Names whose last label is numeric are refused
		// because resolvers and browsers read forms like 2130706433 or
		// 0x7f.1 as IPv4 addresses, which would slip past the literal check.
		if labels := strings.Split(strings.TrimSuffix(host, "."), "."); looksNumeric(labels[len(labels)-1]) {
			return invalid("host %q looks like an IP address in a non-standard notation", host)
		}
		if live && isLocalhostName(host) {
			return invalid("host %q is not reachable from the service", host)
		}
		return nil
	}
	if live && IsForbiddenIP(addr) {
		return invalid("address %s is private, loopback, link-local or otherwise not public", addr)
	}
	return nil
}

// looksNumeric reports whether a DNS label would be parsed as (part of) an
// IPv4 address by inet_aton-style parsers: decimal, octal or 0x-hex digits.
func looksNumeric(label string) bool {
	if label == "" {
		return false
	}
	digits := label
	if len(label) >= 2 && (label[:2] == "0x" || label[:2] == "0X") {
		digits = label[2:]
		for _, c := range digits {
			if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
				return false
			}
		}
		return true
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// isLocalhostName covers the names RFC 6761 reserves for loopback.
func isLocalhostName(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	return h == "localhost" || strings.HasSuffix(h, ".localhost")
}

// newTestModeClient builds the test-mode client. NewHTTPClient knows
// "everything public" and "everything"; TestTargetsLoopback is its client with
// the dialer's guard swapped for one that also lets loopback through.
func newTestModeClient(targets string, timeout time.Duration) *http.Client {
	switch targets {
	case TestTargetsAny:
		return NewHTTPClient(ClientOptions{AllowPrivate: true, Timeout: timeout})
	case TestTargetsLoopback:
		c := NewHTTPClient(ClientOptions{AllowPrivate: true, Timeout: timeout})
		if tr, ok := c.Transport.(*http.Transport); ok {
			d := &net.Dialer{Timeout: min(timeout, 5*time.Second), KeepAlive: 30 * time.Second, Control: publicOrLoopback}
			tr.DialContext = d.DialContext
			return c
		}
	}
	return NewHTTPClient(ClientOptions{Timeout: timeout}) // fail closed
}

// publicOrLoopback is guardDial, except that loopback is allowed.
func publicOrLoopback(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: cannot parse %q", ErrForbiddenAddress, address)
	}
	ip := ap.Addr().WithZone("").Unmap()
	if !ip.IsLoopback() && IsForbiddenIP(ip) {
		return fmt.Errorf("%w: %s is neither public nor loopback", ErrForbiddenAddress, ip)
	}
	return nil
}

package carriers_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"os"
	"syscall"
	"testing"

	"github.com/shipd-dev/shipd/carriers"
)

// A call that cannot leave this server (no DNS for the host, no route, a
// certificate not trusted here) is Unreachable; one the carrier's side may
// soon answer (refused, reset, a DNS timeout) is not. Both stay
// ErrUnavailable, which the jobs retry.
func TestTransportErrorUnreachable(t *testing.T) {
	t.Parallel()
	// A real lookup of a name that never resolves (RFC 6761 .invalid).
	_, realDNS := http.Get("http://ups.invalid/")
	if realDNS == nil {
		t.Fatal("ups.invalid resolved")
	}
	op := func(err error) error {
		return &url.Error{Op: "Post", URL: "https://onlinetools.ups.com/x", Err: &net.OpError{Op: "dial", Net: "tcp", Err: err}}
	}
	tests := []struct {
		name        string
		err         error
		unreachable bool
		message     string
	}{
		{"real DNS failure", realDNS, true, "UPS could not be reached (its host name did not resolve)"},
		{"no such host", op(&net.DNSError{Err: "no such host", Name: "onlinetools.ups.com", IsNotFound: true}), true, "UPS could not be reached (its host name did not resolve)"},
		{"DNS timeout", op(&net.DNSError{Err: "i/o timeout", Name: "onlinetools.ups.com", IsTimeout: true}), false, "UPS did not answer in time"},
		{"network unreachable", op(os.NewSyscallError("connect", syscall.ENETUNREACH)), true, "UPS could not be reached (no network route to it)"},
		{"host unreachable", op(os.NewSyscallError("connect", syscall.EHOSTUNREACH)), true, "UPS could not be reached (no network route to it)"},
		{"refused", op(os.NewSyscallError("connect", syscall.ECONNREFUSED)), false, "UPS could not be reached (connection refused)"},
		{"reset", op(os.NewSyscallError("read", syscall.ECONNRESET)), false, "the connection to UPS was reset"},
		{"canceled", context.Canceled, false, "the request to UPS was canceled"},
	}
	for _, tt := range tests {
		e := carriers.TransportError(nil, nil, "UPS", "rate", tt.err)
		if e.Unreachable != tt.unreachable || e.Message != tt.message || !errors.Is(e, carriers.ErrUnavailable) {
			t.Errorf("%s: Unreachable %v, message %q, ErrUnavailable %v; want %v, %q, true",
				tt.name, e.Unreachable, e.Message, errors.Is(e, carriers.ErrUnavailable), tt.unreachable, tt.message)
		}
	}
}

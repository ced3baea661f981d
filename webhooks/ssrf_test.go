package webhooks

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestClientRefusesLoopback(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	t.Cleanup(srv.Close)
	_, port, err := net.SplitHostPort(srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}

	// The server listens on 127.0.0.1; "localhost" reaches it through name
	// resolution, which is the path a rebinding attack takes.
	urls := []string{srv.URL, "http://localhost:" + port + "/"}
	client := NewHTTPClient(ClientOptions{})
	for _, u := range urls {
		resp, err := client.Get(u)
		if err == nil {
			resp.Body.Close()
			t.Errorf("GET %s succeeded with status %d, want refusal", u, resp.StatusCode)
			continue
		}
		if !errors.Is(err, ErrForbiddenAddress) {
			t.Errorf("GET %s error = %v, want one wrapping ErrForbiddenAddress", u, err)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("server received %d requests, want 0", n)
	}
}

func TestClientAllowPrivate(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, "hello")
	}))
	t.Cleanup(srv.Close)

	resp, err := NewHTTPClient(ClientOptions{AllowPrivate: true}).Get(srv.URL)
	if err != nil {
		t.Fatalf("GET with AllowPrivate: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || string(body) != "hello" {
		t.Errorf("GET = %d %q, want 200 \"hello\"", resp.StatusCode, body)
	}
}

func TestClientDoesNotFollowRedirects(t *testing.T) {
	t.Parallel()
	var targetHits atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/hook", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/internal", http.StatusFound)
	})
	mux.HandleFunc("/internal", func(http.ResponseWriter, *http.Request) { targetHits.Add(1) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	resp, err := NewHTTPClient(ClientOptions{AllowPrivate: true}).Post(srv.URL+"/hook", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()

	type outcome struct {
		Status     int
		Location   string
		TargetHits int32
	}
	want := outcome{Status: http.StatusFound, Location: "/internal", TargetHits: 0}
	got := outcome{Status: resp.StatusCode, Location: resp.Header.Get("Location"), TargetHits: targetHits.Load()}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("redirect handling mismatch (-want +got):\n%s", diff)
	}
}

func TestNewHTTPClientConfiguration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		opts        ClientOptions
		wantTimeout time.Duration
	}{
		{"default timeout", ClientOptions{}, 10 * time.Second},
		{"negative timeout means default", ClientOptions{Timeout: -time.Second}, 10 * time.Second},
		{"custom timeout", ClientOptions{Timeout: 30 * time.Second}, 30 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := NewHTTPClient(tt.opts)
			if c.Timeout != tt.wantTimeout {
				t.Errorf("Timeout = %s, want %s", c.Timeout, tt.wantTimeout)
			}
			tr, ok := c.Transport.(*http.Transport)
			if !ok {
				t.Fatalf("Transport is %T, want *http.Transport", c.Transport)
			}
			// A proxy taken from the environment would bypass the guard.
			if tr.Proxy != nil {
				t.Error("Transport.Proxy is set, want nil")
			}
			if tr.MaxIdleConnsPerHost == 0 || tr.TLSHandshakeTimeout == 0 || tr.ResponseHeaderTimeout == 0 {
				t.Errorf("transport limits unset: MaxIdleConnsPerHost=%d TLSHandshakeTimeout=%s ResponseHeaderTimeout=%s",
					tr.MaxIdleConnsPerHost, tr.TLSHandshakeTimeout, tr.ResponseHeaderTimeout)
			}
			if c.CheckRedirect == nil || !errors.Is(c.CheckRedirect(nil, nil), http.ErrUseLastResponse) {
				t.Error("CheckRedirect does not return http.ErrUseLastResponse")
			}
		})
	}
}

func TestGuardDial(t *testing.T) {
	t.Parallel()
	tests := []struct {
		address string
		wantErr bool
	}{
		{"127.0.0.1:80", true},
		{"[::1]:443", true},
		{"[::ffff:169.254.169.254]:80", true},
		{"[fe80::1%eth0]:80", true},
		{"8.8.8.8:443", false},
		{"[2606:4700:4700::1111]:443", false},
		{"not-an-address", true},
	}
	for _, tt := range tests {
		err := guardDial("tcp", tt.address, nil)
		if tt.wantErr && !errors.Is(err, ErrForbiddenAddress) {
			t.Errorf("guardDial(%q) = %v, want ErrForbiddenAddress", tt.address, err)
		}
		if !tt.wantErr && err != nil {
			t.Errorf("guardDial(%q) = %v, want nil", tt.address, err)
		}
	}
}

func TestIsForbiddenIP(t *testing.T) {
	t.Parallel()
	tests := []struct {
		ip   string
		want bool
	}{
		// Loopback.
		{"127.0.0.1", true},
		{"127.255.0.1", true},
		{"::1", true},
		// RFC 1918 and unique local.
		{"10.0.0.1", true},
		{"172.16.0.1", true},
		{"172.31.255.255", true},
		{"192.168.1.1", true},
		{"fc00::1", true},
		{"fd12:3456::1", true},
		// Link-local, including the cloud metadata service.
		{"169.254.169.254", true},
		{"169.254.0.1", true},
		{"fe80::1", true},
		{"fe80::1%eth0", true},
		// Unspecified and "this network".
		{"0.0.0.0", true},
		{"0.1.2.3", true},
		{"::", true},
		// Multicast and broadcast.
		{"224.0.0.1", true},
		{"239.255.255.250", true},
		{"255.255.255.255", true},
		{"ff02::1", true},
		// Carrier-grade NAT.
		{"100.64.0.1", true},
		{"100.127.255.255", true},
		// IPv4-mapped and other IPv6 spellings of internal IPv4 addresses.
		{"::ffff:10.0.0.1", true},
		{"::ffff:127.0.0.1", true},
		{"::ffff:169.254.169.254", true},
		{"::127.0.0.1", true},
		{"64:ff9b::10.0.0.1", true},
		{"64:ff9b::169.254.169.254", true},
		{"2002:a00:1::1", true}, // 6to4 for 10.0.0.1
		// Other special-purpose ranges.
		{"192.0.2.1", true},
		{"198.18.0.1", true},
		{"240.0.0.1", true},
		{"2001:db8::1", true},
		{"fec0::1", true},
		// Public addresses stay allowed, including near the edges of
		// forbidden ranges and in translation prefixes carrying public IPv4.
		{"8.8.8.8", false},
		{"1.1.1.1", false},
		{"100.63.255.255", false},
		{"100.128.0.0", false},
		{"172.15.255.255", false},
		{"172.32.0.0", false},
		{"169.253.255.255", false},
		{"::ffff:8.8.8.8", false},
		{"64:ff9b::8.8.8.8", false},
		{"2002:808:808::1", false}, // 6to4 for 8.8.8.8
		{"2606:4700:4700::1111", false},
		{"2001:4860:4860::8888", false},
	}
	for _, tt := range tests {
		t.Run(tt.ip, func(t *testing.T) {
			t.Parallel()
			ip := netip.MustParseAddr(tt.ip)
			if got := IsForbiddenIP(ip); got != tt.want {
				t.Errorf("IsForbiddenIP(%s) = %v, want %v", tt.ip, got, tt.want)
			}
		})
	}

	t.Run("zero Addr", func(t *testing.T) {
		t.Parallel()
		if !IsForbiddenIP(netip.Addr{}) {
			t.Error("IsForbiddenIP(netip.Addr{}) = false, want true")
		}
	})
}

func TestValidateURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		raw        string
		live       bool
		wantErr    bool
		wantReason string // substring of the error message
	}{
		{name: "https live", raw: "https://hooks.example.com/shipd", live: true},
		{name: "https with port and query", raw: "https://hooks.example.com:8443/shipd?x=1", live: true},
		{name: "https public IP live", raw: "https://8.8.8.8/hook", live: true},
		{name: "https public IPv6 live", raw: "https://[2606:4700:4700::1111]/hook", live: true},
		{name: "http test mode", raw: "http://hooks.example.com/", live: false},
		{name: "localhost test mode", raw: "http://localhost:3000/hook", live: false},
		{name: "loopback literal test mode", raw: "http://127.0.0.1:3000/hook", live: false},
		{name: "uppercase scheme", raw: "HTTPS://hooks.example.com/", live: true},

		{name: "http live", raw: "http://hooks.example.com/", live: true, wantErr: true, wantReason: "requires an https URL"},
		{name: "empty", raw: "", wantErr: true, wantReason: "empty"},
		{name: "relative", raw: "/hooks", wantErr: true, wantReason: "absolute"},
		{name: "no scheme", raw: "hooks.example.com/x", wantErr: true, wantReason: "absolute"},
		{name: "ftp", raw: "ftp://hooks.example.com/", wantErr: true, wantReason: `scheme "ftp"`},
		{name: "javascript", raw: "javascript:alert(1)", wantErr: true, wantReason: "scheme"},
		{name: "no host", raw: "https:///path", wantErr: true, wantReason: "no host"},
		{name: "opaque", raw: "https:hooks.example.com", wantErr: true, wantReason: "no host"},
		{name: "port only", raw: "https://:443/", wantErr: true, wantReason: "no host"},
		{name: "userinfo", raw: "https://user:pass@hooks.example.com/", wantErr: true, wantReason: "user name or password"},
		{name: "user only", raw: "https://user@hooks.example.com/", wantErr: true, wantReason: "user name or password"},
		{name: "whitespace", raw: " https://hooks.example.com/", wantErr: true, wantReason: "whitespace"},
		{name: "control character", raw: "https://hooks.example.com/\n", wantErr: true},
		{name: "bad port", raw: "https://hooks.example.com:99999999999/", wantErr: true, wantReason: "between 1 and 65535"},
		{name: "port 0", raw: "https://hooks.example.com:0/", wantErr: true, wantReason: "between 1 and 65535"},
		{name: "too long", raw: "https://hooks.example.com/" + strings.Repeat("a", 2048), wantErr: true, wantReason: "longer than"},
		{name: "loopback literal live", raw: "https://127.0.0.1/hook", live: true, wantErr: true, wantReason: "not public"},
		{name: "metadata literal live", raw: "https://169.254.169.254/latest/meta-data", live: true, wantErr: true, wantReason: "not public"},
		{name: "private literal live", raw: "https://10.1.2.3/", live: true, wantErr: true, wantReason: "not public"},
		{name: "mapped private IPv6 literal live", raw: "https://[::ffff:10.0.0.1]/", live: true, wantErr: true, wantReason: "not public"},
		{name: "IPv6 loopback live", raw: "https://[::1]:8443/", live: true, wantErr: true, wantReason: "not public"},
		{name: "link-local with zone live", raw: "https://[fe80::1%25eth0]/", live: true, wantErr: true, wantReason: "not public"},
		{name: "localhost live", raw: "https://localhost/hook", live: true, wantErr: true, wantReason: "not reachable"},
		{name: "localhost subdomain live", raw: "https://api.LOCALHOST./hook", live: true, wantErr: true, wantReason: "not reachable"},
		{name: "decimal IPv4", raw: "https://2130706433/", wantErr: true, wantReason: "non-standard notation"},
		{name: "short IPv4", raw: "https://127.1/", wantErr: true, wantReason: "non-standard notation"},
		{name: "hex IPv4", raw: "https://0x7f000001/", wantErr: true, wantReason: "non-standard notation"},
		{name: "octal IPv4", raw: "https://0177.0.0.1/", wantErr: true, wantReason: "non-standard notation"},
		{name: "numeric-looking but hostname", raw: "https://1password.example.com/", live: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := ValidateURL(tt.raw, tt.live)
			if !tt.wantErr {
				if err != nil {
					t.Errorf("ValidateURL(%q, live=%v) = %v, want nil", tt.raw, tt.live, err)
				}
				return
			}
			if !errors.Is(err, ErrInvalidURL) {
				t.Fatalf("ValidateURL(%q, live=%v) = %v, want error wrapping ErrInvalidURL", tt.raw, tt.live, err)
			}
			if !strings.Contains(err.Error(), tt.wantReason) {
				t.Errorf("ValidateURL(%q) error %q does not mention %q", tt.raw, err, tt.wantReason)
			}
		})
	}
}

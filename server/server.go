// Package server is shipd's HTTP API and nothing else: the handlers of the
// generated strict server interface (one file per resource, a few lines
// each), the middleware that authenticates, authorises, limits and validates
// every request from the contract, and the mapping of domain errors to the
// contract's error bodies, written once (errors.go). The rules live in the
// domain packages (accounts, shipping, webhooks); the server calls them.
package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/trace"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/gen"
	"github.com/shipd-dev/shipd/openapi"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/shipping/addresses"
	"github.com/shipd-dev/shipd/shipping/batches"
	"github.com/shipd-dev/shipd/shipping/carrieraccounts"
	"github.com/shipd-dev/shipd/shipping/customs"
	"github.com/shipd-dev/shipd/shipping/manifests"
	"github.com/shipd-dev/shipd/shipping/pickups"
	"github.com/shipd-dev/shipd/shipping/trackers"
	"github.com/shipd-dev/shipd/webhooks"
)

// Config is what the HTTP layer needs; zero values get production defaults.
type Config struct {
	Accounts *accounts.Service
	Shipping *shipping.Service
	// Manifests and the other feature services stand on Shipping.
	Manifests       *manifests.Service
	Addresses       *addresses.Service
	Customs         *customs.Service
	Batches         *batches.Service
	Trackers        *trackers.Service
	CarrierAccounts *carrieraccounts.Service
	Pickups         *pickups.Service
	Webhooks        *webhooks.Service
	Logger          *slog.Logger
	// AccessLog writes one line per request (default Logger); serve's may
	// hold its lines a moment to write them together.
	AccessLog *slog.Logger
	// Now is the clock of rate limiting; tests replace it to move time.
	Now func() time.Time
	// PublicURL is this API's address as clients reach it, used in the
	// URLs of answers (labelUrl …). Empty: each answer's URLs are derived
	// from its request (its Host, or X-Forwarded-Host and -Proto from a
	// trusted proxy), and FallbackURL serves where no request is at hand.
	PublicURL string
	// FallbackURL is the base of URLs written without a request (a
	// request's Host that is not a host) when PublicURL is empty.
	FallbackURL string
	// MaxBodyBytes caps request bodies (413 beyond).
	MaxBodyBytes int64
	// RateLimits sets the token buckets per endpoint group.
	RateLimits RateLimitConfig
	// Ready tells /readyz whether the server can do its work (database
	// reachable, job workers running); nil means always ready.
	Ready func(ctx context.Context) error
	// ReadyDetails, when set, adds its fields to every /readyz answer (the
	// instances seen alive, say); it must not block.
	ReadyDetails func() map[string]any
	// TrustedProxies are the networks of the reverse proxies in front of
	// shipd. The client's address (a token's last IP, the limit on failed
	// authentications) is the peer's unless the peer is one of these, then
	// the nearest untrusted address in X-Forwarded-For. Empty: the peer's,
	// so no client can pick its address with a header.
	TrustedProxies []*net.IPNet
	// Metrics is where the HTTP metrics are registered (metrics.go); nil: none.
	Metrics prometheus.Registerer
	// TracerProvider traces every request (a span named by its operationId);
	// nil: no spans, though a received traceparent still reaches the logs.
	TracerProvider trace.TracerProvider
}

func (c *Config) setDefaults() {
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.AccessLog == nil {
		c.AccessLog = c.Logger
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.FallbackURL == "" {
		c.FallbackURL = cmp.Or(c.PublicURL, "http://127.0.0.1:8080")
	}
	if c.MaxBodyBytes == 0 {
		c.MaxBodyBytes = 1 << 20
	}
	if c.Ready == nil {
		c.Ready = func(context.Context) error { return nil }
	}
	c.RateLimits.setDefaults()
}

// Server implements the contract's operations.
type Server struct {
	cfg             Config
	log             *slog.Logger
	ops             operations
	accounts        *accounts.Service
	shipping        *shipping.Service
	manifests       *manifests.Service
	addresses       *addresses.Service
	customs         *customs.Service
	batches         *batches.Service
	trackers        *trackers.Service
	carrierAccounts *carrieraccounts.Service
	pickups         *pickups.Service
	webhooks        *webhooks.Service
	metrics         *httpMetrics // nil: not measured
	tracer          trace.Tracer // nil: not traced
	rendered        *renderedLabels
}

var _ gen.StrictServerInterface = (*Server)(nil)

// New builds the server and the Echo instance that serves it.
func New(cfg Config) (*echo.Echo, *Server, error) {
	cfg.setDefaults()
	if cfg.Accounts == nil || cfg.Shipping == nil || cfg.Webhooks == nil {
		return nil, nil, errors.New("server: Config.Accounts, Shipping and Webhooks are required")
	}
	doc, err := openapi3.NewLoader().LoadFromData(openapi.YAML)
	if err != nil {
		return nil, nil, fmt.Errorf("load contract: %w", err)
	}
	ops, err := loadOperations(doc)
	if err != nil {
		return nil, nil, err
	}
	s := &Server{cfg: cfg, log: cfg.Logger, ops: ops, accounts: cfg.Accounts, shipping: cfg.Shipping, manifests: cfg.Manifests, addresses: cfg.Addresses, customs: cfg.Customs, batches: cfg.Batches, trackers: cfg.Trackers, carrierAccounts: cfg.CarrierAccounts, pickups: cfg.Pickups, webhooks: cfg.Webhooks, rendered: newRenderedLabels()}
	if cfg.Metrics != nil {
		if s.metrics, err = newHTTPMetrics(cfg.Metrics, ops); err != nil {
			return nil, nil, fmt.Errorf("HTTP metrics: %w", err)
		}
		s.cfg.RateLimits.Limiter = countingLimiter{Limiter: cfg.RateLimits.Limiter, counted: s.metrics.limited}
	}
	if cfg.TracerProvider != nil {
		s.tracer = cfg.TracerProvider.Tracer("github.com/shipd-dev/shipd/server")
	}

	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	e.HTTPErrorHandler = func(err error, c echo.Context) { s.writeError(c, err) }
	e.IPExtractor = echo.IPExtractor(ClientIP(cfg.TrustedProxies))
	e.Use(s.requestID, s.publicBase, s.traceRequests, s.accessLog, s.measure, s.recoverPanics, s.refuseMissingMethods(), s.limitBody, s.rejectTokenInQuery, s.authenticate, s.rateLimit, s.refuseUnstorableText, s.validateRequest)
	gen.RegisterHandlersWithBaseURL(e, gen.NewStrictHandler(s, nil), BasePath)
	e.GET("/healthz", func(c echo.Context) error { return c.JSON(http.StatusOK, map[string]string{"status": "ok"}) })
	e.GET("/readyz", s.readyz)
	return e, s, nil
}

// ClientIP returns how a request's client address is read: the peer's, or,
// when the peer is one of the trusted proxies, the nearest untrusted address
// in X-Forwarded-For. Echo's default would trust X-Forwarded-For from anyone.
// The settings UI reads addresses the same way.
func ClientIP(trusted []*net.IPNet) func(*http.Request) string {
	if len(trusted) == 0 {
		return echo.ExtractIPDirect()
	}
	opts := []echo.TrustOption{echo.TrustLoopback(false), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false)}
	for _, n := range trusted {
		opts = append(opts, echo.TrustIPRange(n))
	}
	return echo.ExtractIPFromXFFHeader(opts...)
}

// NotReadyError is what Config.Ready returns when shipd cannot do its
// work: each check's state, "ok" or what is wrong. /readyz shows them.
type NotReadyError struct {
	Checks map[string]string
}

func (e *NotReadyError) Error() string {
	var wrong []string
	for _, name := range slices.Sorted(maps.Keys(e.Checks)) {
		if state := e.Checks[name]; state != "ok" {
			wrong = append(wrong, name+": "+state)
		}
	}
	return "not ready: " + strings.Join(wrong, "; ")
}

// readyz answers 200 {"status": "ready"} or 503 with the error body, the
// status "unready" and, when Ready says, the state of each check.
func (s *Server) readyz(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), 2*time.Second)
	defer cancel()
	if err := s.cfg.Ready(ctx); err != nil {
		body := map[string]any{"code": "not_ready", "error": err.Error(), "status": "unready"}
		if id := requestIDFrom(ctx); id != "" {
			body["requestId"] = id
		}
		if nr := (*NotReadyError)(nil); errors.As(err, &nr) {
			body["checks"] = nr.Checks
		}
		s.readyDetails(body)
		return c.JSON(http.StatusServiceUnavailable, body)
	}
	body := map[string]any{"status": "ready"}
	s.readyDetails(body)
	return c.JSON(http.StatusOK, body)
}

func (s *Server) readyDetails(body map[string]any) {
	if s.cfg.ReadyDetails == nil {
		return
	}
	for k, v := range s.cfg.ReadyDetails() {
		if _, taken := body[k]; !taken {
			body[k] = v
		}
	}
}

// Package server is shipd's HTTP API: the handlers of the generated strict
// server interface, the middleware that authenticates, authorises and
// validates every request from the contract, and the background jobs.
package server

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/jmoiron/sqlx"
	"github.com/labstack/echo/v4"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivertype"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/sandbox"
	"github.com/shipd-dev/shipd/carriers/verifier"
	"github.com/shipd-dev/shipd/gen"
	"github.com/shipd-dev/shipd/openapi"
	"github.com/shipd-dev/shipd/seal"
	"github.com/shipd-dev/shipd/store"
)

// Config is everything the server needs; zero values get production defaults.
type Config struct {
	Store  *store.Store
	Logger *slog.Logger
	// Now is the clock; tests replace it to move time.
	Now func() time.Time
	// PublicURL is this API's address as clients reach it, used in labelUrl.
	PublicURL string
	// MaxBodyBytes caps request bodies (413 beyond).
	MaxBodyBytes int64
	// WebhookCipher encrypts signing secrets at rest.
	WebhookCipher *seal.Cipher
	// UsageFlushInterval is how often tokens' last use is written.
	UsageFlushInterval time.Duration
	// JobPollInterval is how often idle workers look for new jobs.
	JobPollInterval time.Duration
	// Carriers serves rates and purchases per mode (default: the sandbox for test, none for live).
	Carriers *carriers.Registry
	// TestVerifier and LiveVerifier verify addresses per mode (default: the sandbox for test, none for live).
	TestVerifier verifier.Verifier
	LiveVerifier verifier.Verifier
	// Labels stores label documents.
	Labels LabelStore
	// PlatformFeeCents is added to every rate; nil means the default of 8.
	PlatformFeeCents *int64
	// PurchaseRetryBase is the first retry delay of a purchase or refund the carrier could not take.
	PurchaseRetryBase time.Duration
	// PurchaseAttempts is how many times a purchase is tried while the carrier is unavailable.
	PurchaseAttempts int
	// IdempotencyWait bounds how long a retry waits for its key's first request.
	IdempotencyWait IdempotencyWait
	// RateLimits sets the token buckets per endpoint group.
	RateLimits RateLimitConfig
	// Webhooks tunes webhook delivery.
	Webhooks WebhookDeliveryConfig
	// failIdempotencyRecording makes storing an idempotent response fail, as a
	// crash between a request's commit and its recording would; for tests.
	failIdempotencyRecording bool
	// beforeWrite runs before each write transaction; tests use it to revoke a token mid-request.
	beforeWrite func(ctx context.Context)
}

func (c *Config) setDefaults() {
	if c.Logger == nil {
		c.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.PublicURL == "" {
		c.PublicURL = "http://127.0.0.1:8080"
	}
	if c.MaxBodyBytes == 0 {
		c.MaxBodyBytes = 1 << 20
	}
	if c.UsageFlushInterval == 0 {
		c.UsageFlushInterval = 5 * time.Second
	}
	if c.Carriers == nil {
		c.Carriers = carriers.NewRegistry(sandbox.New(sandbox.Config{}), nil)
	}
	if c.TestVerifier == nil {
		c.TestVerifier = verifier.NewSandbox()
	}
	if c.PurchaseAttempts == 0 {
		c.PurchaseAttempts = 8
	}
	if c.PurchaseRetryBase == 0 {
		c.PurchaseRetryBase = 2 * time.Second
	}
	c.IdempotencyWait.setDefaults()
	c.RateLimits.setDefaults()
	c.Webhooks.setDefaults()
	if c.JobPollInterval == 0 {
		c.JobPollInterval = 20 * time.Millisecond
	}
}

// Server implements the contract's operations.
type Server struct {
	cfg        Config
	store      *store.Store
	log        *slog.Logger
	ops        operations
	usage      *usageRecorder
	jobs       *river.Client[*sql.Tx]
	hasWorkers bool

	stopBackground context.CancelFunc
	backgroundDone chan struct{}
}

var _ gen.StrictServerInterface = (*Server)(nil)

// Setup builds the server and the Echo instance that serves it; cmd/shipd and
// the tests share it. Call Start to run background work and Stop to end it.
func Setup(cfg Config) (*echo.Echo, *Server, error) {
	cfg.setDefaults()
	if cfg.Store == nil {
		return nil, nil, errors.New("server: Config.Store is required")
	}
	if cfg.Labels == nil {
		return nil, nil, errors.New("server: Config.Labels is required")
	}
	if cfg.WebhookCipher == nil {
		return nil, nil, errors.New("server: Config.WebhookCipher is required")
	}
	doc, err := openapi3.NewLoader().LoadFromData(openapi.YAML)
	if err != nil {
		return nil, nil, fmt.Errorf("load contract: %w", err)
	}
	ops, err := loadOperations(doc)
	if err != nil {
		return nil, nil, err
	}
	s := &Server{cfg: cfg, store: cfg.Store, log: cfg.Logger, ops: ops, usage: newUsageRecorder()}

	workers := river.NewWorkers()
	var queues map[string]river.QueueConfig
	s.hasWorkers = s.registerWorkers(workers)
	if s.hasWorkers {
		queues = map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 8}}
		// Deliveries get their own workers, so slow receivers never hold up purchases.
		if q := cfg.Webhooks.Queue; q != river.QueueDefault {
			queues[q] = river.QueueConfig{MaxWorkers: cfg.Webhooks.Concurrency}
		}
	}
	s.jobs, err = river.NewClient(riversqlite.New(cfg.Store.W.DB), &river.Config{
		Workers:           workers,
		Queues:            queues,
		FetchPollInterval: cfg.JobPollInterval,
		FetchCooldown:     cfg.JobPollInterval / 2,
		Logger:            slog.New(minLevel{cfg.Logger.Handler(), slog.LevelWarn}),
		PeriodicJobs:      s.idempotencyPeriodicJobs(),
		Middleware:        []rivertype.Middleware{river.JobInsertMiddlewareFunc(dueWithoutScheduler)},
		JobTimeout:        time.Minute,
		// A job that was running when the process died is retried after this.
		RescueStuckJobsAfter: 2 * time.Minute,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("job client: %w", err)
	}

	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	e.HTTPErrorHandler = func(err error, c echo.Context) { s.writeError(c, err) }
	e.Use(s.requestID, s.accessLog, s.recoverPanics, s.limitBody, s.rejectTokenInQuery, s.authenticate, s.rateLimit, s.validateRequest, s.idempotency)
	gen.RegisterHandlersWithBaseURL(e, gen.NewStrictHandler(s, nil), BasePath)
	e.GET("/healthz", func(c echo.Context) error { return c.JSON(http.StatusOK, map[string]string{"status": "ok"}) })
	e.GET("/readyz", s.readyz)
	return e, s, nil
}

func (s *Server) readyz(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), 2*time.Second)
	defer cancel()
	if err := s.store.Ping(ctx); err != nil {
		return newAPIError(http.StatusServiceUnavailable, "database_unavailable", "the database does not answer")
	}
	return c.JSON(http.StatusOK, map[string]string{"status": "ready"})
}

// Start runs the job workers and the periodic flush of token use.
func (s *Server) Start(ctx context.Context) error {
	if s.hasWorkers {
		if err := s.jobs.Start(ctx); err != nil {
			return fmt.Errorf("start jobs: %w", err)
		}
	}
	bg, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.stopBackground = cancel
	s.backgroundDone = make(chan struct{})
	go func() {
		defer close(s.backgroundDone)
		t := time.NewTicker(s.cfg.UsageFlushInterval)
		defer t.Stop()
		for {
			select {
			case <-bg.Done():
				return
			case <-t.C:
				s.flushUsage(bg)
			}
		}
	}()
	return nil
}

// Stop lets running jobs finish (until ctx ends, then cancels them) and writes
// the pending token use. The HTTP server must already be shut down.
func (s *Server) Stop(ctx context.Context) error {
	var errs []error
	if !s.hasWorkers {
		// insert-only client: nothing runs
	} else if err := s.jobs.Stop(ctx); err != nil {
		errs = append(errs, fmt.Errorf("stop jobs: %w", err))
		cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		errs = append(errs, s.jobs.StopAndCancel(cctx))
		cancel()
	}
	if s.stopBackground != nil {
		s.stopBackground()
		<-s.backgroundDone
	}
	s.flushUsage(context.WithoutCancel(ctx))
	return errors.Join(errs...)
}

// dueWithoutScheduler inserts future jobs as available with their
// scheduled_at instead of as scheduled. River's fetch already waits for
// scheduled_at, but it promotes scheduled jobs only every 5 s, a fixed
// interval far coarser than a sandbox tracking scan or a purchase retry needs;
// this way a due job starts within one poll interval.
func dueWithoutScheduler(ctx context.Context, params []*rivertype.JobInsertParams, doInner func(context.Context) ([]*rivertype.JobInsertResult, error)) ([]*rivertype.JobInsertResult, error) {
	for _, p := range params {
		if p.State == rivertype.JobStateScheduled {
			p.State = rivertype.JobStateAvailable
		}
	}
	return doInner(ctx)
}

// minLevel drops records below a level: River reports routine work (job
// counts, leadership) at INFO every few seconds, which would drown the access log.
type minLevel struct {
	slog.Handler
	level slog.Level
}

func (h minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.level && h.Handler.Enabled(ctx, l)
}

func (h minLevel) WithAttrs(attrs []slog.Attr) slog.Handler {
	return minLevel{h.Handler.WithAttrs(attrs), h.level}
}

func (h minLevel) WithGroup(name string) slog.Handler {
	return minLevel{h.Handler.WithGroup(name), h.level}
}

// LabelStore keeps label documents; store.FileBlobs is the default.
type LabelStore interface {
	Put(ctx context.Context, key string, data []byte) error
	Get(ctx context.Context, key string) ([]byte, error)
}

func (c *Config) platformFee() int64 {
	if c.PlatformFeeCents == nil {
		return 8
	}
	return *c.PlatformFeeCents
}

func (s *Server) now() time.Time { return s.cfg.Now().UTC() }

// writeTx runs fn in a write transaction that first re-reads the caller's
// token, so a token revoked while its request was in flight commits nothing.
func (s *Server) writeTx(ctx context.Context, fn func(tx *sqlx.Tx) error) error {
	if s.cfg.beforeWrite != nil {
		s.cfg.beforeWrite(ctx)
	}
	return s.store.Tx(ctx, func(tx *sqlx.Tx) error {
		if p := principalFrom(ctx); p != nil {
			if err := store.CheckTokenTx(ctx, tx, p.TokenID, s.now()); err != nil {
				return err
			}
		}
		return fn(tx)
	})
}

// tokenFailure maps a write transaction's token re-check to its 401 body.
func tokenFailure(ctx context.Context, err error) (gen.Error, bool) {
	switch {
	case errors.Is(err, store.ErrTokenRevoked):
		return errorBody(ctx, "token_revoked", "this token was revoked"), true
	case errors.Is(err, store.ErrTokenExpired):
		return errorBody(ctx, "token_expired", "this token has expired"), true
	}
	return gen.Error{}, false
}

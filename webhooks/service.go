package webhooks

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/idempotency"
	"github.com/shipd-dev/shipd/seal"
	"github.com/shipd-dev/shipd/store"
)

// Which addresses test-mode deliveries may reach (DeliveryConfig.TestTargets).
// Live mode only ever reaches public addresses.
const (
	// TestTargetsLoopback allows public addresses and loopback, so a developer
	// (and the tests) can receive on 127.0.0.1; private networks, link-local
	// and cloud metadata addresses stay blocked.
	TestTargetsLoopback = "loopback"
	// TestTargetsPublic treats test mode like live mode.
	TestTargetsPublic = "public"
	// TestTargetsAny lets test mode reach every address; for development only.
	TestTargetsAny = "any"
)

// DeliveryConfig tunes webhook delivery (VARIANTS.md: delivery semantics Variant A).
type DeliveryConfig struct {
	// RetrySchedule is the wait after failed automatic attempt n before
	// attempt n+1 (entry n-1; the last entry repeats). Default 1m, 5m, 25m, 2h.
	RetrySchedule []time.Duration
	// MaxAttempts is the number of automatic attempts before a delivery is failed. Default 5.
	MaxAttempts int
	// Timeout bounds one attempt, from dial to the end of the response. Default 10 s.
	Timeout time.Duration
	// Concurrency is the number of deliveries sent at once. Default 64: a
	// delivery mostly waits for its receiver, and on SQLite more of them
	// at once make larger group commits and job fetches.
	Concurrency int
	// MaxResponseBodyBytes is how much of a receiver's response body is read. Default 64 KiB.
	MaxResponseBodyBytes int64
	// RecordWindow is how long the outcomes of one job's deliveries wait
	// for each other to be recorded in one transaction: those that arrive
	// within it of the first are. Default 5 ms. Receivers that answer
	// together cost one transaction rather than two or more (the first
	// outcome alone, then the rest), and a delivery's record is late by
	// at most the window; its sending is not delayed at all.
	RecordWindow time.Duration
	// Queue is the River queue of delivery jobs. Default "webhooks".
	Queue string
	// TestTargets says which addresses test-mode deliveries may reach:
	// TestTargetsLoopback (default), TestTargetsPublic or TestTargetsAny.
	TestTargets string
}

func (c *DeliveryConfig) setDefaults() {
	if len(c.RetrySchedule) == 0 {
		c.RetrySchedule = []time.Duration{time.Minute, 5 * time.Minute, 25 * time.Minute, 2 * time.Hour}
	}
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = 5
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultClientTimeout
	}
	if c.Concurrency <= 0 {
		c.Concurrency = 64
	}
	if c.MaxResponseBodyBytes <= 0 {
		c.MaxResponseBodyBytes = 64 << 10
	}
	if c.RecordWindow <= 0 {
		c.RecordWindow = 5 * time.Millisecond
	}
	if c.Queue == "" {
		c.Queue = "webhooks"
	}
	switch c.TestTargets {
	case TestTargetsLoopback, TestTargetsPublic, TestTargetsAny:
	case "":
		c.TestTargets = TestTargetsLoopback
	default:
		c.TestTargets = TestTargetsPublic // an unknown value gets the safe one
	}
}

// Config is what the service needs; zero values get defaults.
type Config struct {
	// Now is the time of records (attempts, next attempt times); nil means
	// time.Now.
	Now func() time.Time
	// JobNow is the time base of job schedules (River compares scheduled_at
	// with the database's clock): an attempt due at a time of Now's is
	// scheduled that long after JobNow(). nil means time.Now; a test that
	// works jobs by hand sets it to its clock.
	JobNow   func() time.Time
	Logger   *slog.Logger
	Delivery DeliveryConfig
}

// Service owns subscriptions, the event history and deliveries.
type Service struct {
	store    Storage
	accounts *accounts.Service
	idem     *idempotency.Service
	cipher   *seal.Cipher
	now      func() time.Time
	jobNow   func() time.Time
	log      *slog.Logger
	cfg      DeliveryConfig

	liveClient, testClient *http.Client
	// sending holds a slot per delivery in flight (Concurrency of them).
	sending chan struct{}
	// recorder shares transactions between the records of concurrent jobs.
	recorder recorder
}

// New returns the webhooks service.
func New(st Storage, acc *accounts.Service, idem *idempotency.Service, cipher *seal.Cipher, cfg Config) *Service {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.JobNow == nil {
		cfg.JobNow = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	cfg.Delivery.setDefaults()
	// Times are kept to the microsecond, as PostgreSQL stores them, so an
	// answer shows a time exactly as a later read will.
	return &Service{
		store: st, accounts: acc, idem: idem, cipher: cipher,
		now: func() time.Time { return cfg.Now().UTC().Truncate(time.Microsecond) }, jobNow: cfg.JobNow, log: cfg.Logger, cfg: cfg.Delivery,
		liveClient: NewHTTPClient(ClientOptions{Timeout: cfg.Delivery.Timeout}),
		testClient: newTestModeClient(cfg.Delivery.TestTargets, cfg.Delivery.Timeout),
		sending:    make(chan struct{}, cfg.Delivery.Concurrency),
	}
}

// Queue is the River queue delivery jobs run on, and its concurrency.
func (s *Service) Queue() (name string, workers int) { return s.cfg.Queue, s.cfg.Concurrency }

// write runs fn in a write transaction made for the caller, which first
// re-checks the caller's token (a token revoked in flight commits nothing).
func (s *Service) write(ctx context.Context, c accounts.Caller, fn func(tx *store.Tx) error) error {
	return s.store.Tx(ctx, func(tx *store.Tx) error {
		if err := s.accounts.Recheck(ctx, tx, c); err != nil {
			return err
		}
		return fn(tx)
	})
}

func (s *Service) client(mode string) *http.Client {
	if accounts.Mode(mode) == accounts.Test {
		return s.testClient
	}
	return s.liveClient
}

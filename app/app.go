// Package app assembles shipd: the domain services over a store, the job
// workers and the HTTP server. cmd/shipd decides what goes in (which store,
// which carriers, which verifier, from flags and the environment); the tests
// build the same App with their own choices.
package app

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/riverqueue/river"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/connectors"
	"github.com/shipd-dev/shipd/carriers/verifier"
	"github.com/shipd-dev/shipd/exchangerates"
	"github.com/shipd-dev/shipd/idempotency"
	"github.com/shipd-dev/shipd/internal/pdfmerge"
	"github.com/shipd-dev/shipd/seal"
	"github.com/shipd-dev/shipd/server"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/shipping/addresses"
	"github.com/shipd-dev/shipd/shipping/batches"
	"github.com/shipd-dev/shipd/shipping/carrieraccounts"
	"github.com/shipd-dev/shipd/shipping/customs"
	"github.com/shipd-dev/shipd/shipping/labeljobs"
	"github.com/shipd-dev/shipd/shipping/manifests"
	"github.com/shipd-dev/shipd/shipping/pickups"
	"github.com/shipd-dev/shipd/shipping/trackers"
	"github.com/shipd-dev/shipd/store"
	"github.com/shipd-dev/shipd/telemetry"
	"github.com/shipd-dev/shipd/ui"
	"github.com/shipd-dev/shipd/webhooks"
)

// Config is everything shipd runs with; zero values get production defaults.
type Config struct {
	Store  *store.Store
	Logger *slog.Logger
	// AccessLog writes the access log's line of each request (default Logger).
	AccessLog *slog.Logger
	// Now is the clock; tests replace it to move time.
	Now func() time.Time
	// Cipher seals what must be kept readable but secret: webhook signing
	// secrets and the results of idempotent requests.
	Cipher *seal.Cipher
	// PublicURL is the API's address as clients reach it, used in labelUrl
	// and the other URLs of answers and events. Empty: answers derive it
	// from each request (server.Config.PublicURL), and events and the rest
	// use FallbackURL.
	PublicURL string
	// FallbackURL is the base of URLs written without a request when
	// PublicURL is empty (default http://127.0.0.1:8080).
	FallbackURL string
	// Carriers serves rates and purchases per mode.
	Carriers *carriers.Registry
	// Catalog describes the carriers shipd knows; nil: connectors.Catalog().
	Catalog *carriers.Catalog
	// CarrierAccounts builds the clients of the accounts' own carrier
	// accounts (POST /carrier-accounts); nil: none can be connected.
	CarrierAccounts carriers.Factory
	// NoPlatformCarriers: in live mode, an account without an enabled
	// carrier account gets 422 no_carrier_accounts instead of Carriers'
	// live carriers (serve --platform-carriers=false).
	NoPlatformCarriers bool
	// TestVerifier and LiveVerifier verify addresses per mode; nil: not configured.
	TestVerifier, LiveVerifier verifier.Verifier
	// Documents stores label documents.
	Documents shipping.Documents
	// PlatformFeeCents is added to every rate, in the minor unit of the
	// account's currency; nil means the default of 8.
	PlatformFeeCents *int64
	// PlatformFees sets the fee per currency over PlatformFeeCents
	// (serve --platform-fee EUR=10).
	PlatformFees map[string]int64
	// PurchaseRetryBase and PurchaseAttempts tune purchases while a carrier is unavailable.
	PurchaseRetryBase time.Duration
	PurchaseAttempts  int
	// CarrierTimeout bounds each carrier's answer to a quote (default 10 s).
	CarrierTimeout time.Duration
	// TrackingPollInterval, when set, polls live tracking at a fixed interval (tests).
	TrackingPollInterval time.Duration
	// TrackerLimit is how many active standalone trackers an account may
	// have in each mode: 0 is shipping.DefaultTrackerLimit, negative is none.
	TrackerLimit int
	// ExchangeRates converts carriers' prices into accounts' currencies;
	// nil: only prices already in an account's currency are quoted.
	ExchangeRates *exchangerates.File
	// CarrierQuotas are the budgets of live carrier calls per carrier and API
	// (carriers.Limit; cmd/shipd gives carriers.DefaultQuotas); nil: none,
	// though a carrier's 429 still pauses its API.
	CarrierQuotas carriers.Quotas
	// CarrierAccountQuotas are the budgets of each carrier account's client,
	// by its client id (carriers.Factory.Limited); nil: none, though a
	// carrier's 429 still pauses that client's API.
	CarrierAccountQuotas carriers.Quotas
	// CarrierLimiter keeps the budgets: nil, in this process; shared by
	// instances through Redis when cmd/shipd is given --redis-url.
	CarrierLimiter carriers.Limiter
	// IdempotencyWait bounds how long a retry waits for its key's first request.
	IdempotencyWait idempotency.Wait
	// MaxBodyBytes caps request bodies (413 beyond).
	MaxBodyBytes int64
	// RateLimits sets the token buckets per endpoint group.
	RateLimits server.RateLimitConfig
	// Webhooks tunes webhook delivery.
	Webhooks webhooks.DeliveryConfig
	// JobPollInterval is how often idle workers look for due jobs. Default
	// 1 s on SQLite, where the store wakes them when jobs are inserted or
	// come due; 250 ms on PostgreSQL (where inserts also notify).
	JobPollInterval time.Duration
	// JobWorkers is the number of void, tracking and upkeep jobs run at once. Default 8.
	JobWorkers int
	// PurchaseWorkers is the number of purchases run at once, on their own
	// queue. Default 64 (shipping.DefaultPurchaseWorkers); negative: none on
	// this instance, which still accepts labels for others to buy.
	PurchaseWorkers int
	// MaxPurchaseBacklog is how many purchases may wait for a worker before
	// creates get 503 purchase_queue_full. Default 5,000; negative: no bound.
	MaxPurchaseBacklog int
	// UsageFlushInterval is how often tokens' last use is written. Default 5 s.
	UsageFlushInterval time.Duration
	// JobRescueAfter is how long a job may run before it counts as stuck
	// (its instance died) and another instance runs it again. Default 2 min.
	JobRescueAfter time.Duration
	// NodeID names this instance among those of one database (River's client id).
	NodeID string
	// InstanceDeadAfter is, on PostgreSQL, how stale an instance's
	// heartbeat must be before another takes back its running jobs (see
	// failover.go). Default 10 s (DefaultInstanceDeadAfter).
	InstanceDeadAfter time.Duration
	// TrustedProxies are the networks of the reverse proxies in front of
	// shipd, whose X-Forwarded-For names the client (API and settings UI).
	TrustedProxies []*net.IPNet
	// PasswordCost is the bcrypt cost of users' passwords (default 12; tests lower it).
	PasswordCost int
	// PasswordChecks bounds the bcrypt work of sign-ins (default: GOMAXPROCS/2
	// at once, a 1 s wait for a slot); tests count the checks with it.
	PasswordChecks accounts.PasswordChecks
	// Telemetry is the App's metrics registry and tracer provider, one per
	// App (its collectors read this App's store); nil: a new one, with
	// metrics and without traces.
	Telemetry *telemetry.Telemetry
	// PDFBudget bounds what reading label PDFs may allocate, per document
	// and across every merge and purchase check at once; nil: pdfmerge's
	// defaults (64 MiB in all, 8 MiB a document). Tests read its counters.
	PDFBudget *pdfmerge.Budget
}

// App is shipd assembled.
type App struct {
	Accounts *accounts.Service
	Shipping *shipping.Service
	// LabelJobs buys, voids and tracks the labels Shipping accepts.
	LabelJobs *labeljobs.Service
	// Manifests and the other feature services stand on Shipping.
	Manifests       *manifests.Service
	Addresses       *addresses.Service
	Customs         *customs.Service
	Batches         *batches.Service
	Trackers        *trackers.Service
	CarrierAccounts *carrieraccounts.Service
	Pickups         *pickups.Service
	Webhooks        *webhooks.Service

	cfg     Config
	handler http.Handler
	jobs    *river.Client[*sql.Tx]
	// failover heartbeats and takes jobs back (nil on SQLite).
	failover *failover

	stopBackground context.CancelFunc
	backgroundDone chan struct{}

	// jobsDone is the job client's Stopped channel once started; stopping
	// is set when Stop begins (readiness).
	jobsDone atomic.Pointer[<-chan struct{}]
	stopping atomic.Bool
}

// New assembles shipd; Start runs its background work, Stop ends it.
func New(cfg Config) (*App, error) {
	if cfg.Store == nil || cfg.Cipher == nil || cfg.Carriers == nil || cfg.Documents == nil {
		return nil, errors.New("app: Config.Store, Cipher, Carriers and Documents are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.AccessLog == nil {
		cfg.AccessLog = cfg.Logger
	}
	if cfg.Catalog == nil {
		cfg.Catalog = connectors.Catalog()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.FallbackURL == "" {
		cfg.FallbackURL = cmp.Or(cfg.PublicURL, "http://127.0.0.1:8080")
	}
	// events, documents and the settings pages: the one base they have.
	base := cmp.Or(cfg.PublicURL, cfg.FallbackURL)
	if cfg.JobPollInterval <= 0 {
		// On SQLite the store wakes this process's workers when a
		// transaction that inserted jobs commits, and when a job inserted
		// for the next 30 s becomes due; polling only finds what River
		// itself makes due (retries, jobs scheduled further ahead, which
		// its scheduler promotes every 5 s anyway) and what the CLI
		// inserts. An idle server then costs next to nothing.
		cfg.JobPollInterval = time.Second
		if cfg.Store.Shared() {
			// PostgreSQL wakes workers with LISTEN/NOTIFY when a job is
			// inserted, but River sends one per queue and 100 ms at most:
			// polling finds the jobs inserted in between, and those whose
			// time has come.
			cfg.JobPollInterval = 250 * time.Millisecond
		}
	}
	if cfg.JobWorkers <= 0 {
		cfg.JobWorkers = 8
	}
	if cfg.UsageFlushInterval <= 0 {
		cfg.UsageFlushInterval = 5 * time.Second
	}
	if cfg.JobRescueAfter <= 0 {
		cfg.JobRescueAfter = 2 * time.Minute
	}
	if err := instrument(&cfg); err != nil {
		return nil, err
	}
	a := &App{cfg: cfg, failover: newFailover(cfg)}
	a.Accounts = accounts.New(cfg.Store, accounts.Config{Now: cfg.Now, Logger: cfg.Logger, PasswordCost: cfg.PasswordCost,
		PasswordChecks: cfg.PasswordChecks})
	idem := idempotency.New(cfg.Store, cfg.Cipher, idempotency.Config{Now: cfg.Now, Wait: cfg.IdempotencyWait, Logger: cfg.Logger})
	a.Webhooks = webhooks.New(cfg.Store, a.Accounts, idem, cfg.Cipher, webhooks.Config{Now: cfg.Now, Logger: cfg.Logger, Delivery: cfg.Webhooks})
	var err error
	a.Shipping, err = shipping.New(cfg.Store, a.Accounts, a.Webhooks, idem, shipping.Config{
		Now: cfg.Now, Logger: cfg.Logger, Carriers: cfg.Carriers, Catalog: cfg.Catalog,
		TestVerifier: cfg.TestVerifier, LiveVerifier: cfg.LiveVerifier, Documents: cfg.Documents,
		EventData:        server.ShipmentEventData(base),
		TrackerEventData: server.TrackerEventData,
		PlatformFeeCents: cfg.PlatformFeeCents, PlatformFees: cfg.PlatformFees, ExchangeRates: cfg.ExchangeRates, PurchaseRetryBase: cfg.PurchaseRetryBase, PurchaseAttempts: cfg.PurchaseAttempts,
		CarrierTimeout: cfg.CarrierTimeout, TrackingPollInterval: cfg.TrackingPollInterval, TrackerLimit: cfg.TrackerLimit,
		PurchaseWorkers: cfg.PurchaseWorkers, MaxPurchaseBacklog: cfg.MaxPurchaseBacklog,
		Observer:        cfg.Telemetry.Shipments(),
		CarrierAccounts: cfg.CarrierAccounts, Cipher: cfg.Cipher, NoPlatformCarriers: cfg.NoPlatformCarriers,
		PDFBudget: cfg.PDFBudget,
	})
	if err != nil {
		return nil, err
	}

	a.Manifests = manifests.New(cfg.Store, a.Shipping, a.Accounts, a.Webhooks, idem,
		manifests.Config{EventData: server.ManifestEventData(base)})
	a.Pickups = pickups.New(cfg.Store, a.Shipping, a.Accounts, idem)
	a.CarrierAccounts = carrieraccounts.New(cfg.Store, a.Shipping, a.Accounts, idem)
	a.LabelJobs = labeljobs.New(cfg.Store, a.Shipping)
	a.Trackers = trackers.New(cfg.Store, a.Shipping, a.LabelJobs, a.Accounts, idem)
	a.Customs = customs.New(cfg.Store, a.Shipping)
	a.Batches = batches.New(cfg.Store, a.Shipping, a.Customs, a.Accounts, a.Webhooks, idem,
		batches.Config{EventData: server.BatchEventData(base)})
	a.Addresses = addresses.New(cfg.Store, a.Shipping, a.Accounts, idem)

	workers := river.NewWorkers()
	a.LabelJobs.RegisterWorkers(workers)
	a.Manifests.RegisterWorkers(workers)
	a.Webhooks.RegisterWorkers(workers)
	idem.RegisterWorkers(workers)
	deliveryQueue, deliveryWorkers := a.Webhooks.Queue()
	purchaseQueue, purchaseWorkers := a.Shipping.PurchaseQueueConfig()
	queues := map[string]river.QueueConfig{
		river.QueueDefault: {MaxWorkers: cfg.JobWorkers},
		// Purchases and deliveries get their own workers: slow carriers and
		// slow receivers never hold up each other nor the rest.
		deliveryQueue: {MaxWorkers: deliveryWorkers},
	}
	if purchaseWorkers > 0 {
		queues[purchaseQueue] = river.QueueConfig{MaxWorkers: purchaseWorkers}
	}
	a.jobs, err = cfg.Store.JobClient(&river.Config{
		Workers:           workers,
		Queues:            queues,
		FetchPollInterval: cfg.JobPollInterval,
		FetchCooldown:     fetchCooldown(cfg.JobPollInterval),
		Logger:            slog.New(minLevel{cfg.Logger.Handler(), slog.LevelWarn}),
		PeriodicJobs:      idem.PeriodicJobs(),
		// A job's run is bounded, and one that has run longer than
		// JobRescueAfter (its instance died) is run again by another.
		JobTimeout:           min(time.Minute, cfg.JobRescueAfter),
		RescueStuckJobsAfter: cfg.JobRescueAfter,
		ID:                   cfg.NodeID,
		Middleware:           append(jobMiddleware(cfg.Telemetry, deliveryQueue), a.failover.middleware()...),
	})
	if err != nil {
		return nil, fmt.Errorf("job client: %w", err)
	}

	e, _, err := server.New(server.Config{
		Accounts: a.Accounts, Webhooks: a.Webhooks, Shipping: a.Shipping, Batches: a.Batches, Manifests: a.Manifests, Addresses: a.Addresses, Customs: a.Customs,
		Pickups: a.Pickups, Trackers: a.Trackers, CarrierAccounts: a.CarrierAccounts, Logger: cfg.Logger, AccessLog: cfg.AccessLog, Now: cfg.Now,
		PublicURL: cfg.PublicURL, FallbackURL: cfg.FallbackURL, MaxBodyBytes: cfg.MaxBodyBytes, RateLimits: cfg.RateLimits, Ready: a.Ready,
		ReadyDetails:   a.readyDetails,
		TrustedProxies: cfg.TrustedProxies,
		Metrics:        cfg.Telemetry.Registerer(), TracerProvider: cfg.Telemetry.TracerProvider(),
	})
	if err != nil {
		return nil, err
	}
	settings, err := ui.New(ui.Config{Accounts: a.Accounts, Webhooks: a.Webhooks, Shipping: a.Shipping, Batches: a.Batches,
		Manifests: a.Manifests, Customs: a.Customs, Pickups: a.Pickups, Trackers: a.Trackers, CarrierAccounts: a.CarrierAccounts,
		Logger: cfg.Logger, Now: cfg.Now, PublicURL: base, ClientIP: server.ClientIP(cfg.TrustedProxies)})
	if err != nil {
		return nil, err
	}
	a.handler = cfg.Telemetry.InFlight(withSettings(e, settings))
	return a, nil
}

// fetchCooldown is the least time between two fetches of a queue's workers.
// A fetch follows every commit that inserted jobs (SQLite: this process
// wakes its workers; PostgreSQL: River's LISTEN hears the insert), so the
// cooldown is most of a new job's wait for a worker. 10 ms keeps a burst of
// commits from making a fetch each (on SQLite a write transaction, on
// PostgreSQL a locking query per instance and queue), without making a
// purchase wait long: at half PostgreSQL's 250 ms poll, a create waited
// 77 ms for its purchase at the median and 140 ms at p99 (make bench, 100
// creates/s).
func fetchCooldown(poll time.Duration) time.Duration {
	return max(min(10*time.Millisecond, poll), river.FetchCooldownMin)
}

// withSettings serves the settings UI under /settings/ (and sends / there)
// beside the API, which keeps every other path exactly as it was.
func withSettings(api, settings http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch p := r.URL.Path; {
		case p == "/" && (r.Method == http.MethodGet || r.Method == http.MethodHead):
			http.Redirect(w, r, ui.Prefix+"/", http.StatusFound)
		case p == ui.Prefix || strings.HasPrefix(p, ui.Prefix+"/"):
			settings.ServeHTTP(w, r)
		default:
			api.ServeHTTP(w, r)
		}
	})
}

// Handler serves the API and the settings UI.
func (a *App) Handler() http.Handler { return a.handler }

// Start runs the job workers and the periodic flush of token use.
func (a *App) Start(ctx context.Context) error {
	// Not ctx itself: its end (a signal) would cancel the running jobs at
	// once; Stop lets them finish within the grace, then cancels them.
	if err := a.jobs.Start(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("start jobs: %w", err)
	}
	done := a.jobs.Stopped()
	a.jobsDone.Store(&done)
	a.failover.start(context.WithoutCancel(ctx))
	bg, cancel := context.WithCancel(context.WithoutCancel(ctx))
	a.stopBackground = cancel
	a.backgroundDone = make(chan struct{})
	go func() {
		defer close(a.backgroundDone)
		t := time.NewTicker(a.cfg.UsageFlushInterval)
		defer t.Stop()
		for {
			select {
			case <-bg.Done():
				return
			case <-t.C:
				a.Accounts.FlushUsage(bg)
			}
		}
	}()
	return nil
}

// Stop lets running jobs finish (until ctx ends, then cancels them) and
// writes the pending token use. The HTTP server must already be shut down.
func (a *App) Stop(ctx context.Context) error {
	_, err := a.Drain(ctx)
	return err
}

// Drain is Stop, and says what it drained and how long it took.
func (a *App) Drain(ctx context.Context) (DrainReport, error) {
	start := time.Now()
	a.stopping.Store(true)
	r := DrainReport{JobsRunning: a.cfg.Telemetry.RunningJobs()}
	var errs []error
	var unfinished []int64 // the jobs cut off by the end of the grace
	if err := a.jobs.Stop(ctx); err != nil {
		errs = append(errs, fmt.Errorf("stop jobs: %w", err))
		r.JobsCancelled = a.cfg.Telemetry.RunningJobs()
		unfinished = a.failover.runningIDs()
		cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		errs = append(errs, a.jobs.StopAndCancel(cctx))
		cancel()
	}
	{
		// Handed back rather than left to River's rescuer or their retry's
		// backoff: another instance runs them now.
		hctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		n, err := a.failover.handBack(hctx, unfinished)
		cancel()
		r.JobsHandedBack = n
		errs = append(errs, err)
	}
	if a.stopBackground != nil {
		a.stopBackground()
		<-a.backgroundDone
	}
	a.Accounts.FlushUsage(context.WithoutCancel(ctx))
	r.TokenUsageFlushed = true
	r.Took = time.Since(start)
	return r, errors.Join(errs...)
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

// readyDetails are /readyz's fields beyond its status: the instances'
// failover (PostgreSQL), and the exchange rates' date with a warning when
// they are stale (rates a week old still convert: the answer stays 200).
func (a *App) readyDetails() map[string]any {
	details := a.failover.readyDetails()
	if f := a.cfg.ExchangeRates; f != nil {
		if details == nil {
			details = map[string]any{}
		}
		rates := map[string]any{"date": f.Table().Date.Format(time.DateOnly)}
		if stale := f.Stale(); stale != "" {
			rates["warning"] = stale
		}
		details["exchangeRates"] = rates
	}
	return details
}

package main

import (
	"cmp"
	"net/url"

	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/app"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/connectors"
	"github.com/shipd-dev/shipd/carriers/quotaredis"
	"github.com/shipd-dev/shipd/carriers/sandbox"
	"github.com/shipd-dev/shipd/carriers/verifier"
	"github.com/shipd-dev/shipd/exchangerates"
	"github.com/shipd-dev/shipd/seal"
	"github.com/shipd-dev/shipd/server"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/store"
	"github.com/shipd-dev/shipd/telemetry"
)

func serve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("serve", stderr)
	addr := fs.String("addr", envOr("SHIPD_ADDR", "127.0.0.1:8080"), "listen address")
	db := dbFlag(fs)
	labelStore := urlFlag(fs, "label-store", "SHIPD_LABEL_STORE", "", "where label documents live: file:///dir, s3://bucket?endpoint=…&use_path_style=true, mem:// (default: in the database itself, SQLite or PostgreSQL; on SQLite, labels written as files beside it by earlier versions stay readable)")
	nodeID := fs.String("node-id", os.Getenv("SHIPD_NODE_ID"), "this instance's unique, stable name among the instances of one database (default: hostname and pid)")
	redisURL := urlFlag(fs, "redis-url", "SHIPD_REDIS_URL", "", "share rate limits and carrier quotas between instances through this Redis (redis://host:6379/0); default: per-process buckets")
	publicURL := fs.String("public-url", os.Getenv("SHIPD_PUBLIC_URL"), "base URL clients reach this server at, for the URLs of answers and events (default: an answer's URLs are the request's own Host; events and printed URLs use the listen address, localhost for a wildcard one)")
	webhookKey := new(string)
	secretFlag(fs, webhookKey, "webhook-key", "SHIPD_WEBHOOK_KEY", "key that encrypts webhook signing secrets and stored idempotent results (64 hex chars); default: generated into webhook.key beside a SQLite database; required on PostgreSQL")
	scanInterval := fs.Duration("sandbox-scan-interval", 3*time.Second, "time between simulated tracking scans in test mode")
	var trackingInterval liveTrackingInterval
	if v := os.Getenv("SHIPD_LIVE_TRACKING_INTERVAL"); v != "" {
		if err := trackingInterval.Set(v); err != nil {
			return usageError("SHIPD_LIVE_TRACKING_INTERVAL: " + err.Error())
		}
	}
	fs.Var(&trackingInterval, "live-tracking-interval", fmt.Sprintf("poll each live label's tracking at this fixed interval (at least %s) instead of the schedule (every 15 min for 6 h, hourly until 3 days, then every 6 h); for watching tracking in seconds, e.g. against a carrier's test API ($SHIPD_LIVE_TRACKING_INTERVAL)", minLiveTrackingInterval))
	var limits server.RateLimitConfig
	fs.BoolVar(&limits.Disabled, "rate-limits-disabled", false, "turn off per-account rate limits")
	fs.Var(&limits, "rate-limit", "override a group's bucket as GROUP=RATE:BURST (per second), repeatable; groups: reads, quotes, buys, refunds, address_verify, address_writes, webhook_writes, tracker_writes, carrier_writes, and failed_auth (failed authentications per client address)")
	catalog := connectors.Catalog()
	quotas := catalog.DefaultQuotas()
	if err := quotas.Set(os.Getenv("SHIPD_CARRIER_QUOTA")); err != nil {
		return usageError("SHIPD_CARRIER_QUOTA: " + err.Error())
	}
	fs.Var(quotas, "carrier-quota", "budget of live carrier calls as CARRIER:API=CALLS/PERIOD (API: rates, labels, tracking, manifests, pickups, or all for every call of the carrier; PERIOD: s, m, h, d or a duration such as 10s; off: no budget), repeatable or comma-separated, over the defaults "+quotas.String()+" ($SHIPD_CARRIER_QUOTA)")
	accountQuotas := catalog.DefaultQuotas()
	if err := accountQuotas.Set(os.Getenv("SHIPD_CARRIER_ACCOUNT_QUOTA")); err != nil {
		return usageError("SHIPD_CARRIER_ACCOUNT_QUOTA: " + err.Error())
	}
	fs.Var(accountQuotas, "carrier-account-quota", "budget of each carrier account's calls, per client id, as --carrier-quota takes them; the carriers' published defaults unless your tenants' quotas were raised ($SHIPD_CARRIER_ACCOUNT_QUOTA)")
	var proxies trustedProxies
	if err := proxies.Set(os.Getenv("SHIPD_TRUSTED_PROXIES")); err != nil {
		return usageError("SHIPD_TRUSTED_PROXIES: " + err.Error())
	}
	fs.Var(&proxies, "trusted-proxy", "a reverse proxy's network (CIDR or address) whose X-Forwarded-For names the client, repeatable or comma-separated; default: none, the client is the TCP peer")
	envTrackerLimit := 0
	if v := os.Getenv("SHIPD_TRACKER_LIMIT"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return usageError("SHIPD_TRACKER_LIMIT: want a number of trackers, or -1 for no limit")
		}
		envTrackerLimit = n
	}
	trackerLimit := fs.Int("tracker-limit", envTrackerLimit, fmt.Sprintf("active standalone trackers (POST /trackers) an account may have in each mode; past it creates are 422 tracker_limit (default %d; -1: no limit) ($SHIPD_TRACKER_LIMIT)", shipping.DefaultTrackerLimit))
	purchaseWorkers := fs.Int("purchase-workers", shipping.DefaultPurchaseWorkers, "purchases run at once by this instance, on their own queue; 0: none (an API-only instance: labels it accepts wait for another instance, or for this one restarted with workers)")
	purchaseBacklog := fs.Int("purchase-backlog", 0, "purchases that may wait for a worker before creates get 503 purchase_queue_full (default 5000; -1: no bound)")
	jobWorkers := fs.Int("job-workers", 0, "void, tracking and upkeep jobs run at once (default 8)")
	shutdownGrace := fs.Duration("shutdown-grace", 20*time.Second, "how long in-flight requests and jobs may run on shutdown")
	pprofAddr := fs.String("pprof-addr", "", "serve net/http/pprof on this separate address (e.g. 127.0.0.1:6060); empty: off")
	metricsAddr := fs.String("metrics-addr", os.Getenv("SHIPD_METRICS_ADDR"), "serve Prometheus metrics at /metrics on this separate address (e.g. 127.0.0.1:9090), never on the API's; empty: off")
	jobPoll := fs.Duration("job-poll-interval", 0, "how often idle job workers look for due jobs (default 1s on SQLite, where the server wakes them when it inserts jobs or they come due; 250ms on PostgreSQL)")
	rescueAfter := fs.Duration("job-rescue-after", 0, "how long a job may run before another instance takes it over as its instance's (default 2m); the last resort behind --instance-dead-after")
	deadAfter := fs.Duration("instance-dead-after", 0, "on PostgreSQL, how stale an instance's heartbeat (written every second) must be, on the database's clock, before another instance takes back the jobs it was running (default 10s)")
	ratesPath := fs.String("exchange-rates", os.Getenv("SHIPD_EXCHANGE_RATES"), "the ECB's daily reference rates (eurofxref-daily.xml) that convert carriers' prices into accounts' currencies, read again when the file changes; empty: a price in another currency than the account's is not quoted (README \"Shipping from Europe\") ($SHIPD_EXCHANGE_RATES)")
	var fees platformFees
	fs.Func("platform-fee", "the fee added to every label, in the minor unit of the account's currency: N for every currency, or CUR=N for one (EUR=10); repeatable; default 8 in every currency ($SHIPD_PLATFORM_FEE, comma-separated)", fees.set)
	var live liveFlags
	live.register(fs, catalog)
	if err := parse(fs, args); err != nil {
		return err
	}
	if env := os.Getenv("SHIPD_PLATFORM_FEE"); env != "" && !fees.given {
		for v := range strings.SplitSeq(env, ",") {
			if err := fees.set(strings.TrimSpace(v)); err != nil {
				return usageError("serve: SHIPD_PLATFORM_FEE: " + err.Error())
			}
		}
	}
	// Access lines wait up to 100 ms to go out together (logbuffer.go), the
	// rest at once. Deferred first, so it flushes after the last line.
	logs := newLogBuffer(stderr, 32<<10, 100*time.Millisecond)
	defer logs.Close()
	log, accessLog := newBufferedLogs(logs, nil)
	// Tracing is off unless the standard OTEL_* environment turns it on.
	tracerProvider, err := telemetry.TracerProviderFromEnv(ctx, os.Getenv)
	if err != nil {
		return usageError("serve: " + err.Error())
	}
	var telCfg telemetry.Config
	if tracerProvider != nil {
		telCfg.TracerProvider = tracerProvider
		defer func() {
			sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := tracerProvider.Shutdown(sctx); err != nil {
				log.Warn("sending the last spans", slog.Any("error", err))
			}
		}()
	}
	tel, err := telemetry.New(telCfg)
	if err != nil {
		return err
	}
	liveCarriers, liveVerifier, err := live.carriers(tel.CarrierTokenRefreshed)
	if err != nil {
		return err
	}
	if *publicURL != "" {
		if u, err := url.Parse(*publicURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			return usageError(fmt.Sprintf("serve: --public-url (SHIPD_PUBLIC_URL) %q is not an http:// or https:// base URL such as https://ship.example.com", *publicURL))
		}
		*publicURL = strings.TrimSuffix(*publicURL, "/")
	}
	var rates *exchangerates.File
	if *ratesPath != "" {
		if rates, err = exchangerates.OpenFile(*ratesPath, log, nil); err != nil {
			return usageError("serve: --exchange-rates (SHIPD_EXCHANGE_RATES): " + err.Error())
		}
		if stale := rates.Stale(); stale != "" {
			log.Warn("stale exchange rates: prices in other currencies are converted at old rates", slog.String("warning", stale))
		}
	}
	if *purchaseWorkers < 0 {
		return usageError("serve: --purchase-workers must be 0 (none on this instance) or more")
	}
	if *purchaseWorkers == 0 {
		*purchaseWorkers = -1 // app.Config: none
		log.Warn("this instance buys no labels (--purchase-workers 0): the labels it accepts wait for an instance with purchase workers")
	}
	shared := store.IsPostgres(*db)
	if shared && *webhookKey == "" {
		return usageError("serve: --webhook-key (or SHIPD_WEBHOOK_KEY) is required on PostgreSQL: every instance must hold the same key to sign deliveries and replay idempotent requests")
	}
	if *nodeID == "" {
		host, _ := os.Hostname()
		*nodeID = fmt.Sprintf("%s-%d", host, os.Getpid())
	}

	var lock *store.ServerLock
	if !shared {
		// One SQLite file has one server: a second is refused.
		if lock, err = store.LockForServing(*db); err != nil {
			return err
		}
		defer lock.Release()
	}
	st, err := store.Open(ctx, *db)
	if err != nil {
		return err
	}
	defer func() {
		if err := st.Close(); err != nil {
			log.Error("closing database", slog.Any("error", err))
		}
	}()
	if lock != nil {
		st.CacheDetails(lock)
		if n, err := st.ReclaimOrphanedJobs(ctx, lock); err != nil {
			return err
		} else if n > 0 {
			log.Info("resumed jobs interrupted by a previous stop", slog.Int64("jobs", n))
		}
		if n, err := st.OrphanIdempotencyClaims(ctx, lock); err != nil {
			return err
		} else if n > 0 {
			log.Info("requests interrupted by a previous stop may be retried at once", slog.Int64("idempotency_keys", n))
		}
	}
	docs, closeDocs, err := openDocuments(ctx, st, *db, *labelStore)
	if err != nil {
		return err
	}
	defer closeDocs()
	cipher, err := loadCipher(*webhookKey, filepath.Join(filepath.Dir(*db), "webhook.key"))
	if err != nil {
		return err
	}
	var carrierLimiter carriers.Limiter // nil: in this process
	if *redisURL != "" {
		opts, err := redis.ParseURL(*redisURL)
		if err != nil {
			return usageError("serve: --redis-url does not parse (not shown: it may hold a password)")
		}
		rdb := redis.NewClient(opts)
		defer rdb.Close()
		limits.Limiter = server.NewRedisLimiter(rdb, limits.Effective(), log)
		carrierLimiter = quotaredis.New(rdb)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	// A wildcard listen address (a container's 0.0.0.0 or [::]) is no URL
	// anyone can reach: answers derive theirs from each request instead,
	// and what has no request (events, the first start's settingsUrl) uses
	// localhost at the port.
	fallbackURL := listenURL(ln.Addr())
	srv, err := app.New(app.Config{Store: st, Logger: log, AccessLog: accessLog, PublicURL: *publicURL, FallbackURL: fallbackURL, Cipher: cipher,
		Documents:            docs,
		RateLimits:           limits,
		JobPollInterval:      *jobPoll,
		JobRescueAfter:       *rescueAfter,
		InstanceDeadAfter:    *deadAfter,
		JobWorkers:           *jobWorkers,
		TrackingPollInterval: time.Duration(trackingInterval),
		TrackerLimit:         *trackerLimit,
		ExchangeRates:        rates,
		PlatformFeeCents:     fees.all,
		PlatformFees:         fees.per,
		CarrierQuotas:        quotas,
		CarrierAccountQuotas: accountQuotas,
		CarrierLimiter:       carrierLimiter,
		PurchaseWorkers:      *purchaseWorkers, MaxPurchaseBacklog: *purchaseBacklog,
		TrustedProxies:     proxies,
		NodeID:             *nodeID,
		Carriers:           carriers.NewRegistry(sandbox.New(sandbox.Config{ScanInterval: *scanInterval}), liveCarriers),
		CarrierAccounts:    live.accountCarriers(tel.CarrierTokenRefreshed),
		NoPlatformCarriers: !live.platformCarriers,
		TestVerifier:       verifier.NewSandbox(),
		LiveVerifier:       liveVerifier,
		Telemetry:          tel,
	})
	if err != nil {
		return err
	}
	if !shared {
		// On a shared database, instances starting together would race to
		// seed: operators make accounts with the CLI there.
		if err := seedDemo(ctx, srv.Accounts, cmp.Or(*publicURL, fallbackURL), stdout); err != nil {
			return err
		}
	}
	if *metricsAddr != "" {
		metrics, err := serveMetrics(*metricsAddr, tel.Handler(log), log)
		if err != nil {
			return err
		}
		defer metrics.Close()
	}
	if err := srv.Start(ctx); err != nil {
		return err
	}
	httpServer := &http.Server{
		Handler:           srv.Handler(),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
	}
	if *pprofAddr != "" {
		if err := servePprof(*pprofAddr, log); err != nil {
			return err
		}
	}
	served := make(chan error, 1)
	go func() { served <- httpServer.Serve(ln) }()
	publicNote := "the URLs of answers are each request's own (its Host, or a trusted proxy's X-Forwarded-Host); events and printed URLs use " + fallbackURL + ": set SHIPD_PUBLIC_URL to fix them"
	if *publicURL != "" {
		publicNote = *publicURL
	}
	log.Info("listening", slog.String("addr", ln.Addr().String()), slog.String("db", maskURL(*db)), slog.String("node_id", *nodeID),
		slog.Bool("tracing", tracerProvider != nil), slog.String("public_url", publicNote))
	logLiveCarriers(log, liveCarriers, live.credentialVariables())

	select {
	case err := <-served:
		_ = srv.Stop(context.Background())
		return err
	case <-ctx.Done():
	}
	start := time.Now()
	inFlight := tel.InFlightRequests()
	log.Info("shutting down", slog.Int64("requests_in_flight", inFlight), slog.Int64("jobs_running", tel.RunningJobs()),
		slog.String("grace", shutdownGrace.String()))
	shutdownCtx, cancel := context.WithTimeout(context.Background(), *shutdownGrace)
	defer cancel()
	var errs []error
	if err := httpServer.Shutdown(shutdownCtx); err != nil {
		errs = append(errs, fmt.Errorf("http shutdown: %w", err))
	}
	cutOff := tel.InFlightRequests() // still running when the grace ended
	requestsTook := time.Since(start)
	drained, err := srv.Drain(shutdownCtx)
	if err != nil {
		errs = append(errs, err)
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		errs = append(errs, err)
	}
	level := slog.LevelInfo
	if len(errs) > 0 {
		level = slog.LevelWarn
	}
	log.LogAttrs(context.Background(), level, "shut down",
		slog.Group("requests", slog.Int64("in_flight", inFlight), slog.Int64("finished", inFlight-cutOff),
			slog.Int64("cut_off", cutOff), slog.Float64("took_ms", float64(requestsTook.Microseconds())/1000)),
		slog.Any("app", drained),
		slog.Float64("took_ms", float64(time.Since(start).Microseconds())/1000))
	return errors.Join(errs...)
}

// logLiveCarriers says at start which carriers live mode can use, or that
// it can use none: a live quote then answers 500 carrier_not_configured,
// and the operator should learn it here, not from a client.
func logLiveCarriers(log *slog.Logger, live []carriers.Carrier, variables string) {
	if len(live) == 0 {
		log.Warn("live mode has no carrier: live quotes and labels answer 500 carrier_not_configured until a carrier's credentials are set (README \"Going live\": " + variables + " and the rest)")
		return
	}
	names := make([]string, len(live))
	for i, c := range live {
		names[i] = c.Name()
	}
	log.Info("live mode carriers", slog.String("carriers", strings.Join(names, ", ")))
}

// minLiveTrackingInterval is the shortest --live-tracking-interval: shorter
// would turn each label in transit into a busy loop against the carrier.
const minLiveTrackingInterval = time.Second

// liveTrackingInterval is --live-tracking-interval: 0 (not set) keeps the
// schedule; a value must be at least minLiveTrackingInterval.
type liveTrackingInterval time.Duration

func (d *liveTrackingInterval) String() string {
	if d == nil || *d == 0 {
		return ""
	}
	return time.Duration(*d).String()
}

func (d *liveTrackingInterval) Set(v string) error {
	got, err := time.ParseDuration(strings.TrimSpace(v))
	if err != nil {
		return fmt.Errorf("%q is not a duration (e.g. 5s, 1m)", v)
	}
	if got < minLiveTrackingInterval {
		return fmt.Errorf("%s is too short: at least %s, or leave it unset for the schedule", got, minLiveTrackingInterval)
	}
	*d = liveTrackingInterval(got)
	return nil
}

// servePprof serves the runtime profiles on a listener of their own, never on the API's.
func servePprof(addr string, log *slog.Logger) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("pprof: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	log.Info("pprof listening", slog.String("addr", ln.Addr().String()))
	go func() { _ = http.Serve(ln, mux) }()
	return nil
}

// serveMetrics serves the Prometheus metrics at /metrics on a listener of
// their own, never on the API's.
func serveMetrics(addr string, h http.Handler, log *slog.Logger) (*http.Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", h)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second, WriteTimeout: 30 * time.Second}
	log.Info("metrics listening", slog.String("addr", ln.Addr().String()))
	go func() { _ = srv.Serve(ln) }()
	return srv, nil
}

func loadCipher(configured, keyPath string) (*seal.Cipher, error) {
	var key []byte
	var err error
	if configured != "" {
		key, err = seal.ParseKey(configured)
	} else {
		key, err = seal.LoadOrCreateKey(keyPath)
	}
	if err != nil {
		return nil, fmt.Errorf("webhook key: %w", err)
	}
	return seal.NewCipher(key)
}

// demoEmail is the demo user's email.
const demoEmail = "demo@example.com"

// seedDemo gives a fresh database a demo account and prints a test token with
// every scope, and a user of the settings UI with its password, once, so a
// newcomer can call the API and sign in right away.
func seedDemo(ctx context.Context, acc *accounts.Service, publicURL string, stdout io.Writer) error {
	n, err := acc.CountAccounts(ctx)
	if err != nil || n > 0 {
		return err
	}
	a, err := acc.CreateAccount(ctx, "Demo", true)
	if err != nil {
		return err
	}
	t, secret, err := acc.CreateToken(ctx, accounts.NewToken{AccountID: a.ID, Mode: accounts.Test, Scopes: accounts.Scopes(), Name: "demo"})
	if err != nil {
		return err
	}
	password := demoPassword()
	u, err := acc.CreateUser(ctx, a.ID, demoEmail, password)
	if err != nil {
		return err
	}
	return printJSON(stdout, map[string]any{
		"message":     "first start: created a demo account, a test-mode token with every scope and a user of the settings UI; the token and the password are shown only this once",
		"accountId":   a.ID,
		"tokenId":     t.ID,
		"token":       secret,
		"settingsUrl": strings.TrimSuffix(publicURL, "/") + "/settings/",
		"email":       u.Email,
		"password":    password,
	})
}

// trustedProxies is the --trusted-proxy flag: networks, or single addresses.
type trustedProxies []*net.IPNet

func (p *trustedProxies) String() string {
	if p == nil {
		return ""
	}
	var parts []string
	for _, n := range *p {
		parts = append(parts, n.String())
	}
	return strings.Join(parts, ",")
}

func (p *trustedProxies) Set(v string) error {
	for item := range strings.SplitSeq(v, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if !strings.Contains(item, "/") {
			ip := net.ParseIP(item)
			if ip == nil {
				return fmt.Errorf("trusted proxy %q: want a CIDR (10.0.0.0/8) or an address", item)
			}
			bits := 32
			if ip.To4() == nil {
				bits = 128
			}
			item = fmt.Sprintf("%s/%d", item, bits)
		}
		_, n, err := net.ParseCIDR(item)
		if err != nil {
			return fmt.Errorf("trusted proxy %q: want a CIDR (10.0.0.0/8) or an address", item)
		}
		*p = append(*p, n)
	}
	return nil
}

// openDocuments opens where label documents live: the store named by
// labelStore, or by default the database itself. On SQLite, labels that
// earlier versions wrote as files beside the database (under labels/) are
// read from there; a shared (PostgreSQL) database had no default before, so
// it has nothing to fall back to.
func openDocuments(ctx context.Context, st *store.Store, db, labelStore string) (shipping.Documents, func(), error) {
	if labelStore != "" {
		blobs, err := store.OpenBlobs(ctx, labelStore)
		if err != nil {
			return nil, nil, err
		}
		return blobs, func() { blobs.Close() }, nil
	}
	if store.IsPostgres(db) {
		return store.DocumentsIn(st, nil), func() {}, nil
	}
	dir, err := filepath.Abs(filepath.Dir(db))
	if err != nil {
		return nil, nil, err
	}
	if _, err := os.Stat(filepath.Join(dir, "labels")); err != nil {
		return store.DocumentsIn(st, nil), func() {}, nil
	}
	files, err := store.OpenBlobs(ctx, (&url.URL{Scheme: "file", Path: dir}).String())
	if err != nil {
		return nil, nil, err
	}
	return store.DocumentsIn(st, files), func() { files.Close() }, nil
}

// listenURL is the URL of a listen address: localhost at its port when it
// is a wildcard (0.0.0.0, [::]), which no client can reach by that name.
func listenURL(addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return "http://" + addr.String()
	}
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}

package carriers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Carrier quotas. Carriers grant each client a budget of calls per API
// (USPS: 60 an hour per API unless raised; FedEx: 1,400 per 10 s per
// project); past it they answer 429. A Quotas decorator keeps shipd within
// the budget it is told, per carrier and API, and honours a carrier's 429.

// The APIs a budget is kept for. A carrier's purchase and void are one API
// at every carrier (USPS Labels, the UPS Shipping API, the FedEx Ship API),
// so they share the "labels" budget; end-of-day forms (USPS SCAN Forms, the
// FedEx close) and pickups (scheduled and cancelled) are APIs of their own;
// APIAll is a budget every call of the carrier also draws from (FedEx's
// limit per project).
const (
	APIRates     = "rates"
	APILabels    = "labels"
	APITracking  = "tracking"
	APIManifests = "manifests"
	APIPickups   = "pickups"
	APIAll       = "all"
)

// quotaAPIs are the APIs a budget may be set for.
var quotaAPIs = []string{APIRates, APILabels, APITracking, APIManifests, APIPickups, APIAll}

// apiOf is the budget of an operation; "" for calls that reach no carrier
// API (the sandbox's tracking plan).
func apiOf(op string) string {
	switch op {
	case OpRates:
		return APIRates
	case OpBuy, OpVoid, OpFindPurchase:
		return APILabels
	case OpTrack:
		return APITracking
	case OpManifest:
		return APIManifests
	case OpSchedulePickup, OpCancelPickup, OpFindPickup:
		return APIPickups
	}
	return ""
}

// ErrOverQuota means shipd did not call the carrier: the budget of its API
// is spent (or the carrier answered 429 and the pause it asked for has not
// ended). It is transient: errors.Is(err, ErrUnavailable) holds, and the
// *Error's RetryAfter says when a call may go.
var ErrOverQuota = fmt.Errorf("the carrier's call budget is spent: %w", ErrUnavailable)

// Quota is a budget: Calls per Per, at most Calls at once after a quiet
// period. The zero Quota is no budget (unlimited).
type Quota struct {
	Calls int
	Per   time.Duration
}

func (q Quota) unlimited() bool { return q.Calls <= 0 || q.Per <= 0 }

func (q Quota) String() string {
	if q.unlimited() {
		return "unlimited"
	}
	for _, u := range []struct {
		d    time.Duration
		name string
	}{{24 * time.Hour, "d"}, {time.Hour, "h"}, {time.Minute, "m"}, {time.Second, "s"}} {
		if q.Per == u.d {
			return fmt.Sprintf("%d/%s", q.Calls, u.name)
		}
	}
	return fmt.Sprintf("%d/%s", q.Calls, q.Per)
}

// reserve is how many calls of a budget tracking leaves for purchases,
// voids and quotes: a tenth (at least one) of a budget of more than one.
func (q Quota) reserve() int {
	if q.Calls <= 1 {
		return 0
	}
	return (q.Calls + 9) / 10
}

// QuotaKey names a budget: a carrier (case-insensitive) and an API.
type QuotaKey struct{ Carrier, API string }

// Quotas are the budgets by carrier and API. A missing key, or an
// unlimited Quota, is no budget. As a flag.Value it takes
// CARRIER:API=CALLS/PERIOD, comma-separated and repeatable.
type Quotas map[QuotaKey]Quota

func (q Quotas) lookup(carrier, api string) Quota {
	return q[QuotaKey{strings.ToLower(carrier), api}]
}

// String lists the budgets, sorted.
func (q Quotas) String() string {
	var parts []string
	for k, v := range q {
		parts = append(parts, k.Carrier+":"+k.API+"="+v.String())
	}
	slices.Sort(parts)
	return strings.Join(parts, ",")
}

// Set parses CARRIER:API=CALLS/PERIOD[,…]: API is rates, labels (purchases
// and voids), tracking, manifests, pickups or all; PERIOD is s, m, h, d or a Go duration (10s);
// "off" or "unlimited" instead of CALLS/PERIOD removes a budget.
func (q Quotas) Set(v string) error {
	for item := range strings.SplitSeq(v, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		key, value, ok := strings.Cut(item, "=")
		carrier, api, ok2 := strings.Cut(key, ":")
		carrier, api = strings.ToLower(strings.TrimSpace(carrier)), strings.ToLower(strings.TrimSpace(api))
		if !ok || !ok2 || carrier == "" {
			return fmt.Errorf("carrier quota %q: want CARRIER:API=CALLS/PERIOD, e.g. USPS:tracking=60/h", item)
		}
		if api == "track" {
			api = APITracking
		}
		if !slices.Contains(quotaAPIs, api) {
			return fmt.Errorf("carrier quota %q: API %q is not one of %s", item, api, strings.Join(quotaAPIs, ", "))
		}
		quota, err := parseQuota(strings.TrimSpace(value))
		if err != nil {
			return fmt.Errorf("carrier quota %q: %w", item, err)
		}
		q[QuotaKey{carrier, api}] = quota
	}
	return nil
}

// maxQuotaPeriod bounds a budget's period: a longer one is surely a typo.
const maxQuotaPeriod = 31 * 24 * time.Hour

func parseQuota(v string) (Quota, error) {
	switch strings.ToLower(v) {
	case "off", "unlimited":
		return Quota{}, nil
	}
	calls, per, ok := strings.Cut(v, "/")
	n, err := strconv.Atoi(strings.TrimSpace(calls))
	if !ok || err != nil || n < 1 {
		return Quota{}, errors.New("want CALLS/PERIOD with at least 1 call (60/h, 1400/10s), or off")
	}
	per = strings.TrimSpace(per)
	var d time.Duration
	switch per {
	case "s":
		d = time.Second
	case "m":
		d = time.Minute
	case "h":
		d = time.Hour
	case "d":
		d = 24 * time.Hour
	default:
		if d, err = time.ParseDuration(per); err != nil {
			return Quota{}, fmt.Errorf("period %q: want s, m, h, d or a duration such as 10s", per)
		}
	}
	if d < time.Second || d > maxQuotaPeriod {
		return Quota{}, fmt.Errorf("period %s: want 1s to 31 days", d)
	}
	return Quota{Calls: n, Per: d}, nil
}

// Limiter keeps the budgets. Keys name a budget (a carrier's API); q is
// its budget, given with each call so that a Limiter holds no configuration.
// Implementations: MemoryLimiter (this process), and one over Redis shared
// by every instance.
type Limiter interface {
	// Take takes one call of budget key unless that would leave fewer than
	// reserve calls, or the key is paused. When it refuses it reports how
	// long until a call could be taken. An unlimited q only checks the pause.
	Take(ctx context.Context, key string, q Quota, reserve int) (ok bool, retryIn time.Duration, err error)
	// Pause refuses every call of key until until (a carrier's 429).
	Pause(ctx context.Context, key string, until time.Time) error
	// PausedFor is how long key stays paused, 0 when it is not: it tells a
	// carrier's own 429 from shipd's spent budget.
	PausedFor(ctx context.Context, key string) (time.Duration, error)
}

// MemoryLimiter keeps budgets in this process, as GCRA buckets (each budget
// is the time at which it would be full again). A full bucket is no
// different from none, so full ones are dropped now and then: the accounts'
// shares of tracking budgets (quota_fair.go) are a key per account.
type MemoryLimiter struct {
	now func() time.Time

	mu     sync.Mutex
	tat    map[string]time.Time
	paused map[string]time.Time
	takes  int // since the last sweep of full buckets
}

// sweepEvery is how many takes pass between two sweeps of full buckets.
const sweepEvery = 4096

// NewMemoryLimiter returns an in-process Limiter on the clock now (nil: time.Now).
func NewMemoryLimiter(now func() time.Time) *MemoryLimiter {
	if now == nil {
		now = time.Now
	}
	return &MemoryLimiter{now: now, tat: map[string]time.Time{}, paused: map[string]time.Time{}}
}

func (m *MemoryLimiter) Take(_ context.Context, key string, q Quota, reserve int) (bool, time.Duration, error) {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	if until, ok := m.paused[key]; ok {
		if now.Before(until) {
			return false, until.Sub(now), nil
		}
		delete(m.paused, key)
	}
	if q.unlimited() {
		return true, 0, nil
	}
	interval := q.Per / time.Duration(q.Calls)
	burst := max(q.Calls-reserve, 1)
	tat := m.tat[key]
	if tat.Before(now) {
		tat = now
	}
	next := tat.Add(interval)
	// The call may go when, after it, the budget still holds reserve calls:
	// next - now, the time the budget needs to be full again, is at most
	// the time it takes to refill burst calls.
	if allowAt := next.Add(-time.Duration(burst) * interval); now.Before(allowAt) {
		return false, allowAt.Sub(now), nil
	}
	m.tat[key] = next
	if m.takes++; m.takes >= sweepEvery {
		m.takes = 0
		for k, t := range m.tat {
			if !t.After(now) {
				delete(m.tat, k)
			}
		}
	}
	return true, 0, nil
}

func (m *MemoryLimiter) PausedFor(_ context.Context, key string) (time.Duration, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if until, ok := m.paused[key]; ok && m.now().Before(until) {
		return until.Sub(m.now()), nil
	}
	return 0, nil
}

func (m *MemoryLimiter) Pause(_ context.Context, key string, until time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if until.After(m.paused[key]) {
		m.paused[key] = until
	}
	return nil
}

// Quota decisions, as OnDecision is told them.
const (
	QuotaTaken    = "taken"    // a call went
	QuotaDeferred = "deferred" // a tracking poll found no budget and waits
	QuotaRefused  = "refused"  // a purchase, void or quote found no budget
	QuotaPaused   = "paused"   // the carrier answered 429: the API waits for its Retry-After
	QuotaError    = "error"    // the limiter failed; the call went anyway
)

// Retry-After of a carrier's 429: without one the API pauses for
// DefaultRetryAfter; a longer one than MaxRetryAfter is cut to it, so a
// carrier's mistake (or a daily quota's "after midnight") never stops an
// API for longer than an hour before shipd asks again.
const (
	DefaultRetryAfter = 30 * time.Second
	MaxRetryAfter     = time.Hour
)

// QuotaConfig configures Limit.
type QuotaConfig struct {
	Quotas Quotas
	// Limiter keeps the budgets; nil: a MemoryLimiter on Now.
	Limiter Limiter
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// OnDecision, when set, is told each decision (QuotaTaken, ...) by
	// carrier and API: metrics. A Limiter that fails is QuotaError, and the
	// call goes: a budget must not be the reason labels cannot be bought.
	OnDecision func(carrier, api, decision string)
}

// Limit returns c with its calls kept within cfg's budgets: each call takes
// one call of its API's budget and of the carrier's "all" budget. Tracking
// polls (OpTrack) leave a reserve (a tenth) of the "all" budget to
// purchases, voids and quotes, share the tracking budget between the
// accounts of their TrackingClaim (quota_fair.go), and when they find no
// budget fail with ErrOverQuota at once; the others take the budget to its
// last call and then fail with ErrOverQuota. A carrier's 429 pauses the
// API until its Retry-After (clamped to MaxRetryAfter, DefaultRetryAfter
// without one).
// Keys of the budgets are "carrier:api", lower-case.
func Limit(c Carrier, cfg QuotaConfig) Carrier {
	if c == nil {
		return c
	}
	return limitAs(c, cfg, strings.ToLower(c.Name()))
}

// limitAs is Limit with the budgets' keys under prefix ("prefix:api").
func limitAs(c Carrier, cfg QuotaConfig, prefix string) Carrier {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Limiter == nil {
		cfg.Limiter = NewMemoryLimiter(cfg.Now)
	}
	l := &limited{cfg: cfg, name: c.Name(), prefix: prefix}
	return wrap(c, l.around)
}

// Limited returns f with every client it builds kept within cfg's budgets
// (see Limit) under keys of their own: a carrier grants each client its
// budget by its credentials (USPS per app, FedEx per project), so a carrier
// account's calls draw on its client id's budgets, "carrier/<client>:api",
// never the operator's, and its carrier's 429 pauses only them. Two carrier
// accounts with one client id share its budgets, as they do at the carrier.
// The key names the client by a hash of its id, not the id itself.
func (f Factory) Limited(cfg QuotaConfig) Factory {
	if f == nil {
		return f
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Limiter == nil {
		cfg.Limiter = NewMemoryLimiter(cfg.Now)
	}
	return func(cr Credentials) (Carrier, error) {
		client, err := f(cr)
		if err != nil || client == nil {
			return client, err
		}
		sum := sha256.Sum256([]byte(cr.Identity))
		return limitAs(client, cfg, strings.ToLower(client.Name())+"/"+hex.EncodeToString(sum[:8])), nil
	}
}

// Limit returns a registry of the same carriers, the live ones limited
// (see Limit), all sharing one Limiter. Test mode reaches no carrier (the
// sandbox answers under the carriers' names), so it takes no budget.
func (r *Registry) Limit(cfg QuotaConfig) *Registry {
	if cfg.Limiter == nil {
		cfg.Limiter = NewMemoryLimiter(cfg.Now)
	}
	out := &Registry{test: clone(r.test), live: make([]Carrier, len(r.live))}
	for i, c := range r.live {
		out.live[i] = Limit(c, cfg)
	}
	return out
}

type limited struct {
	cfg    QuotaConfig
	name   string
	prefix string // of the budgets' keys: the carrier, or carrier/client
}

func (l *limited) key(api string) string { return l.prefix + ":" + api }

func (l *limited) decided(api, decision string) {
	if l.cfg.OnDecision != nil {
		l.cfg.OnDecision(l.name, api, decision)
	}
}

func (l *limited) around(ctx context.Context, op string, call func(context.Context) error) error {
	api := apiOf(op)
	if api == "" {
		return call(ctx)
	}
	low := op == OpTrack
	claim, claimed := trackingClaimOf(ctx)
	for _, b := range []string{APIAll, api} {
		q := l.cfg.Quotas.lookup(l.name, b)
		if b == APIAll && q.unlimited() {
			continue // the API's own key still holds its pause
		}
		reserve := 0
		switch {
		case low && b == APIAll:
			reserve = q.reserve()
		case low && claimed && !q.unlimited():
			reserve = l.fairReserve(ctx, b, q, claim) // quota_fair.go
		}
		ok, retryIn, err := l.cfg.Limiter.Take(ctx, l.key(b), q, reserve)
		if err != nil {
			l.decided(api, QuotaError)
			continue
		}
		if !ok {
			decision := QuotaRefused
			if low {
				decision = QuotaDeferred
			}
			l.decided(api, decision)
			wait := max(retryIn, time.Second)
			msg := fmt.Sprintf("shipd's budget of %s calls (%s) is spent; the next call may go in %s", b, q, wait.Round(time.Second))
			if paused, err := l.cfg.Limiter.PausedFor(ctx, l.key(b)); err == nil && paused > 0 {
				// Not shipd's budget: the carrier answered 429 and asked to wait.
				msg = fmt.Sprintf("%s asked shipd to wait (HTTP 429 Too Many Requests) until %s; no %s call goes before",
					l.name, l.cfg.Now().Add(paused).UTC().Format(time.RFC3339), api)
			}
			return &Error{Carrier: l.name, Operation: op, Kind: ErrOverQuota, RetryAfter: wait, Message: msg}
		}
	}
	l.decided(api, QuotaTaken)
	err := call(ctx)
	var ce *Error
	if errors.As(err, &ce) && ce.HTTPStatus == http.StatusTooManyRequests {
		wait := ce.RetryAfter
		if wait <= 0 {
			wait = DefaultRetryAfter
		}
		wait = min(wait, MaxRetryAfter)
		if perr := l.cfg.Limiter.Pause(ctx, l.key(api), l.cfg.Now().Add(wait)); perr != nil {
			l.decided(api, QuotaError)
		} else {
			l.decided(api, QuotaPaused)
		}
	}
	return err
}

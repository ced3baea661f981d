package carriers_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
)

// clock is a fake clock that moves only when told.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func TestMemoryLimiterBudget(t *testing.T) {
	t.Parallel()
	clk := newClock()
	l := carriers.NewMemoryLimiter(clk.Now)
	ctx := context.Background()
	q := carriers.Quota{Calls: 3, Per: time.Hour}
	take := func(reserve int) (bool, time.Duration) {
		ok, in, err := l.Take(ctx, "k", q, reserve)
		if err != nil {
			t.Fatal(err)
		}
		return ok, in
	}
	for i := range 3 {
		if ok, _ := take(0); !ok {
			t.Fatalf("call %d of a budget of 3 refused", i+1)
		}
	}
	ok, in := take(0)
	if ok || in != 20*time.Minute {
		t.Fatalf("4th call: ok %v, retry in %s; want refused, 20m (3/h refills one call each 20 min)", ok, in)
	}
	clk.Add(20 * time.Minute)
	if ok, _ := take(1); ok {
		t.Fatal("a call that leaves less than the reserve went")
	}
	if ok, _ := take(0); !ok {
		t.Fatal("the refilled call was refused")
	}
	// An unlimited budget only checks the pause.
	if ok, _, _ := l.Take(ctx, "u", carriers.Quota{}, 0); !ok {
		t.Fatal("unlimited refused")
	}
	if err := l.Pause(ctx, "u", clk.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if ok, in, _ := l.Take(ctx, "u", carriers.Quota{}, 0); ok || in != time.Minute {
		t.Fatalf("paused key: ok %v, retry in %s", ok, in)
	}
	clk.Add(time.Minute)
	if ok, _, _ := l.Take(ctx, "u", carriers.Quota{}, 0); !ok {
		t.Fatal("the pause did not end")
	}
}

// counting is a tracking carrier that counts its calls and answers what
// trackErr says.
type counting struct {
	carriers.Unsupported
	mu       sync.Mutex
	calls    map[string]int
	trackErr error
}

func (c *counting) count(op string) {
	c.mu.Lock()
	if c.calls == nil {
		c.calls = map[string]int{}
	}
	c.calls[op]++
	c.mu.Unlock()
}

func (c *counting) Name() string { return "FedEx" }
func (c *counting) Capabilities() carriers.Capabilities {
	return carriers.CapRates | carriers.CapBuy | carriers.CapVoid | carriers.CapTrack
}
func (c *counting) Rates(context.Context, carriers.Shipment) ([]carriers.Rate, error) {
	c.count("rates")
	return nil, nil
}
func (c *counting) Buy(context.Context, carriers.BuyRequest) (carriers.Label, error) {
	c.count("buy")
	return carriers.Label{TrackingNumber: "T1"}, nil
}
func (c *counting) Void(context.Context, carriers.VoidRequest) (carriers.VoidStatus, error) {
	c.count("void")
	return carriers.VoidConfirmed, nil
}
func (c *counting) Track(context.Context, string) (carriers.TrackingUpdate, error) {
	c.count("track")
	c.mu.Lock()
	defer c.mu.Unlock()
	err := c.trackErr
	c.trackErr = nil
	return carriers.TrackingUpdate{}, err
}

type decisions struct {
	mu  sync.Mutex
	got []string
}

func (d *decisions) record(carrier, api, decision string) {
	d.mu.Lock()
	d.got = append(d.got, carrier+" "+api+" "+decision)
	d.mu.Unlock()
}

func (d *decisions) take() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	got := d.got
	d.got = nil
	return got
}

// When the carrier's budget runs short, tracking polls are deferred while
// purchases and voids still go: tracking leaves a tenth of it to them.
func TestQuotaTrackingDefersToPurchases(t *testing.T) {
	t.Parallel()
	clk := newClock()
	inner := &counting{}
	var d decisions
	c := carriers.Limit(inner, carriers.QuotaConfig{Now: clk.Now, OnDecision: d.record,
		Quotas: carriers.Quotas{{Carrier: "fedex", API: carriers.APIAll}: {Calls: 10, Per: time.Hour}}})
	tr := c
	ctx := context.Background()
	for i := range 9 {
		if _, err := tr.Track(ctx, "T1"); err != nil {
			t.Fatalf("track %d: %v", i+1, err)
		}
	}
	_, err := tr.Track(ctx, "T1")
	var ce *carriers.Error
	if !errors.Is(err, carriers.ErrOverQuota) || !errors.Is(err, carriers.ErrUnavailable) || !errors.As(err, &ce) || ce.RetryAfter != 6*time.Minute {
		t.Fatalf("10th track: %v, want ErrOverQuota (unavailable) with RetryAfter 6m", err)
	}
	if _, err := c.Buy(ctx, carriers.BuyRequest{}); err != nil {
		t.Fatalf("a purchase within the reserve: %v", err)
	}
	if _, err := c.Void(ctx, carriers.VoidRequest{}); !errors.Is(err, carriers.ErrOverQuota) {
		t.Fatalf("a void past the whole budget: %v, want ErrOverQuota", err)
	}
	if diff := cmp.Diff(map[string]int{"track": 9, "buy": 1}, inner.calls); diff != "" {
		t.Errorf("calls that reached the carrier (-want +got):\n%s", diff)
	}
	var want []string
	for range 9 {
		want = append(want, "FedEx tracking taken")
	}
	want = append(want, "FedEx tracking deferred", "FedEx labels taken", "FedEx labels refused")
	if diff := cmp.Diff(want, d.take()); diff != "" {
		t.Errorf("decisions (-want +got):\n%s", diff)
	}
}

// A carrier's 429 pauses that API until its Retry-After, clamped; the
// carrier's other APIs go on.
func TestQuota429PausesTheAPI(t *testing.T) {
	t.Parallel()
	clk := newClock()
	inner := &counting{trackErr: &carriers.Error{Carrier: "FedEx", Operation: "track", HTTPStatus: http.StatusTooManyRequests,
		RetryAfter: 2 * time.Minute, Kind: carriers.ErrUnavailable}}
	var d decisions
	c := carriers.Limit(inner, carriers.QuotaConfig{Now: clk.Now, OnDecision: d.record})
	tr := c
	ctx := context.Background()
	if _, err := tr.Track(ctx, "T1"); !errors.Is(err, carriers.ErrUnavailable) || errors.Is(err, carriers.ErrOverQuota) {
		t.Fatalf("the 429 itself: %v", err)
	}
	_, err := tr.Track(ctx, "T1")
	var ce *carriers.Error
	if !errors.Is(err, carriers.ErrOverQuota) || !errors.As(err, &ce) || ce.RetryAfter != 2*time.Minute {
		t.Fatalf("track during the pause: %v, want ErrOverQuota with RetryAfter 2m", err)
	}
	// The message says the carrier asked shipd to wait, and until when; not
	// that shipd's budget (unlimited here) is spent.
	until := clk.Now().Add(2 * time.Minute).UTC().Format(time.RFC3339)
	if want := "FedEx asked shipd to wait (HTTP 429 Too Many Requests) until " + until + "; no tracking call goes before"; ce.Message != want {
		t.Errorf("message %q, want %q", ce.Message, want)
	}
	if _, err := c.Buy(ctx, carriers.BuyRequest{}); err != nil {
		t.Fatalf("purchases are another API: %v", err)
	}
	clk.Add(2 * time.Minute)
	if _, err := tr.Track(ctx, "T1"); err != nil {
		t.Fatalf("track after the pause: %v", err)
	}
	if diff := cmp.Diff(map[string]int{"track": 2, "buy": 1}, inner.calls); diff != "" {
		t.Errorf("calls that reached the carrier (-want +got):\n%s", diff)
	}
	want := []string{"FedEx tracking taken", "FedEx tracking paused", "FedEx tracking deferred", "FedEx labels taken", "FedEx tracking taken"}
	if diff := cmp.Diff(want, d.take()); diff != "" {
		t.Errorf("decisions (-want +got):\n%s", diff)
	}

	// A Retry-After of a day pauses for MaxRetryAfter; none, for DefaultRetryAfter.
	for _, c2 := range []struct{ given, want time.Duration }{{24 * time.Hour, carriers.MaxRetryAfter}, {0, carriers.DefaultRetryAfter}} {
		inner.trackErr = &carriers.Error{HTTPStatus: http.StatusTooManyRequests, RetryAfter: c2.given, Kind: carriers.ErrUnavailable}
		_, _ = tr.Track(ctx, "T1")
		if _, err := tr.Track(ctx, "T1"); !errors.As(err, &ce) || ce.RetryAfter != c2.want {
			t.Errorf("Retry-After %s: paused with %v, want %s", c2.given, err, c2.want)
		}
		clk.Add(c2.want)
	}
}

// endOfDay is a carrier with a manifest step and pickups, counting calls.
type endOfDay struct {
	counting
	name      string
	pickupErr error
}

func (e *endOfDay) Name() string { return e.name }
func (e *endOfDay) Capabilities() carriers.Capabilities {
	return e.counting.Capabilities() | carriers.CapManifests | carriers.CapPickups
}
func (e *endOfDay) Manifest(context.Context, carriers.ManifestRequest) (carriers.ManifestForm, error) {
	e.count("manifest")
	return carriers.ManifestForm{Number: "F1"}, nil
}
func (e *endOfDay) SchedulePickup(context.Context, carriers.PickupRequest) (carriers.PickupConfirmation, error) {
	e.count("pickup")
	e.mu.Lock()
	defer e.mu.Unlock()
	err := e.pickupErr
	e.pickupErr = nil
	return carriers.PickupConfirmation{ConfirmationNumber: "P1"}, err
}
func (e *endOfDay) CancelPickup(context.Context, carriers.PickupCancelRequest) error {
	e.count("cancel_pickup")
	return nil
}

// Manifests and pickups draw on budgets of their own (USPS counts calls
// per API): a spent one refuses its calls and leaves the others alone.
func TestQuotaManifestsAndPickups(t *testing.T) {
	t.Parallel()
	clk := newClock()
	inner := &endOfDay{name: "USPS"}
	var d decisions
	c := carriers.Limit(inner, carriers.QuotaConfig{Now: clk.Now, OnDecision: d.record, Quotas: carriers.Quotas{
		{Carrier: "usps", API: carriers.APIManifests}: {Calls: 1, Per: time.Hour},
		{Carrier: "usps", API: carriers.APIPickups}:   {Calls: 2, Per: time.Hour},
	}})
	ctx := context.Background()
	if !c.Capabilities().Has(carriers.CapManifests | carriers.CapPickups) {
		t.Fatal("the limited carrier lost its manifest step or its pickups")
	}
	m, p := c, c
	if _, err := m.Manifest(ctx, carriers.ManifestRequest{}); err != nil {
		t.Fatalf("first manifest: %v", err)
	}
	var ce *carriers.Error
	if _, err := m.Manifest(ctx, carriers.ManifestRequest{}); !errors.Is(err, carriers.ErrOverQuota) || !errors.As(err, &ce) || ce.RetryAfter != time.Hour {
		t.Fatalf("second manifest: %v, want ErrOverQuota with RetryAfter 1h", err)
	}
	if _, err := p.SchedulePickup(ctx, carriers.PickupRequest{}); err != nil {
		t.Fatalf("a pickup beside a spent manifest budget: %v", err)
	}
	if err := p.CancelPickup(ctx, carriers.PickupCancelRequest{}); err != nil {
		t.Fatalf("its cancel: %v", err)
	}
	if _, err := p.SchedulePickup(ctx, carriers.PickupRequest{}); !errors.Is(err, carriers.ErrOverQuota) {
		t.Fatalf("a third pickup call: %v, want ErrOverQuota", err)
	}
	if _, err := c.Rates(ctx, carriers.Shipment{}); err != nil {
		t.Fatalf("rates are another API: %v", err)
	}
	if diff := cmp.Diff(map[string]int{"manifest": 1, "pickup": 1, "cancel_pickup": 1, "rates": 1}, inner.calls); diff != "" {
		t.Errorf("calls that reached the carrier (-want +got):\n%s", diff)
	}
	want := []string{"USPS manifests taken", "USPS manifests refused", "USPS pickups taken", "USPS pickups taken", "USPS pickups refused", "USPS rates taken"}
	if diff := cmp.Diff(want, d.take()); diff != "" {
		t.Errorf("decisions (-want +got):\n%s", diff)
	}
}

// A carrier account's client draws on the budgets of its client id: two
// client ids have a budget each, one client id's accounts share one, and a
// 429 pauses only the client it answered.
func TestFactoryLimitedBudgetsPerClient(t *testing.T) {
	t.Parallel()
	clk := newClock()
	inners := map[string]*endOfDay{}
	var mu sync.Mutex
	factory := carriers.Factory(func(cr carriers.Credentials) (carriers.Carrier, error) {
		mu.Lock()
		defer mu.Unlock()
		e := &endOfDay{name: "USPS"}
		inners[cr.Identity+"/"+cr.Get("accountNumber")] = e
		return e, nil
	}).Limited(carriers.QuotaConfig{Now: clk.Now, Quotas: carriers.Quotas{{Carrier: "usps", API: carriers.APIPickups}: {Calls: 1, Per: time.Hour}}})
	build := func(client, account string) carriers.Carrier {
		c, err := factory(carriers.Credentials{Carrier: "USPS", Identity: client, Fields: map[string]string{"clientId": client, "accountNumber": account}})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	ctx := context.Background()
	acme, acmeAgain, zed := build("acme", "A1"), build("acme", "A2"), build("zed", "Z1")
	if _, err := acme.SchedulePickup(ctx, carriers.PickupRequest{}); err != nil {
		t.Fatalf("acme's first pickup: %v", err)
	}
	if _, err := acmeAgain.SchedulePickup(ctx, carriers.PickupRequest{}); !errors.Is(err, carriers.ErrOverQuota) {
		t.Fatalf("another account of acme's client id: %v, want ErrOverQuota (one budget per client id)", err)
	}
	if _, err := zed.SchedulePickup(ctx, carriers.PickupRequest{}); err != nil {
		t.Fatalf("zed's own budget: %v", err)
	}
	clk.Add(time.Hour)
	if _, err := acme.SchedulePickup(ctx, carriers.PickupRequest{}); err != nil {
		t.Fatalf("acme an hour later: %v", err)
	}
	if diff := cmp.Diff(map[string]int{"pickup": 2}, inners["acme/A1"].calls); diff != "" {
		t.Errorf("acme's calls (-want +got):\n%s", diff)
	}

	// Without budgets, a 429 still pauses the client it answered, and only it.
	paused := carriers.Factory(func(cr carriers.Credentials) (carriers.Carrier, error) {
		e := &endOfDay{name: "USPS"}
		if cr.Identity == "zed" {
			e.pickupErr = &carriers.Error{HTTPStatus: http.StatusTooManyRequests, RetryAfter: 10 * time.Minute, Kind: carriers.ErrUnavailable}
		}
		return e, nil
	}).Limited(carriers.QuotaConfig{Now: clk.Now})
	zedC, _ := paused(carriers.Credentials{Carrier: "USPS", Identity: "zed"})
	acmeC, _ := paused(carriers.Credentials{Carrier: "USPS", Identity: "acme"})
	if _, err := zedC.SchedulePickup(ctx, carriers.PickupRequest{}); errors.Is(err, carriers.ErrOverQuota) || !errors.Is(err, carriers.ErrUnavailable) {
		t.Fatalf("zed's 429: %v", err)
	}
	if _, err := zedC.SchedulePickup(ctx, carriers.PickupRequest{}); !errors.Is(err, carriers.ErrOverQuota) {
		t.Fatalf("zed during its pause: %v, want ErrOverQuota", err)
	}
	if _, err := acmeC.SchedulePickup(ctx, carriers.PickupRequest{}); err != nil {
		t.Fatalf("acme during zed's pause: %v", err)
	}
}

package labeljobs

// Live tracking under a carrier's call budget, worked by hand on the
// injected clock: the carrier is the sandbox's USPS made live (its tracking
// is polled, not planned) behind carriers.Limit with an in-memory budget.

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/sandbox"
	"github.com/shipd-dev/shipd/internal/fakeclock"
	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/shipping/shippingtest"
	"github.com/shipd-dev/shipd/shipping/trackers"
	"github.com/shipd-dev/shipd/store"
)

// polledCarrier is a sandbox carrier whose tracking is asked like a live
// carrier's (CapTrack, no plans): Track records the number and answers an
// in-transit scan, or "no information" for the numbers in unknown.
type polledCarrier struct {
	carriers.Carrier

	mu      sync.Mutex
	asked   map[string]int
	unknown map[string]bool
}

func (p *polledCarrier) Capabilities() carriers.Capabilities {
	return p.Carrier.Capabilities()&^(carriers.CapTrackingPlan|carriers.CapNumberPlan) | carriers.CapTrack
}

func (p *polledCarrier) Track(_ context.Context, number string) (carriers.TrackingUpdate, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.asked[number]++
	if p.unknown[number] {
		return carriers.TrackingUpdate{Status: carriers.StatusUnknown}, nil
	}
	return carriers.TrackingUpdate{Status: carriers.StatusInTransit, Events: []carriers.TrackingEvent{
		{Status: carriers.StatusInTransit, Message: "Arrived at USPS Regional Facility", OccurredAt: time.Date(2031, time.March, 4, 9, 0, 0, 0, time.UTC)}}}, nil
}

// askedOf is how many times the carrier was asked about number.
func (p *polledCarrier) askedOf(number string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.asked[number]
}

func (p *polledCarrier) setUnknown(number string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.unknown[number] = true
}

// liveTracking is the shipping service with the live USPS above, its
// tracking budget of uspsTracking, and a clock the test moves.
type liveTracking struct {
	ts    *shippingtest.Services
	svc   *shipping.Service
	lj    *Service
	trk   *trackers.Service
	clock *fakeclock.Clock
	usps  *polledCarrier
	jobs  *river.Client[*sql.Tx]
}

// uspsTracking is USPS's published default tracking budget.
var uspsTracking = carriers.Quota{Calls: 60, Per: time.Hour}

func setupLiveTracking(t *testing.T, cfg shipping.Config) *liveTracking {
	t.Helper()
	clock := fakeclock.New(time.Date(2031, time.March, 4, 10, 0, 0, 0, time.UTC))
	var usps *polledCarrier
	var live []carriers.Carrier
	for _, c := range sandbox.New(sandbox.Config{Now: clock.Now}) {
		if c.Name() == "USPS" {
			usps = &polledCarrier{Carrier: c, asked: map[string]int{}, unknown: map[string]bool{}}
			live = append(live, carriers.Limit(usps, carriers.QuotaConfig{
				Quotas:  carriers.Quotas{{Carrier: "usps", API: carriers.APITracking}: uspsTracking},
				Limiter: carriers.NewMemoryLimiter(clock.Now), Now: clock.Now}))
		}
	}
	cfg.Now, cfg.JobNow = clock.Now, clock.Now
	cfg.Carriers = carriers.NewRegistry(sandbox.New(sandbox.Config{Now: clock.Now}), live)
	ts := shippingtest.New(t, accounts.Live, cfg)
	jobs, err := ts.Store.JobClient(&river.Config{})
	if err != nil {
		t.Fatal(err)
	}
	lj := New(ts.Store, ts.Shipping)
	return &liveTracking{ts: ts, svc: ts.Shipping, lj: lj, trk: trackers.New(ts.Store, ts.Shipping, lj, ts.Accounts, ts.Idempotency), clock: clock, usps: usps, jobs: jobs}
}

// caller is a live caller of a new account.
func (l *liveTracking) caller(t *testing.T, name string) accounts.Caller {
	t.Helper()
	ctx := context.Background()
	a, err := l.ts.Accounts.CreateAccount(ctx, name, true)
	if err != nil {
		t.Fatal(err)
	}
	_, secret, err := l.ts.Accounts.CreateToken(ctx, accounts.NewToken{AccountID: a.ID, Mode: accounts.Live, Scopes: accounts.Scopes()})
	if err != nil {
		t.Fatal(err)
	}
	c, err := l.ts.Accounts.Authenticate(ctx, secret, "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// trackers has c follow n USPS numbers (eight creates at a time); their ids.
func (l *liveTracking) trackers(t *testing.T, c accounts.Caller, n int) []string {
	t.Helper()
	ids := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			got, _, err := l.trk.CreateTracker(context.Background(), c, trackers.NewTracker{TrackingNumber: fmt.Sprintf("9400111899223%09d", i), Carrier: "USPS"})
			ids[i], errs[i] = got.Tracker.ID, err
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	return ids
}

// label has c buy a USPS label (its purchase job worked by hand); its tracker.
func (l *liveTracking) label(t *testing.T, c accounts.Caller) store.Tracker {
	t.Helper()
	ctx := context.Background()
	in := shipping.NewLabel{Selection: shipping.Selection{Carrier: ptr("USPS")}, Input: shipping.Input{
		From:   shipping.Address{Name: ptr("Shop"), Phone: ptr("+1 415 555 0100"), Street1: "1 Market St", City: "San Francisco", State: ptr("CA"), Zip: "94105", Country: "US"},
		To:     shipping.Address{Name: ptr("Ada Lovelace"), Phone: ptr("+1 212 555 0100"), Street1: "350 Fifth Avenue", City: "New York", State: ptr("NY"), Zip: "10118", Country: "US"},
		Parcel: shipping.Parcel{WeightOz: new(float64(32))},
	}}
	sh, _, err := l.svc.Create(ctx, c, in)
	if err != nil {
		t.Fatal(err)
	}
	res, err := l.jobs.JobList(ctx, river.NewJobListParams().Kinds(shipping.PurchaseArgs{}.Kind()).First(100))
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range res.Jobs {
		var args shipping.PurchaseArgs
		if err := json.Unmarshal(row.EncodedArgs, &args); err != nil {
			t.Fatal(err)
		}
		if args.ShipmentID == sh.ID {
			if err := (&purchaseWorker{s: l.lj}).Work(ctx, &river.Job[shipping.PurchaseArgs]{JobRow: row, Args: args}); err != nil {
				t.Fatal(err)
			}
		}
	}
	got, err := l.svc.Get(ctx, c, sh.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != shipping.Purchased || got.TrackerID == nil {
		t.Fatalf("label after its purchase job: %+v", got)
	}
	tr, err := l.ts.Store.TrackerByID(ctx, *got.TrackerID)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// poll works poll n of a tracker; snoozed says the budget deferred it.
func (l *liveTracking) poll(t *testing.T, trackerID string, n int) (snoozed bool) {
	t.Helper()
	return l.work(t, pollArgs{TrackerID: trackerID, Poll: n})
}

// work works a poll job of these args; snoozed says the budget deferred it.
func (l *liveTracking) work(t *testing.T, args pollArgs) (snoozed bool) {
	t.Helper()
	err := (&pollWorker{s: l.lj}).Work(context.Background(), &river.Job[pollArgs]{JobRow: &rivertype.JobRow{}, Args: args})
	var snooze *rivertype.JobSnoozeError
	if errors.As(err, &snooze) {
		return true
	}
	if err != nil {
		t.Fatal(err)
	}
	return false
}

// An account following 1,000 packages does not hold up another account's
// label, nor its own: each poll of a label goes when it is due, while the
// trackers' polls share what the budget has left. Before the budget was
// shared between accounts, the 1,000 polls took all of USPS's 60 calls an
// hour and every refill, and the labels' polls waited behind them.
func TestLiveTrackingBudgetIsSharedBetweenAccounts(t *testing.T) {
	t.Parallel()
	l := setupLiveTracking(t, shipping.Config{TrackerLimit: 1000})
	busy, other := l.caller(t, "Busy"), l.caller(t, "Other")
	ids := l.trackers(t, busy, 1000)
	polls := make(map[string]int, len(ids))
	for _, id := range ids {
		polls[id] = 1
	}
	// Every tracker's poll that is due runs, the busy account's first: the
	// worst case for the label, whose poll comes after them.
	round := func() (went int) {
		for _, id := range ids {
			if !l.poll(t, id, polls[id]) {
				polls[id]++
				went++
			}
		}
		return went
	}
	l.clock.Advance(15 * time.Minute)
	first := round()
	if first == 0 || first >= len(ids) {
		t.Fatalf("%d of 1000 trackers' first polls went under a budget of %s", first, uspsTracking)
	}

	otherLabel, ownLabel := l.label(t, other), l.label(t, busy)
	for range 4 {
		l.clock.Advance(15 * time.Minute)
		went := round()
		for _, tr := range []store.Tracker{otherLabel, ownLabel} {
			if l.poll(t, tr.ID, polls[tr.ID]+1) {
				t.Fatalf("the label poll of %s (%s) was deferred behind the busy account's %d trackers (%d of their polls went this round)",
					tr.ID, tr.AccountID, len(ids), went)
			}
			polls[tr.ID]++
			if l.usps.askedOf(tr.TrackingNumber) != polls[tr.ID] {
				t.Fatalf("USPS was asked %d times about %s, want %d", l.usps.askedOf(tr.TrackingNumber), tr.TrackingNumber, polls[tr.ID])
			}
		}
		if went == 0 {
			t.Errorf("no tracker's poll went in 15 minutes: the busy account's trackers are starved")
		}
	}
}

// scheduledPoll is poll n of a tracker and when it is due; false when it was not queued.
func (l *liveTracking) scheduledPoll(t *testing.T, trackerID string, n int) (pollArgs, time.Time, bool) {
	t.Helper()
	res, err := l.jobs.JobList(context.Background(), river.NewJobListParams().Kinds(pollArgs{}.Kind()).First(10000))
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range res.Jobs {
		var args pollArgs
		if err := json.Unmarshal(row.EncodedArgs, &args); err != nil {
			t.Fatal(err)
		}
		if args.TrackerID == trackerID && args.Poll == n {
			return args, row.ScheduledAt.UTC(), true
		}
	}
	return pollArgs{}, time.Time{}, false
}

// A number the carrier has no information on is asked about a bounded
// number of times, further and further apart, and then no more. It was
// asked every 15 minutes, then hourly, for a day: 42 calls of the budget
// for a number that is most often mistyped.
func TestLiveUnknownNumberIsAskedABoundedNumberOfTimes(t *testing.T) {
	t.Parallel()
	l := setupLiveTracking(t, shipping.Config{})
	c := l.caller(t, "Shop")
	number := "9400111899223000000001"
	l.usps.setUnknown(number)
	created, _, err := l.trk.CreateTracker(context.Background(), c, trackers.NewTracker{TrackingNumber: number, Carrier: "USPS"})
	if err != nil {
		t.Fatal(err)
	}
	id, start := created.Tracker.ID, l.clock.Now()
	var asked []string
	for n := 1; ; n++ {
		args, at, ok := l.scheduledPoll(t, id, n)
		if !ok {
			break
		}
		if n > 100 {
			t.Fatal("still polled after 100 polls")
		}
		l.clock.Advance(at.Sub(l.clock.Now()))
		if l.work(t, args) {
			t.Fatalf("poll %d deferred", n)
		}
		asked = append(asked, l.clock.Now().Sub(start).String())
	}
	want := []string{"15m0s", "45m0s", "1h45m0s", "3h45m0s", "7h45m0s", "15h45m0s"}
	if diff := cmp.Diff(want, asked); diff != "" {
		t.Errorf("polls of an unknown number, after the tracker's creation (-want +got):\n%s", diff)
	}
	if n := l.usps.askedOf(number); n != len(want) {
		t.Errorf("USPS asked %d times, want %d", n, len(want))
	}
	// The tracker ended, saying why, and tracker.updated said so.
	got, err := l.svc.Tracker(context.Background(), c, id)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != carriers.StatusUnknown || got.EndReason != shipping.EndUnknownNumber || got.EndedAt == nil || !got.EndedAt.Equal(l.clock.Now()) ||
		len(got.Events) != 1 || got.Events[0].Message != shipping.UnknownNumberMessage {
		t.Errorf("the tracker after its last poll: %+v", got)
	}
	evs, _, err := l.ts.Store.ListEvents(context.Background(), c.AccountID, string(accounts.Live), "tracker.updated", paging.Request{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var last shipping.Tracker
	if len(evs) != 2 || json.Unmarshal([]byte(evs[0].Data), &last) != nil || last.EndReason != shipping.EndUnknownNumber {
		t.Errorf("tracker.updated: %d events, the last %s; want the unknown number's, then the end's", len(evs), evs[0].Data)
	}
}

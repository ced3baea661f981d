package labeljobs

// The job workers tested alone, at the domain level, as River's own
// examples test workers: each test queues a job through the service (a
// create, a refund), reads it back with River's client, and runs the worker
// on it by hand. River's rivertest.Worker is not used because it works a job
// inside a transaction of its own, and on SQLite that transaction would hold
// the one write lock the worker's own transaction waits for.

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/sandbox"
	"github.com/shipd-dev/shipd/internal/fakeclock"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/shipping/shippingtest"
	"github.com/shipd-dev/shipd/store"
)

// workerBundle is the shipping service over a fresh database with a clock
// far from the machine's, so a job scheduled from time.Now instead of the
// service's clock shows.
type workerBundle struct {
	st     *store.Store
	svc    *shipping.Service
	lj     *Service
	clock  *fakeclock.Clock
	caller accounts.Caller
	jobs   *river.Client[*sql.Tx]
}

const scanEvery = 7 * time.Minute

// setupWorkers builds the bundle; wrap, when given, wraps each sandbox carrier.
func setupWorkers(t *testing.T, wrap ...func(carriers.Carrier) carriers.Carrier) *workerBundle {
	t.Helper()
	clock := fakeclock.New(time.Date(2031, time.March, 4, 10, 0, 0, 0, time.UTC))
	cs := sandbox.New(sandbox.Config{ScanInterval: scanEvery, Now: clock.Now})
	for _, w := range wrap {
		for i := range cs {
			cs[i] = w(cs[i])
		}
	}
	s := shippingtest.New(t, accounts.Test, shipping.Config{Now: clock.Now, JobNow: clock.Now,
		Carriers: carriers.NewRegistry(cs, nil), PurchaseRetryBase: 3 * time.Second})
	jobs, err := s.Store.JobClient(&river.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return &workerBundle{st: s.Store, svc: s.Shipping, lj: New(s.Store, s.Shipping), clock: clock, caller: s.Caller, jobs: jobs}
}

func (b *workerBundle) create(t *testing.T, recipient string) shipping.Shipment {
	t.Helper()
	name := recipient
	in := shipping.NewLabel{Input: shipping.Input{
		From:   shipping.Address{Name: ptr("Shop"), Phone: ptr("+1 415 555 0100"), Street1: "1 Market St", City: "San Francisco", State: ptr("CA"), Zip: "94105", Country: "US"},
		To:     shipping.Address{Name: &name, Phone: ptr("+1 212 555 0100"), Street1: "350 Fifth Avenue", City: "New York", State: ptr("NY"), Zip: "10118", Country: "US"},
		Parcel: shipping.Parcel{WeightOz: new(float64(32))},
	}}
	sh, _, err := b.svc.Create(context.Background(), b.caller, in)
	if err != nil {
		t.Fatal(err)
	}
	return sh
}

// job is the one job of kind whose args name the shipment or tracker id,
// decoded for its worker.
func job[T river.JobArgs](t *testing.T, b *workerBundle, kind, key, id string) *river.Job[T] {
	t.Helper()
	res, err := b.jobs.JobList(context.Background(), river.NewJobListParams().Kinds(kind).First(100))
	if err != nil {
		t.Fatal(err)
	}
	var found []*rivertype.JobRow
	for _, row := range res.Jobs {
		var m map[string]any
		if err := json.Unmarshal(row.EncodedArgs, &m); err != nil {
			t.Fatal(err)
		}
		if m[key] == id {
			found = append(found, row)
		}
	}
	if len(found) == 0 {
		t.Fatalf("no %s job for %s", kind, id)
	}
	row := found[len(found)-1]
	var args T
	if err := json.Unmarshal(row.EncodedArgs, &args); err != nil {
		t.Fatal(err)
	}
	return &river.Job[T]{JobRow: row, Args: args}
}

func jobCount(t *testing.T, b *workerBundle, kind string) int {
	t.Helper()
	res, err := b.jobs.JobList(context.Background(), river.NewJobListParams().Kinds(kind).First(100))
	if err != nil {
		t.Fatal(err)
	}
	return len(res.Jobs)
}

func (b *workerBundle) get(t *testing.T, id string) shipping.Shipment {
	t.Helper()
	sh, err := b.svc.Get(context.Background(), b.caller, id)
	if err != nil {
		t.Fatal(err)
	}
	return sh
}

// ledgerOf is the movements of money of one shipment.
func (b *workerBundle) ledgerOf(t *testing.T, shipmentID string) []shipping.LedgerEntry {
	t.Helper()
	entries, _, err := b.svc.Ledger(context.Background(), b.caller)
	if err != nil {
		t.Fatal(err)
	}
	var mine []shipping.LedgerEntry
	for _, e := range entries {
		if e.ShipmentID == shipmentID {
			mine = append(mine, e)
		}
	}
	return mine
}

func ptr[T any](v T) *T { return &v }

func TestPurchaseWorkerBuysAndSchedulesTheFirstScanFromTheClock(t *testing.T) {
	t.Parallel()
	b := setupWorkers(t)
	ctx := context.Background()
	sh := b.create(t, "Ada Lovelace")
	if sh.Status != shipping.Paying {
		t.Fatalf("created %s, want paying", sh.Status)
	}
	b.clock.Advance(time.Minute)
	purchasedAt := b.clock.Now()
	if err := (&purchaseWorker{s: b.lj}).Work(ctx, job[shipping.PurchaseArgs](t, b, shipping.PurchaseArgs{}.Kind(), "shipment_id", sh.ID)); err != nil {
		t.Fatal(err)
	}
	got := b.get(t, sh.ID)
	if got.Status != shipping.Purchased || got.TrackingNumber == nil || !got.HasLabel || got.TrackerID == nil {
		t.Fatalf("after the purchase job: %+v", got)
	}
	if !got.PurchasedAt.Equal(purchasedAt) {
		t.Errorf("purchasedAt %s, want the clock's %s", got.PurchasedAt, purchasedAt)
	}
	scan := job[scanArgs](t, b, scanArgs{}.Kind(), "tracker_id", *got.TrackerID)
	if diff := cmp.Diff(purchasedAt.Add(scanEvery), scan.ScheduledAt.UTC()); diff != "" {
		t.Errorf("first scan scheduled (-want +got):\n%s", diff)
	}

	// The job run again (a crash before River recorded its completion) buys
	// nothing more: no second scan schedule, no second movement of money.
	moves := b.ledgerOf(t, sh.ID)
	if err := (&purchaseWorker{s: b.lj}).Work(ctx, job[shipping.PurchaseArgs](t, b, shipping.PurchaseArgs{}.Kind(), "shipment_id", sh.ID)); err != nil {
		t.Fatal(err)
	}
	if n := jobCount(t, b, scanArgs{}.Kind()); n != 1 {
		t.Errorf("%d scan jobs after the purchase ran twice, want 1", n)
	}
	if diff := cmp.Diff(moves, b.ledgerOf(t, sh.ID)); diff != "" {
		t.Errorf("ledger after the purchase ran twice (-before +after):\n%s", diff)
	}
	// The same shipment, whichever read (the database's, or the cache's,
	// which numbers what it keeps) answered each time.
	if diff := cmp.Diff(got, b.get(t, sh.ID), cmpopts.IgnoreFields(shipping.Shipment{}, "Revision")); diff != "" {
		t.Errorf("shipment after the purchase ran twice (-before +after):\n%s", diff)
	}
}

func TestPurchaseWorkerDefersFromTheClockWhileTheCarrierIsUnavailable(t *testing.T) {
	t.Parallel()
	b := setupWorkers(t)
	ctx := context.Background()
	sh := b.create(t, "Carrier Unavailable")
	w := &purchaseWorker{s: b.lj}
	first := job[shipping.PurchaseArgs](t, b, shipping.PurchaseArgs{}.Kind(), "shipment_id", sh.ID)
	if err := w.Work(ctx, first); err != nil {
		t.Fatal(err)
	}
	if got := b.get(t, sh.ID).Status; got != shipping.Pending {
		t.Fatalf("status %s, want pending", got)
	}
	next := job[shipping.PurchaseArgs](t, b, shipping.PurchaseArgs{}.Kind(), "shipment_id", sh.ID)
	if next.ID == first.ID || next.Args.Attempt != 1 {
		t.Fatalf("next attempt: job %d args %+v", next.ID, next.Args)
	}
	if diff := cmp.Diff(b.clock.Now().Add(3*time.Second), next.ScheduledAt.UTC()); diff != "" {
		t.Errorf("next attempt scheduled (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(b.clock.Now().Add(6*time.Second), w.NextRetry(&river.Job[shipping.PurchaseArgs]{JobRow: &rivertype.JobRow{Attempt: 2}})); diff != "" {
		t.Errorf("NextRetry (-want +got):\n%s", diff)
	}
}

func TestScanWorkerAppliesTheScanAndSchedulesTheNextFromTheClock(t *testing.T) {
	t.Parallel()
	b := setupWorkers(t)
	ctx := context.Background()
	sh := b.create(t, "Ada Lovelace")
	if err := (&purchaseWorker{s: b.lj}).Work(ctx, job[shipping.PurchaseArgs](t, b, shipping.PurchaseArgs{}.Kind(), "shipment_id", sh.ID)); err != nil {
		t.Fatal(err)
	}
	tracker := *b.get(t, sh.ID).TrackerID
	b.clock.Advance(scanEvery)
	first := job[scanArgs](t, b, scanArgs{}.Kind(), "tracker_id", tracker)
	if err := (&scanWorker{s: b.lj}).Work(ctx, first); err != nil {
		t.Fatal(err)
	}
	got := b.get(t, sh.ID)
	if got.TrackingStatus == nil || *got.TrackingStatus != carriers.StatusPreTransit || len(got.TrackingEvents) != 1 {
		t.Fatalf("after the first scan: status %v, %d events", got.TrackingStatus, len(got.TrackingEvents))
	}
	if !got.TrackingEvents[0].OccurredAt.Equal(b.clock.Now()) {
		t.Errorf("scan at %s, want the clock's %s", got.TrackingEvents[0].OccurredAt, b.clock.Now())
	}
	second := job[scanArgs](t, b, scanArgs{}.Kind(), "tracker_id", tracker)
	if second.Args.Index != 1 {
		t.Fatalf("next scan index %d, want 1", second.Args.Index)
	}
	if diff := cmp.Diff(b.clock.Now().Add(scanEvery), second.ScheduledAt.UTC()); diff != "" {
		t.Errorf("second scan scheduled (-want +got):\n%s", diff)
	}
	// The same scan again records nothing.
	if err := (&scanWorker{s: b.lj}).Work(ctx, first); err != nil {
		t.Fatal(err)
	}
	if n := len(b.get(t, sh.ID).TrackingEvents); n != 1 {
		t.Errorf("%d events after the same scan ran twice, want 1", n)
	}
}

func TestVoidWorkerVoidsAndCredits(t *testing.T) {
	t.Parallel()
	b := setupWorkers(t)
	ctx := context.Background()
	sh := b.create(t, "Ada Lovelace")
	if err := (&purchaseWorker{s: b.lj}).Work(ctx, job[shipping.PurchaseArgs](t, b, shipping.PurchaseArgs{}.Kind(), "shipment_id", sh.ID)); err != nil {
		t.Fatal(err)
	}
	_, balanceBefore, err := b.svc.Ledger(ctx, b.caller)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.svc.Refund(ctx, b.caller, sh.ID, shipping.RefundRequest{}); err != nil {
		t.Fatal(err)
	}
	if got := b.get(t, sh.ID).Status; got != shipping.VoidRequested {
		t.Fatalf("after the refund: %s", got)
	}
	b.clock.Advance(time.Hour)
	w := &voidWorker{s: b.lj}
	if err := w.Work(ctx, job[shipping.VoidArgs](t, b, shipping.VoidArgs{}.Kind(), "shipment_id", sh.ID)); err != nil {
		t.Fatal(err)
	}
	got := b.get(t, sh.ID)
	if got.Status != shipping.Voided || got.VoidedAt == nil || !got.VoidedAt.Equal(b.clock.Now()) {
		t.Fatalf("after the void job: status %s voidedAt %v, want voided at %s", got.Status, got.VoidedAt, b.clock.Now())
	}
	_, balanceAfter, err := b.svc.Ledger(ctx, b.caller)
	if err != nil {
		t.Fatal(err)
	}
	if balanceAfter-balanceBefore != sh.CustomerPriceCents {
		t.Errorf("balance %d -> %d, want the price %d credited", balanceBefore, balanceAfter, sh.CustomerPriceCents)
	}
	if diff := cmp.Diff(b.clock.Now().Add(3*time.Second), w.NextRetry(&river.Job[shipping.VoidArgs]{JobRow: &rivertype.JobRow{Attempt: 1}})); diff != "" {
		t.Errorf("NextRetry (-want +got):\n%s", diff)
	}
}

// overQuota is a carrier whose purchases find the call budget spent.
type overQuota struct{ carriers.Carrier }

func (c overQuota) Buy(context.Context, carriers.BuyRequest) (carriers.Label, error) {
	return carriers.Label{}, &carriers.Error{Carrier: c.Name(), Operation: "buy", Kind: carriers.ErrOverQuota,
		RetryAfter: 90 * time.Second, Message: "shipd's budget of labels calls is spent"}
}

// A purchase that finds the carrier's call budget spent waits for it
// (River snoozes the job until a call may go) without spending one of its
// attempts: however long the budget stays short, it is not failed.
func TestPurchaseWorkerWaitsForTheCallBudget(t *testing.T) {
	t.Parallel()
	b := setupWorkers(t, func(c carriers.Carrier) carriers.Carrier { return overQuota{c} })
	ctx := context.Background()
	sh := b.create(t, "Ada Lovelace")
	w := &purchaseWorker{s: b.lj}
	for range b.lj.cfg.PurchaseAttempts + 2 {
		err := w.Work(ctx, job[shipping.PurchaseArgs](t, b, shipping.PurchaseArgs{}.Kind(), "shipment_id", sh.ID))
		var snooze *rivertype.JobSnoozeError
		if !errors.As(err, &snooze) || snooze.Duration != 90*time.Second {
			t.Fatalf("Work = %v, want a snooze of the carrier's 90 s", err)
		}
	}
	if got := b.get(t, sh.ID); got.Status != shipping.Paying || got.ErrorMessage != nil {
		t.Errorf("after the budget stayed short: status %s, error %v; want paying", got.Status, got.ErrorMessage)
	}
	if n := jobCount(t, b, shipping.PurchaseArgs{}.Kind()); n != 1 {
		t.Errorf("%d purchase jobs, want the one job snoozed", n)
	}
}

// countingBuys is a carrier that counts the purchases asked of it, by
// shipment id.
type countingBuys struct {
	carriers.Carrier
	mu   *sync.Mutex
	buys map[string]int
}

func (c countingBuys) Buy(ctx context.Context, req carriers.BuyRequest) (carriers.Label, error) {
	c.mu.Lock()
	c.buys[req.Reference]++
	c.mu.Unlock()
	return c.Carrier.Buy(ctx, req)
}

// A batch's purchase job buys its labels in turn, each as its own purchase
// job would, and only those still waiting for their first attempt: a label
// bought already is not bought again, and one the carrier deferred is left
// to the job of its next attempt. Run again, it buys nothing more.
func TestPurchaseBatchWorkerBuysTheLabelsWaitingForTheirFirstAttempt(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	buys := map[string]int{}
	b := setupWorkers(t, func(c carriers.Carrier) carriers.Carrier { return countingBuys{c, &mu, buys} })
	ctx := context.Background()
	waiting, bought, deferred := b.create(t, "Ada Lovelace"), b.create(t, "Grace Hopper"), b.create(t, "Carrier Unavailable")
	for _, sh := range []shipping.Shipment{bought, deferred} {
		if err := (&purchaseWorker{s: b.lj}).Work(ctx, job[shipping.PurchaseArgs](t, b, shipping.PurchaseArgs{}.Kind(), "shipment_id", sh.ID)); err != nil {
			t.Fatal(err)
		}
	}
	if got := b.get(t, deferred.ID).Status; got != shipping.Pending {
		t.Fatalf("%s after its first attempt, want pending", got)
	}
	boughtBefore := b.get(t, bought.ID)
	w := &purchaseBatchWorker{s: b.lj}
	batchJob := &river.Job[shipping.PurchaseBatchArgs]{JobRow: &rivertype.JobRow{Attempt: 1},
		Args: shipping.PurchaseBatchArgs{ShipmentIDs: []string{waiting.ID, bought.ID, deferred.ID}}}
	for run := range 2 {
		if err := w.Work(ctx, batchJob); err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
	}
	if got := b.get(t, waiting.ID); got.Status != shipping.Purchased || !got.HasLabel {
		t.Errorf("the waiting label: status %s, label %v; want purchased with its label", got.Status, got.HasLabel)
	}
	if diff := cmp.Diff(boughtBefore, b.get(t, bought.ID), cmpopts.IgnoreFields(shipping.Shipment{}, "Revision")); diff != "" {
		t.Errorf("the label bought before (-before +after):\n%s", diff)
	}
	if got := b.get(t, deferred.ID).Status; got != shipping.Pending {
		t.Errorf("the deferred label: %s, want still pending", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if diff := cmp.Diff(map[string]int{waiting.ID: 1, bought.ID: 1, deferred.ID: 1}, buys); diff != "" {
		t.Errorf("purchases asked of the carrier (-want +got):\n%s", diff)
	}
}

// A batch's purchase job that finds the carrier's call budget spent waits
// for it whole, as a label's job does: River runs it again once a call may
// go, and the labels after the one that waits are not attempted meanwhile.
func TestPurchaseBatchWorkerWaitsForTheCallBudget(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	buys := map[string]int{}
	b := setupWorkers(t, func(c carriers.Carrier) carriers.Carrier { return overQuota{c} },
		func(c carriers.Carrier) carriers.Carrier { return countingBuys{c, &mu, buys} })
	ctx := context.Background()
	first, second := b.create(t, "Ada Lovelace"), b.create(t, "Grace Hopper")
	err := (&purchaseBatchWorker{s: b.lj}).Work(ctx, &river.Job[shipping.PurchaseBatchArgs]{JobRow: &rivertype.JobRow{Attempt: 1},
		Args: shipping.PurchaseBatchArgs{ShipmentIDs: []string{first.ID, second.ID}}})
	var snooze *rivertype.JobSnoozeError
	if !errors.As(err, &snooze) || snooze.Duration != 90*time.Second {
		t.Fatalf("Work = %v, want a snooze of the carrier's 90 s", err)
	}
	for _, sh := range []shipping.Shipment{first, second} {
		if got := b.get(t, sh.ID); got.Status != shipping.Paying || got.ErrorMessage != nil {
			t.Errorf("%s: status %s, error %v; want paying", sh.ID, got.Status, got.ErrorMessage)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if diff := cmp.Diff(map[string]int{first.ID: 1}, buys); diff != "" {
		t.Errorf("purchases asked of the carrier (-want +got):\n%s", diff)
	}
}

package webhooks

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertest"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/idempotency"
	"github.com/shipd-dev/shipd/internal/fakeclock"
	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/seal"
	"github.com/shipd-dev/shipd/store"
)

// TestAttemptWorkerSchedulesFromTheClock runs the automatic-attempt worker on
// its job with rivertest, against a real store and a receiver that answers
// 503: the attempt is recorded at the service clock's time, and the next
// automatic attempt is scheduled one retry wait later by that clock, not by
// the machine's. The clock is set years away from the machine's time, so the
// two cannot be confused.
func TestAttemptWorkerSchedulesFromTheClock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newWorkerFixture(t)
	clock, st, wh, c, jobs, jobTx := f.clock, f.st, f.wh, f.caller, f.jobs, f.jobTx
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(receiver.Close)
	sub, _, err := wh.Create(ctx, c, NewSubscription{URL: receiver.URL, Events: []string{EventShipmentPurchased}})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Tx(ctx, func(tx *store.Tx) error {
		_, err := wh.Record(ctx, tx, c.AccountID, string(accounts.Test), EventShipmentPurchased, json.RawMessage(`{"id":"shp_1"}`))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	ds, _, err := wh.Deliveries(ctx, c, sub.ID, paging.Request{Limit: 10})
	if err != nil || len(ds) != 1 {
		t.Fatalf("deliveries %v, %v; want one", ds, err)
	}
	id := ds[0].ID

	worker := rivertest.NewWorker(t, riversqlite.New(jobs), &river.Config{}, river.Worker[attemptArgs](&attemptWorker{s: wh}))
	res, err := worker.Work(ctx, t, jobTx, attemptArgs{DeliveryID: id, Attempt: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.EventKind != river.EventKindJobCompleted {
		t.Fatalf("job %s, want completed", res.EventKind)
	}

	now := clock.Now()
	due := now.Add(time.Minute) // the default schedule's first wait
	ds, _, err = wh.Deliveries(ctx, c, sub.ID, paging.Request{Limit: 10})
	if err != nil || len(ds) != 1 || len(ds[0].Log) != 1 {
		t.Fatalf("deliveries %+v, %v; want one with one attempt", ds, err)
	}
	d, attempt := ds[0], ds[0].Log[0]
	type got struct {
		Status            DeliveryStatus
		Attempts, Auto    int
		NextAttemptAt     time.Time
		AttemptedAt       time.Time
		ResponseStatus    int
		AutomaticAttempt  int
		AnnouncesAttempt2 bool
	}
	want := got{StatusPending, 1, 1, due, now, http.StatusServiceUnavailable, 1, true}
	have := got{d.Status, d.Attempts, d.AutomaticAttempts, deref(d.NextAttemptAt), attempt.AttemptedAt, deref(attempt.ResponseStatus),
		deref(attempt.AutomaticAttempt), strings.Contains(deref(attempt.Error), "automatic attempt 2 of 5 at "+due.Format(time.RFC3339))}
	if diff := cmp.Diff(want, have); diff != "" {
		t.Errorf("delivery after attempt 1 (-want +got):\n%s\nerror: %s", diff, deref(attempt.Error))
	}

	// The worker queued attempt 2 in the store, due when the rule said.
	client, err := st.JobClient(&river.Config{})
	if err != nil {
		t.Fatal(err)
	}
	list, err := client.JobList(ctx, river.NewJobListParams().Kinds(attemptArgs{}.Kind()).First(10))
	if err != nil {
		t.Fatal(err)
	}
	var next []time.Time
	for _, j := range list.Jobs {
		var args attemptArgs
		if err := json.Unmarshal(j.EncodedArgs, &args); err != nil {
			t.Fatal(err)
		}
		if args == (attemptArgs{DeliveryID: id, Attempt: 2}) {
			next = append(next, j.ScheduledAt.UTC())
		}
	}
	if diff := cmp.Diff([]time.Time{due}, next); diff != "" {
		t.Errorf("attempt 2's jobs, by scheduled time (-want +got):\n%s", diff)
	}
}

// workerFixture is a store with an account, its caller, the webhooks service
// on a fake clock set years away from the machine's time, and the database
// rivertest keeps the jobs it works in: the store hands out no transaction,
// and SQLite's one writer could not serve rivertest's transaction and the
// worker's at once. Everything the worker does goes to the store.
type workerFixture struct {
	clock  *fakeclock.Clock
	st     *store.Store
	wh     *Service
	caller accounts.Caller
	jobs   *sql.DB
	jobTx  *sql.Tx
}

func newWorkerFixture(t *testing.T, delivery ...DeliveryConfig) workerFixture {
	t.Helper()
	ctx := context.Background()
	f := workerFixture{clock: fakeclock.New(time.Date(2031, 3, 4, 5, 6, 7, 0, time.UTC))}
	var err error
	f.st, err = store.Open(ctx, filepath.Join(t.TempDir(), "shipd.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.st.Close() })
	cipher, err := seal.NewCipher(bytes.Repeat([]byte{3}, 32))
	if err != nil {
		t.Fatal(err)
	}
	acc := accounts.New(f.st, accounts.Config{Now: f.clock.Now})
	cfg := Config{Now: f.clock.Now, JobNow: f.clock.Now}
	if len(delivery) > 0 {
		cfg.Delivery = delivery[0]
	}
	f.wh = New(f.st, acc, idempotency.New(f.st, cipher, idempotency.Config{}), cipher, cfg)
	a, err := acc.CreateAccount(ctx, "Acme", true)
	if err != nil {
		t.Fatal(err)
	}
	_, secret, err := acc.CreateToken(ctx, accounts.NewToken{AccountID: a.ID, Mode: accounts.Test, Scopes: accounts.Scopes()})
	if err != nil {
		t.Fatal(err)
	}
	if f.caller, err = acc.Authenticate(ctx, secret, "127.0.0.1"); err != nil {
		t.Fatal(err)
	}
	f.jobs, err = sql.Open("sqlite3", filepath.Join(t.TempDir(), "jobs.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.jobs.Close() })
	migrator, err := rivermigrate.New(riversqlite.New(f.jobs), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		t.Fatal(err)
	}
	f.jobTx, err = f.jobs.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.jobTx.Rollback() })
	return f
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

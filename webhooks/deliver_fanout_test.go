package webhooks

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivertest"
	"github.com/riverqueue/river/rivertype"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/store"
)

// TestFanOutJobAttemptsEachDeliveryOnce records an event for four
// subscriptions and works the one job it queues, twice (as after a crash):
// the two receivers that answer 200 get the event once and their deliveries
// are delivered, the one that answers 503 gets it once and its delivery
// waits for automatic attempt 2 (its own job), and the subscription deleted
// before the job ran gets nothing. The second run sends and records nothing.
func TestFanOutJobAttemptsEachDeliveryOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newWorkerFixture(t)
	var mu sync.Mutex
	calls := map[string]int{}
	receiver := func(name string, status int) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			calls[name]++
			mu.Unlock()
			w.WriteHeader(status)
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	subs := map[string]Subscription{}
	for _, r := range []struct {
		name   string
		status int
	}{{"ok-1", 200}, {"ok-2", 200}, {"unavailable", 503}, {"deleted", 200}} {
		created, _, err := f.wh.Create(ctx, f.caller, NewSubscription{URL: receiver(r.name, r.status), Events: []string{EventShipmentPurchased}})
		if err != nil {
			t.Fatal(err)
		}
		subs[r.name] = created.Subscription
	}
	if err := f.st.Tx(ctx, func(tx *store.Tx) error {
		_, err := f.wh.Record(ctx, tx, f.caller.AccountID, string(accounts.Test), EventShipmentPurchased, json.RawMessage(`{"id":"shp_1"}`))
		return err
	}); err != nil {
		t.Fatal(err)
	}

	// One job for the event, naming its four deliveries; none per delivery.
	jobs := queuedJobs(t, f.st, fanOutArgs{}.Kind(), attemptArgs{}.Kind())
	if len(jobs) != 1 || jobs[0].Kind != (fanOutArgs{}).Kind() {
		t.Fatalf("jobs queued by the event: %d, want one %s", len(jobs), fanOutArgs{}.Kind())
	}
	var args fanOutArgs
	if err := json.Unmarshal(jobs[0].EncodedArgs, &args); err != nil {
		t.Fatal(err)
	}
	deliveryOf := map[string]string{} // subscription name → delivery id
	for name, sub := range subs {
		ds, _, err := f.wh.Deliveries(ctx, f.caller, sub.ID, paging.Request{Limit: 10})
		if err != nil || len(ds) != 1 {
			t.Fatalf("deliveries of %s: %v, %v; want one", name, ds, err)
		}
		deliveryOf[name] = ds[0].ID
	}
	want := []string{deliveryOf["ok-1"], deliveryOf["ok-2"], deliveryOf["unavailable"], deliveryOf["deleted"]}
	slices.Sort(want)
	got := slices.Sorted(slices.Values(args.DeliveryIDs))
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("the job's deliveries (-want +got):\n%s", d)
	}

	if err := f.wh.Delete(ctx, f.caller, subs["deleted"].ID); err != nil {
		t.Fatal(err)
	}
	worker := rivertest.NewWorker(t, riversqlite.New(f.jobs), &river.Config{}, river.Worker[fanOutArgs](&fanOutWorker{s: f.wh}))
	for run := 1; run <= 2; run++ {
		res, err := worker.Work(ctx, t, f.jobTx, args, nil)
		if err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		if res.EventKind != river.EventKindJobCompleted {
			t.Fatalf("run %d: job %s, want completed", run, res.EventKind)
		}
	}

	type state struct {
		Calls        int
		Status       DeliveryStatus
		Attempts     int
		NextAttempt  bool
		FirstAutoNum int
	}
	wantStates := map[string]state{
		"ok-1":        {1, StatusDelivered, 1, false, 1},
		"ok-2":        {1, StatusDelivered, 1, false, 1},
		"unavailable": {1, StatusPending, 1, true, 1},
		"deleted":     {0, StatusFailed, 0, false, 0},
	}
	gotStates := map[string]state{}
	// Read from the store: the API no longer shows a deleted subscription's deliveries.
	for name, id := range deliveryOf {
		d, err := f.st.Delivery(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		log, err := f.st.DeliveryAttempts(ctx, []string{id})
		if err != nil {
			t.Fatal(err)
		}
		st := state{Calls: calls[name], Status: DeliveryStatus(d.Status), Attempts: len(log[id]), NextAttempt: d.NextAttemptAt != nil}
		if len(log[id]) > 0 {
			st.FirstAutoNum = deref(log[id][0].AutoAttempt)
		}
		gotStates[name] = st
	}
	if d := cmp.Diff(wantStates, gotStates); d != "" {
		t.Errorf("deliveries after the fan-out job ran twice (-want +got):\n%s", d)
	}

	// The failed delivery's next attempt is its own job, due a minute later.
	var retries []attemptArgs
	for _, j := range queuedJobs(t, f.st, attemptArgs{}.Kind()) {
		var a attemptArgs
		if err := json.Unmarshal(j.EncodedArgs, &a); err != nil {
			t.Fatal(err)
		}
		retries = append(retries, a)
		if due := f.clock.Now().Add(time.Minute); !j.ScheduledAt.Equal(due) {
			t.Errorf("attempt %d scheduled at %s, want %s", a.Attempt, j.ScheduledAt, due)
		}
	}
	if d := cmp.Diff([]attemptArgs{{DeliveryID: deliveryOf["unavailable"], Attempt: 2}}, retries); d != "" {
		t.Errorf("retry jobs (-want +got):\n%s", d)
	}
}

// TestFanOutSendsAtMostConcurrencyAtOnce fans an event out to five
// subscriptions with Concurrency 2, to receivers that hold each request a
// moment: every delivery is made, never more than two at once.
func TestFanOutSendsAtMostConcurrencyAtOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newWorkerFixture(t, DeliveryConfig{Concurrency: 2})
	var mu sync.Mutex
	inFlight, most, calls := 0, 0, 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		inFlight++
		calls++
		most = max(most, inFlight)
		mu.Unlock()
		time.Sleep(30 * time.Millisecond)
		mu.Lock()
		inFlight--
		mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	for i := range 5 {
		if _, _, err := f.wh.Create(ctx, f.caller, NewSubscription{URL: fmt.Sprintf("%s/hooks/%d", srv.URL, i), Events: []string{EventShipmentPurchased}}); err != nil {
			t.Fatal(err)
		}
	}
	ev := f.recordEvent(t, `{"id":"shp_1"}`)
	args := f.fanOutJobs(t, 1)[0]
	if args.EventID != ev.ID || len(args.DeliveryIDs) != 5 {
		t.Fatalf("fan-out job of event %s with %d deliveries, want %s with 5", args.EventID, len(args.DeliveryIDs), ev.ID)
	}
	if _, err := f.fanOutWorker(t).Work(ctx, t, f.jobTx, args, nil); err != nil {
		t.Fatal(err)
	}
	counts, err := f.st.DeliveryCounts(ctx, []string{ev.ID})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if calls != 5 || most > 2 || counts[ev.ID][string(StatusDelivered)] != 5 {
		t.Errorf("%d requests, at most %d at once, deliveries by status %v; want 5, at most 2, 5 delivered", calls, most, counts[ev.ID])
	}
}

// queuedJobs lists the store's jobs of the given kinds (ten at most).
func queuedJobs(t *testing.T, st *store.Store, kinds ...string) []*rivertype.JobRow {
	t.Helper()
	client, err := st.JobClient(&river.Config{})
	if err != nil {
		t.Fatal(err)
	}
	list, err := client.JobList(t.Context(), river.NewJobListParams().Kinds(kinds...).First(10))
	if err != nil {
		t.Fatal(err)
	}
	return list.Jobs
}

// countingTx counts the transactions a service opens.
type countingTx struct {
	Storage
	n atomic.Int32
}

func (c *countingTx) Tx(ctx context.Context, fn func(tx *store.Tx) error) error {
	c.n.Add(1)
	return c.Storage.Tx(ctx, fn)
}

// TestFanOutRecordsAnswersOfOneWindowTogether fans an event out to three
// receivers that answer 40 ms apart and one that answers only when the test
// lets it: the three outcomes arrive within the record window of the first
// and are recorded in one transaction, while the fourth is still waiting for
// its answer (a slow receiver holds back the others' record by the window at
// most); the fourth is recorded in a second transaction once it answers.
func TestFanOutRecordsAnswersOfOneWindowTogether(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newWorkerFixture(t, DeliveryConfig{RecordWindow: time.Second})
	release := make(chan struct{})
	var once sync.Once
	letGo := func() { once.Do(func() { close(release) }) }
	t.Cleanup(letGo)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/slow":
			<-release
		case "/fast/1":
			time.Sleep(40 * time.Millisecond)
		case "/fast/2":
			time.Sleep(80 * time.Millisecond)
		}
	}))
	t.Cleanup(srv.Close)
	subs := map[string]string{} // path → subscription id
	for _, path := range []string{"/fast/0", "/fast/1", "/fast/2", "/slow"} {
		created, _, err := f.wh.Create(ctx, f.caller, NewSubscription{URL: srv.URL + path, Events: []string{EventShipmentPurchased}})
		if err != nil {
			t.Fatal(err)
		}
		subs[path] = created.ID
	}
	f.recordEvent(t, `{"id":"shp_1"}`)
	args := f.fanOutJobs(t, 1)[0]
	statusOf := func(path string) DeliveryStatus {
		t.Helper()
		ds, _, err := f.wh.Deliveries(ctx, f.caller, subs[path], paging.Request{Limit: 10})
		if err != nil || len(ds) != 1 {
			t.Fatalf("deliveries of %s: %v, %v; want one", path, ds, err)
		}
		return ds[0].Status
	}

	counted := &countingTx{Storage: f.wh.store}
	f.wh.store = counted
	worker := f.fanOutWorker(t)
	worked := make(chan error, 1)
	go func() {
		_, err := worker.Work(ctx, t, f.jobTx, args, nil)
		worked <- err
	}()
	for deadline := time.Now().Add(10 * time.Second); statusOf("/fast/2") != StatusDelivered; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the fast receivers' deliveries were not recorded while the slow receiver held its answer")
		}
	}
	got := map[string]DeliveryStatus{}
	for path := range subs {
		got[path] = statusOf(path)
	}
	want := map[string]DeliveryStatus{"/fast/0": StatusDelivered, "/fast/1": StatusDelivered, "/fast/2": StatusDelivered, "/slow": StatusPending}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("deliveries while the slow receiver holds its answer (-want +got):\n%s", d)
	}
	if n := counted.n.Load(); n != 1 {
		t.Errorf("transactions recording the three fast answers: %d, want 1", n)
	}
	letGo()
	if err := <-worked; err != nil {
		t.Fatal(err)
	}
	if s := statusOf("/slow"); s != StatusDelivered {
		t.Errorf("slow receiver's delivery: %s, want %s", s, StatusDelivered)
	}
	if n := counted.n.Load(); n != 2 {
		t.Errorf("transactions of the fan-out: %d, want 2 (the fast answers, then the slow one)", n)
	}
}

// gatedTx holds the first transaction a service opens until gate closes.
type gatedTx struct {
	Storage
	n    atomic.Int32
	gate chan struct{}
}

func (g *gatedTx) Tx(ctx context.Context, fn func(tx *store.Tx) error) error {
	if g.n.Add(1) == 1 {
		<-g.gate
	}
	return g.Storage.Tx(ctx, fn)
}

// TestFanOutJobsShareRecordTransactions works three events' fan-out jobs at
// once, each to two receivers, while the first job's record transaction is
// held: the other two jobs' records wait and are then made in one
// transaction, and every delivery is delivered with one attempt.
func TestFanOutJobsShareRecordTransactions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// A window longer than any test keeps each job's two outcomes one
	// record: it closes as soon as both are in, and the default 5 ms was
	// short enough for a slow run (-race in CI) to split a job's outcomes
	// into two records and make three transactions of what are two.
	f := newWorkerFixture(t, DeliveryConfig{RecordWindow: time.Minute})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	t.Cleanup(srv.Close)
	for i := range 2 {
		if _, _, err := f.wh.Create(ctx, f.caller, NewSubscription{URL: fmt.Sprintf("%s/hooks/%d", srv.URL, i), Events: []string{EventShipmentPurchased}}); err != nil {
			t.Fatal(err)
		}
	}
	var events []string
	for i := range 3 {
		events = append(events, f.recordEvent(t, fmt.Sprintf(`{"id":"shp_%d"}`, i)).ID)
	}
	jobs := f.fanOutJobs(t, 3)
	gated := &gatedTx{Storage: f.wh.store, gate: make(chan struct{})}
	f.wh.store = gated
	worker := f.fanOutWorker(t)
	worked := make(chan error, len(jobs))
	work := func(args fanOutArgs) {
		_, err := worker.Work(ctx, t, f.jobTx, args, nil)
		worked <- err
	}
	go work(jobs[0])
	waitFor(t, "the first job's record", func() bool { return gated.n.Load() == 1 })
	go work(jobs[1])
	go work(jobs[2])
	waitFor(t, "the other jobs' records to queue", func() bool { return queued(&f.wh.recorder) == 2 })
	close(gated.gate)
	for range jobs {
		if err := <-worked; err != nil {
			t.Fatal(err)
		}
	}
	if n := gated.n.Load(); n != 2 {
		t.Errorf("record transactions: %d, want 2 (the first job's, then the other two's together)", n)
	}
	counts, err := f.st.DeliveryCounts(ctx, events)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range events {
		if got := counts[id][string(StatusDelivered)]; got != 2 {
			t.Errorf("event %s: %d deliveries delivered (%v), want 2", id, got, counts[id])
		}
	}
}

// recordEvent records a shipment.purchased event of data in a transaction
// of its own, as a purchase would.
func (f workerFixture) recordEvent(t *testing.T, data string) store.Event {
	t.Helper()
	var ev store.Event
	if err := f.st.Tx(t.Context(), func(tx *store.Tx) error {
		var err error
		ev, err = f.wh.Record(t.Context(), tx, f.caller.AccountID, string(accounts.Test), EventShipmentPurchased, json.RawMessage(data))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return ev
}

// fanOutJobs are the arguments of the queued fan-out jobs, n of them.
func (f workerFixture) fanOutJobs(t *testing.T, n int) []fanOutArgs {
	t.Helper()
	jobs := queuedJobs(t, f.st, fanOutArgs{}.Kind())
	if len(jobs) != n {
		t.Fatalf("fan-out jobs: %d, want %d", len(jobs), n)
	}
	args := make([]fanOutArgs, n)
	for i, j := range jobs {
		if err := json.Unmarshal(j.EncodedArgs, &args[i]); err != nil {
			t.Fatal(err)
		}
	}
	return args
}

// fanOutWorker works fan-out jobs by hand with f's service.
func (f workerFixture) fanOutWorker(t *testing.T) *rivertest.Worker[fanOutArgs, *sql.Tx] {
	return rivertest.NewWorker(t, riversqlite.New(f.jobs), &river.Config{}, river.Worker[fanOutArgs](&fanOutWorker{s: f.wh}))
}

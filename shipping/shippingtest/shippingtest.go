// Package shippingtest builds the shipments domain over a fresh database for
// the tests of the feature packages that stand on it (shipping/manifests,
// shipping/pickups, shipping/batches, shipping/trackers,
// shipping/carrieraccounts): the services without HTTP, a caller of one
// account with every scope, an injected clock, and the job workers running.
package shippingtest

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/connectors"
	"github.com/shipd-dev/shipd/carriers/sandbox"
	"github.com/shipd-dev/shipd/idempotency"
	"github.com/shipd-dev/shipd/internal/fakeclock"
	"github.com/shipd-dev/shipd/seal"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/store"
	"github.com/shipd-dev/shipd/store/storetest"
	"github.com/shipd-dev/shipd/webhooks"
)

// Services are the domain services over one fresh database.
type Services struct {
	Store       *store.Store
	Accounts    *accounts.Service
	Webhooks    *webhooks.Service
	Idempotency *idempotency.Service
	Shipping    *shipping.Service
	// Caller is a caller of one account, with a payment method and every scope.
	Caller accounts.Caller
	// Clock is every service's time of records; job schedules keep the
	// machine's, so that the workers run them.
	Clock *fakeclock.Clock
	// Jobs lists and runs the jobs (Start).
	Jobs *river.Client[*sql.Tx]
}

// Epoch is where Clock starts: far from the machine's time, so a record
// stamped with time.Now instead of the service's clock shows.
var Epoch = time.Date(2031, time.March, 4, 10, 0, 0, 0, time.UTC)

// New builds the services for a caller in mode. cfg is the shipping
// service's configuration; what it leaves out gets the sandbox carriers
// (on Clock), label documents in memory and shipments as JSON for event data.
func New(t *testing.T, mode accounts.Mode, cfg shipping.Config) *Services {
	t.Helper()
	ctx := context.Background()
	clock := fakeclock.New(Epoch)
	st := storetest.Open(t)
	cipher, err := seal.NewCipher(bytes.Repeat([]byte{5}, 32))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Now == nil {
		cfg.Now = clock.Now
	}
	if cfg.Documents == nil {
		docs, err := store.OpenBlobs(ctx, "mem://")
		if err != nil {
			t.Fatal(err)
		}
		cfg.Documents = docs
	}
	if cfg.Carriers == nil {
		cfg.Carriers = carriers.NewRegistry(sandbox.New(sandbox.Config{Now: clock.Now}), nil)
	}
	if cfg.Catalog == nil {
		cfg.Catalog = connectors.Catalog()
	}
	if cfg.EventData == nil {
		cfg.EventData = func(s shipping.Shipment) (json.RawMessage, error) { return json.Marshal(s) }
	}
	if cfg.Cipher == nil {
		cfg.Cipher = cipher
	}
	if cfg.PurchaseRetryBase == 0 {
		cfg.PurchaseRetryBase = 10 * time.Millisecond
	}
	acc := accounts.New(st, accounts.Config{Now: cfg.Now})
	idem := idempotency.New(st, cipher, idempotency.Config{Now: cfg.Now})
	wh := webhooks.New(st, acc, idem, cipher, webhooks.Config{Now: cfg.Now, JobNow: cfg.JobNow})
	svc, err := shipping.New(st, acc, wh, idem, cfg)
	if err != nil {
		t.Fatal(err)
	}
	a, err := acc.CreateAccount(ctx, "Acme", true)
	if err != nil {
		t.Fatal(err)
	}
	_, secret, err := acc.CreateToken(ctx, accounts.NewToken{AccountID: a.ID, Mode: mode, Scopes: accounts.Scopes()})
	if err != nil {
		t.Fatal(err)
	}
	c, err := acc.Authenticate(ctx, secret, "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	return &Services{Store: st, Accounts: acc, Webhooks: wh, Idempotency: idem, Shipping: svc, Caller: c, Clock: clock}
}

// Start runs the job workers until the test ends: the webhooks' and those
// register adds: shipping/labeljobs' (which buy, void and track labels;
// this package cannot import it, whose own tests use this one) and a
// feature package's.
func (s *Services) Start(t *testing.T, register ...func(*river.Workers)) {
	t.Helper()
	workers := river.NewWorkers()
	s.Webhooks.RegisterWorkers(workers)
	for _, r := range register {
		r(workers)
	}
	purchases, n := s.Shipping.PurchaseQueueConfig()
	deliveries, _ := s.Webhooks.Queue()
	jobs, err := s.Store.JobClient(&river.Config{Workers: workers, FetchCooldown: 10 * time.Millisecond, FetchPollInterval: 50 * time.Millisecond,
		Queues: map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 4}, purchases: {MaxWorkers: max(n, 1)},
			deliveries: {MaxWorkers: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := jobs.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = jobs.Stop(ctx)
	})
	s.Jobs = jobs
}

// Eventually polls cond until it holds, failing the test after 10 s.
func Eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after 10 s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Label buys a sandbox USPS Priority label from San Francisco to recipient
// and waits until the purchase job bought it (Start first).
func (s *Services) Label(t *testing.T, recipient string) shipping.Shipment {
	t.Helper()
	ctx := context.Background()
	in := shipping.NewLabel{Input: shipping.Input{
		From: shipping.Address{Name: ptr("Shop"), Phone: ptr("+1 415 555 0100"), Street1: "1 Market St", City: "San Francisco",
			State: ptr("CA"), Zip: "94105", Country: "US"},
		To: shipping.Address{Name: &recipient, Phone: ptr("+1 212 555 0100"), Street1: "350 Fifth Avenue", City: "New York",
			State: ptr("NY"), Zip: "10118", Country: "US"},
		Parcel: shipping.Parcel{WeightOz: ptr(32.0)},
	}, Selection: shipping.Selection{Carrier: ptr("USPS"), Service: ptr("Priority")}}
	sh, _, err := s.Shipping.Create(ctx, s.Caller, in)
	if err != nil {
		t.Fatal(err)
	}
	Eventually(t, "label "+sh.ID+" purchased", func() bool {
		sh, err = s.Shipping.Get(ctx, s.Caller, sh.ID)
		return err == nil && sh.Status == shipping.Purchased
	})
	return sh
}

// Job is the last job of kind whose args name id under key, decoded for its
// worker, to run by hand (a job run twice after a crash).
func Job[T river.JobArgs](t *testing.T, jobs *river.Client[*sql.Tx], kind, key, id string) *river.Job[T] {
	t.Helper()
	res, err := jobs.JobList(context.Background(), river.NewJobListParams().Kinds(kind).First(100))
	if err != nil {
		t.Fatal(err)
	}
	var found *rivertype.JobRow
	for _, row := range res.Jobs {
		var m map[string]any
		if err := json.Unmarshal(row.EncodedArgs, &m); err != nil {
			t.Fatal(err)
		}
		if m[key] == id {
			found = row
		}
	}
	if found == nil {
		t.Fatalf("no %s job for %s", kind, id)
	}
	var args T
	if err := json.Unmarshal(found.EncodedArgs, &args); err != nil {
		t.Fatal(err)
	}
	return &river.Job[T]{JobRow: found, Args: args}
}

func ptr[T any](v T) *T { return &v }

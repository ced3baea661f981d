package manifests

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/shipping/labeljobs"
	"github.com/shipd-dev/shipd/shipping/shippingtest"
	"github.com/shipd-dev/shipd/webhooks"
)

// setup is the shipments domain in test mode with its workers and the
// manifests service's running.
func setup(t *testing.T) (*shippingtest.Services, *Service) {
	t.Helper()
	s := shippingtest.New(t, accounts.Test, shipping.Config{})
	m := New(s.Store, s.Shipping, s.Accounts, s.Webhooks, s.Idempotency, Config{})
	s.Start(t, labeljobs.New(s.Store, s.Shipping).RegisterWorkers, m.RegisterWorkers)
	return s, m
}

func waitFinished(t *testing.T, s *shippingtest.Services, svc *Service, id string) Manifest {
	t.Helper()
	var m Manifest
	shippingtest.Eventually(t, "manifest "+id+" finished", func() bool {
		var err error
		m, err = svc.GetManifest(context.Background(), s.Caller, id)
		return err == nil && !m.Status.Creating()
	})
	return m
}

// The manifest job run again after it committed (a crash before River
// recorded its completion) changes nothing and emits nothing more.
func TestManifestWorkerActsOnceWhenRunTwice(t *testing.T) {
	t.Parallel()
	s, svc := setup(t)
	ctx := context.Background()
	s.Label(t, "Ada Lovelace")
	m, _, err := svc.CreateManifest(ctx, s.Caller, NewManifest{Carrier: "USPS"})
	if err != nil {
		t.Fatal(err)
	}
	done := waitFinished(t, s, svc, m.ID)
	if done.Status != ManifestCreated || !done.HasForm || done.CompletedAt == nil || !done.CompletedAt.Equal(s.Clock.Now()) {
		t.Fatalf("after the job: %+v", done)
	}
	s.Clock.Advance(time.Minute)
	w := &manifestWorker{s: svc}
	if err := w.Work(ctx, shippingtest.Job[manifestArgs](t, s.Jobs, manifestArgs{}.Kind(), "manifest_id", m.ID)); err != nil {
		t.Fatal(err)
	}
	again, err := svc.GetManifest(ctx, s.Caller, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(done, again); diff != "" {
		t.Errorf("the manifest after its job ran twice (-once +twice):\n%s", diff)
	}
	events, _, err := s.Store.ListEvents(ctx, s.Caller.AccountID, string(s.Caller.Mode), webhooks.EventManifestCreated, paging.Request{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 1 {
		t.Errorf("%d manifest.created events after the job ran twice, want 1", len(events))
	}
}

// A label goes on one manifest: the next finds nothing waiting, and a
// manifest that lists it is refused with the manifest it is on.
func TestLabelOnOneManifest(t *testing.T) {
	t.Parallel()
	s, svc := setup(t)
	ctx := context.Background()
	sh := s.Label(t, "Grace Hopper")
	first, _, err := svc.CreateManifest(ctx, s.Caller, NewManifest{Carrier: "USPS"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{sh.ID}, first.ShipmentIDs); diff != "" {
		t.Errorf("the first manifest's labels (-want +got):\n%s", diff)
	}
	if _, _, err := svc.CreateManifest(ctx, s.Caller, NewManifest{Carrier: "USPS"}); !errors.Is(err, ErrNothingToManifest) {
		t.Errorf("a second manifest of nothing waiting: %v, want ErrNothingToManifest", err)
	}
	_, _, err = svc.CreateManifest(ctx, s.Caller, NewManifest{Carrier: "USPS", ShipmentIDs: []string{sh.ID}})
	var already *AlreadyManifestedError
	if !errors.As(err, &already) || already.ShipmentID != sh.ID {
		t.Errorf("a manifest listing a manifested label: %v, want AlreadyManifestedError of %s", err, sh.ID)
	}
	// Racing creates of the same labels put them on one manifest at most.
	more := []string{s.Label(t, "Alan Turing").ID, s.Label(t, "Edsger Dijkstra").ID}
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			_, _, err := svc.CreateManifest(ctx, s.Caller, NewManifest{Carrier: "USPS", ShipmentIDs: more})
			errs <- err
		}()
	}
	made := 0
	for range 4 {
		if err := <-errs; err == nil {
			made++
		} else if !errors.As(err, &already) && !errors.Is(err, ErrNothingToManifest) {
			t.Errorf("a racing create: %v", err)
		}
	}
	if made != 1 {
		t.Errorf("%d of 4 racing manifests of the same labels were made, want 1", made)
	}
}

// A carrier without a manifest step (UPS: the driver scans each package)
// and a name that is no carrier are refused before anything is written.
func TestManifestRefusedCarriers(t *testing.T) {
	t.Parallel()
	s, svc := setup(t)
	ctx := context.Background()
	if _, _, err := svc.CreateManifest(ctx, s.Caller, NewManifest{Carrier: "UPS"}); !errors.Is(err, ErrManifestNotSupported) {
		t.Errorf("UPS: %v, want ErrManifestNotSupported", err)
	}
	var input *shipping.InputError
	if _, _, err := svc.CreateManifest(ctx, s.Caller, NewManifest{Carrier: "nope"}); !errors.As(err, &input) {
		t.Errorf("nope: %v, want an InputError", err)
	}
	page, _, err := svc.ListManifests(ctx, s.Caller, paging.Request{Limit: 5})
	if err != nil || len(page) != 0 {
		t.Errorf("manifests after refusals: %v, %v", page, err)
	}
}

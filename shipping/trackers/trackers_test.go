package trackers_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/shipping/labeljobs"
	"github.com/shipd-dev/shipd/shipping/shippingtest"
	"github.com/shipd-dev/shipd/shipping/trackers"
)

func setup(t *testing.T) (*shippingtest.Services, *trackers.Service) {
	t.Helper()
	s := shippingtest.New(t, accounts.Test, shipping.Config{})
	s.Start(t, labeljobs.New(s.Store, s.Shipping).RegisterWorkers)
	return s, trackers.New(s.Store, s.Shipping, labeljobs.New(s.Store, s.Shipping), s.Accounts, s.Idempotency)
}

// uspsNumber has USPS's form (Intelligent Mail package barcode), which names
// the carrier on its own.
const uspsNumber = "9400 1118 9922 3344 5566 77"

// One tracker per number and account, however many create it at once: the
// first is created (with the carrier its number's form names), the others
// find it.
func TestTrackerOncePerNumber(t *testing.T) {
	t.Parallel()
	s, svc := setup(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	results := make([]trackers.CreatedTracker, 4)
	errs := make([]error, 4)
	for i := range results {
		wg.Go(func() {
			results[i], _, errs[i] = svc.CreateTracker(ctx, s.Caller, trackers.NewTracker{TrackingNumber: uspsNumber})
		})
	}
	wg.Wait()
	created, ids := 0, map[string]bool{}
	for i, r := range results {
		if errs[i] != nil {
			t.Fatalf("create %d: %v", i, errs[i])
		}
		if r.Created {
			created++
		}
		ids[r.Tracker.ID] = true
	}
	if created != 1 || len(ids) != 1 {
		t.Fatalf("%d created, %d trackers; want one of each", created, len(ids))
	}
	page, _, err := svc.Trackers(ctx, s.Caller, "", paging.Request{Limit: 10})
	if err != nil || len(page) != 1 || page[0].Carrier != "USPS" {
		t.Fatalf("list: %+v, %v; want the one USPS tracker", page, err)
	}
	if err := svc.DeleteTracker(ctx, s.Caller, page[0].ID); err != nil {
		t.Fatal(err)
	}
	if page, _, err = svc.Trackers(ctx, s.Caller, "", paging.Request{Limit: 10}); err != nil || len(page) != 0 {
		t.Errorf("after delete: %+v, %v", page, err)
	}
}

// A number of no carrier's form needs its carrier; the tracker of a label
// shipd sold stops with the label and is not deleted.
func TestTrackerRules(t *testing.T) {
	t.Parallel()
	s, svc := setup(t)
	ctx := context.Background()
	var input *shipping.InputError
	if _, _, err := svc.CreateTracker(ctx, s.Caller, trackers.NewTracker{TrackingNumber: "ABC"}); !errors.As(err, &input) {
		t.Errorf("a number of no form without a carrier: %v, want an InputError", err)
	}
	label := s.Label(t, "Ada Lovelace")
	if label.TrackerID == nil {
		t.Fatal("the label has no tracker")
	}
	if err := svc.DeleteTracker(ctx, s.Caller, *label.TrackerID); !errors.Is(err, trackers.ErrTrackerOfShipment) {
		t.Errorf("deleting a label's tracker: %v, want ErrTrackerOfShipment", err)
	}
}

package pickups

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/shipping/labeljobs"
	"github.com/shipd-dev/shipd/shipping/shippingtest"
)

func setup(t *testing.T) (*shippingtest.Services, *Service) {
	t.Helper()
	s := shippingtest.New(t, accounts.Test, shipping.Config{})
	s.Start(t, labeljobs.New(s.Store, s.Shipping).RegisterWorkers)
	return s, New(s.Store, s.Shipping, s.Accounts, s.Idempotency)
}

var pacific = time.FixedZone("PST", -8*60*60)

// request is a pickup of ids tomorrow (a Wednesday after shippingtest's
// Epoch), 9 to 17 in San Francisco.
func request(ids ...string) NewPickup {
	day := shippingtest.Epoch.In(pacific).AddDate(0, 0, 1)
	at := func(h int) time.Time { return time.Date(day.Year(), day.Month(), day.Day(), h, 0, 0, 0, pacific) }
	name, phone, state := "Shop", "+1 415 555 0100", "CA"
	return NewPickup{Carrier: "USPS", ReadyAt: at(9), CloseAt: at(17), ShipmentIDs: ids,
		Address: shipping.Address{Name: &name, Phone: &phone, Street1: "1 Market St", City: "San Francisco", State: &state, Zip: "94105", Country: "US"}}
}

// A pickup of a purchased label is booked with the carrier (scheduled,
// with its confirmation), cancelled once, and a second cancel says so.
func TestPickupBookedThenCancelled(t *testing.T) {
	t.Parallel()
	s, svc := setup(t)
	ctx := context.Background()
	label := s.Label(t, "Ada Lovelace")
	p, replayed, err := svc.CreatePickup(ctx, s.Caller, request(label.ID))
	if err != nil || replayed {
		t.Fatalf("CreatePickup: %v (replayed %v)", err, replayed)
	}
	if p.Status != PickupScheduled || p.ConfirmationNumber == nil || !p.CreatedAt.Equal(s.Clock.Now()) {
		t.Fatalf("booked: %+v", p)
	}
	s.Clock.Advance(time.Hour)
	cancelled, err := svc.CancelPickup(ctx, s.Caller, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if cancelled.Status != PickupCancelled || cancelled.CancelledAt == nil || !cancelled.CancelledAt.Equal(s.Clock.Now()) {
		t.Errorf("cancelled: %+v", cancelled)
	}
	if _, err := svc.CancelPickup(ctx, s.Caller, p.ID); !errors.Is(err, ErrPickupCancelled) {
		t.Errorf("a second cancel: %v, want ErrPickupCancelled", err)
	}
	got, err := svc.GetPickup(ctx, s.Caller, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(cancelled, got); d != "" {
		t.Errorf("GetPickup after the cancel (-cancelled +got):\n%s", d)
	}
}

// The rules of a request that the contract's schema cannot say, each at its path.
func TestPickupRules(t *testing.T) {
	t.Parallel()
	s, svc := setup(t)
	label := s.Label(t, "Grace Hopper")
	sunday := request(label.ID)
	sunday.ReadyAt, sunday.CloseAt = sunday.ReadyAt.AddDate(0, 0, 4), sunday.CloseAt.AddDate(0, 0, 4)
	backwards := request(label.ID)
	backwards.CloseAt = backwards.ReadyAt.Add(-time.Hour)
	abroad := request(label.ID)
	abroad.Address.Country = "FR"
	noPhone := request(label.ID)
	noPhone.Address.Phone = nil
	tooFew := request(label.ID)
	tooFew.PackageCount = new(int)
	far := request(label.ID)
	far.ReadyAt, far.CloseAt = far.ReadyAt.AddDate(0, 0, PickupMaxDaysAhead+1), far.CloseAt.AddDate(0, 0, PickupMaxDaysAhead+1)
	for name, tc := range map[string]struct {
		in   NewPickup
		path string
	}{
		"Sunday":              {sunday, "readyAt"},
		"closes before ready": {backwards, "closeAt"},
		"outside the US":      {abroad, "address.country"},
		"no phone":            {noPhone, "address.phone"},
		"fewer packages":      {tooFew, "packageCount"},
		"more than two weeks": {far, "readyAt"},
		"a label of no one's": {request("shp_nope"), "shipmentIds.0"},
	} {
		_, _, err := svc.CreatePickup(context.Background(), s.Caller, tc.in)
		var input *shipping.InputError
		if !errors.As(err, &input) {
			t.Errorf("%s: %v, want an InputError", name, err)
			continue
		}
		paths := make([]string, len(input.Issues))
		for i, is := range input.Issues {
			paths[i] = is.Path
		}
		if !slices.Contains(paths, tc.path) {
			t.Errorf("%s: issues at %v, want one at %s", name, paths, tc.path)
		}
	}
}

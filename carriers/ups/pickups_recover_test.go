package ups

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/ups/upsfake"
)

// FindPickup finds a pickup by the reference it was created with, from
// UPS's pending pickups of the shipper account: the one booked, not
// another's, not a cancelled one; and says it cannot tell for a pickup
// after tomorrow, which UPS does not list.
func TestFindPickup(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, fake, _ := testCarrier(t)
	tomorrow := time.Date(2026, 3, 11, 9, 0, 0, 0, time.FixedZone("EST", -5*3600)) // testNow is the 10th
	req := carriers.PickupRequest{Reference: "pck_0123456789abcdef01234567", Address: domesticShipment().From,
		ReadyAt: tomorrow, CloseAt: tomorrow.Add(8 * time.Hour), PackageCount: 1}

	if _, found, err := c.FindPickup(ctx, req); err != nil || found {
		t.Fatalf("before any pickup: found %v, %v", found, err)
	}
	other := req
	other.Reference = "pck_other"
	if _, err := c.SchedulePickup(ctx, other); err != nil {
		t.Fatal(err)
	}
	conf, err := c.SchedulePickup(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	got, found, err := c.FindPickup(ctx, req)
	if err != nil || !found {
		t.Fatalf("FindPickup: found %v, %v", found, err)
	}
	if diff := cmp.Diff(conf, got); diff != "" {
		t.Errorf("the pickup found (-booked +found):\n%s", diff)
	}
	if h := fake.LastHeader(upsfake.OpPickupPending).Get("AccountNumber"); h != upsfake.AccountNumber {
		t.Errorf("AccountNumber header %q, want %s", h, upsfake.AccountNumber)
	}

	if err := c.CancelPickup(ctx, carriers.PickupCancelRequest{Reference: req.Reference, ConfirmationNumber: conf.ConfirmationNumber}); err != nil {
		t.Fatal(err)
	}
	if _, found, err := c.FindPickup(ctx, req); err != nil || found {
		t.Errorf("after the cancel: found %v, %v; a cancelled pickup is not booked", found, err)
	}

	later := req
	later.ReadyAt, later.CloseAt = tomorrow.AddDate(0, 0, 1), tomorrow.AddDate(0, 0, 1).Add(8*time.Hour)
	if _, _, err := c.FindPickup(ctx, later); !errors.Is(err, carriers.ErrNoPickupLookup) {
		t.Errorf("a pickup the day after tomorrow: %v, want ErrNoPickupLookup", err)
	}

	fake.Fail(upsfake.OpPickupPending, upsfake.Failure{Status: 503, Body: `{"response":{"errors":[{"code":"190001","message":"down"}]}}`})
	if _, _, err := c.FindPickup(ctx, req); !errors.Is(err, carriers.ErrUnavailable) {
		t.Errorf("UPS down: %v, want ErrUnavailable", err)
	}
}

// A pickup outside the United States is booked on the account of the
// country it is in: UPS refuses an account country that is not the
// account's (the fake's accounts are of the country they pick up in).
func TestPickupAbroadNamesItsCountry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, fake, _ := testCarrier(t)
	ready := time.Date(2026, 3, 11, 9, 0, 0, 0, time.FixedZone("CET", 3600))
	req := carriers.PickupRequest{Reference: "pck_0123456789abcdef0123abcd", ReadyAt: ready, CloseAt: ready.Add(8 * time.Hour), PackageCount: 1,
		Address: carriers.Address{Name: "Erika Mustermann", Company: "Muster GmbH", Street1: "Friedrichstr. 10", City: "Berlin",
			Zip: "10117", Country: "de", Phone: "+49 30 1234567"}}
	conf, err := c.SchedulePickup(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	body, _, ok := fake.Pickup(conf.ConfirmationNumber)
	if !ok {
		t.Fatalf("the fake has no pickup %s", conf.ConfirmationNumber)
	}
	var sent struct {
		PickupCreationRequest struct {
			Shipper struct {
				Account struct{ AccountCountryCode string }
			}
		}
	}
	if err := json.Unmarshal(body, &sent); err != nil {
		t.Fatal(err)
	}
	if got := sent.PickupCreationRequest.Shipper.Account.AccountCountryCode; got != "DE" {
		t.Errorf("AccountCountryCode %q, want DE", got)
	}
}

package ups

import (
	"context"
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

package dhlexpress

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/dhlexpress/dhlexpressfake"
)

// pickupAt is a pickup of two packages (4 kg) tomorrow morning, in Berlin's
// offset.
func pickupAt(a carriers.Address) carriers.PickupRequest {
	cet := time.FixedZone("CET", 3600)
	ready := time.Date(2026, 3, 4, 9, 0, 0, 0, cet)
	return carriers.PickupRequest{Reference: "pkp_0123456789abcdef01234567", Address: a, ReadyAt: ready, CloseAt: ready.Add(8 * time.Hour),
		PackageCount: 2, TotalWeightOz: 4000 / carriers.GramsPerOunce, Instructions: "Ring at the loading dock"}
}

// A pickup is booked in the address's own offset, its packages' weight
// shared between them, and cancelled by its dispatch confirmation number;
// cancelling it again is DHL's refusal.
func TestPickupScheduleAndCancel(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, fake, _ := newTestCarrier(t)
	req := pickupAt(berlin)
	conf, err := c.SchedulePickup(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	body, cancelled, ok := fake.Pickup(conf.ConfirmationNumber)
	if !ok || cancelled {
		t.Fatalf("pickup %s: known %v, cancelled %v", conf.ConfirmationNumber, ok, cancelled)
	}
	var sent struct {
		PlannedPickupDateAndTime string
		CloseTime                string
		ShipmentDetails          []struct {
			Packages []struct{ Weight json.Number }
		}
	}
	if err := json.Unmarshal(body, &sent); err != nil {
		t.Fatal(err)
	}
	if sent.PlannedPickupDateAndTime != "2026-03-04T09:00:00 GMT+01:00" || sent.CloseTime != "17:00" ||
		len(sent.ShipmentDetails) != 1 || len(sent.ShipmentDetails[0].Packages) != 2 || sent.ShipmentDetails[0].Packages[0].Weight != "2.000" {
		t.Errorf("pickup sent %s", body)
	}
	cancel := carriers.PickupCancelRequest{Reference: req.Reference, ConfirmationNumber: conf.ConfirmationNumber, Address: req.Address, ReadyAt: req.ReadyAt}
	if err := c.CancelPickup(ctx, cancel); err != nil {
		t.Fatal(err)
	}
	if _, cancelled, _ := fake.Pickup(conf.ConfirmationNumber); !cancelled {
		t.Error("the pickup is not cancelled")
	}
	if err := c.CancelPickup(ctx, cancel); !errors.Is(err, carriers.ErrRejected) {
		t.Errorf("second cancel: %v, want ErrRejected", err)
	}
	if err := c.CancelPickup(ctx, carriers.PickupCancelRequest{ConfirmationNumber: "PRG000000000000"}); !errors.Is(err, carriers.ErrRejected) {
		t.Errorf("cancel of a pickup never booked: %v, want ErrRejected", err)
	}
	if n := fake.Requests(dhlexpressfake.OpCancelPickup); n != 3 {
		t.Errorf("%d cancel calls, want 3", n)
	}
}

// What DHL would refuse is refused before any call.
func TestPickupRefusedBeforeCalling(t *testing.T) {
	t.Parallel()
	c, fake, _ := newTestCarrier(t)
	noPhone := pickupAt(berlin)
	noPhone.Address.Phone = ""
	noTime := pickupAt(berlin)
	noTime.ReadyAt = time.Time{}
	for name, req := range map[string]carriers.PickupRequest{"no phone": noPhone, "no ready time": noTime} {
		if _, err := c.SchedulePickup(context.Background(), req); !errors.Is(err, carriers.ErrRejected) {
			t.Errorf("%s: %v, want ErrRejected", name, err)
		}
	}
	if n := fake.Requests(dhlexpressfake.OpPickup); n != 0 {
		t.Errorf("%d pickup calls, want none", n)
	}
}

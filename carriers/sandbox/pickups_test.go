package sandbox_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/sandbox"
)

// monday9 is a Monday morning in New York.
var monday9 = time.Date(2026, 11, 30, 9, 0, 0, 0, time.FixedZone("EST", -5*3600))

func pickupRequest(instructions string) carriers.PickupRequest {
	return carriers.PickupRequest{Reference: "pck_sandbox", Address: domestic().From, ReadyAt: monday9,
		CloseAt: monday9.Add(8 * time.Hour), PackageCount: 2, Instructions: instructions}
}

// checkPickup schedules a pickup with the instructions typed and cancels
// it, each expected to fail with its error (nil: succeed).
func checkPickup(t *testing.T, c carriers.Carrier, typed string, scheduleErr, cancelErr error) {
	t.Helper()
	ctx := context.Background()
	ps := c
	pc, err := ps.SchedulePickup(ctx, pickupRequest(typed))
	if scheduleErr != nil {
		if !errors.Is(err, scheduleErr) {
			t.Errorf("SchedulePickup: %v, want %v", err, scheduleErr)
		}
		return
	}
	if err != nil || pc.ConfirmationNumber == "" {
		t.Fatalf("SchedulePickup: %+v, %v", pc, err)
	}
	err = ps.CancelPickup(ctx, carriers.PickupCancelRequest{Reference: "pck_sandbox", ConfirmationNumber: pc.ConfirmationNumber, Instructions: typed})
	if !errors.Is(err, cancelErr) || (cancelErr == nil) != (err == nil) {
		t.Errorf("CancelPickup: %v, want %v", err, cancelErr)
	}
}

func TestSandboxPickups(t *testing.T) {
	t.Parallel()
	for _, c := range usCarriers(sandbox.New(sandbox.Config{})) {
		ps := c
		ctx := context.Background()
		first, err := ps.SchedulePickup(ctx, pickupRequest("at the side door"))
		if err != nil {
			t.Fatalf("%s: %v", c.Name(), err)
		}
		again, err := ps.SchedulePickup(ctx, pickupRequest(""))
		if err != nil || again != first {
			t.Errorf("%s: a retried schedule gave %+v, %v; want %+v", c.Name(), again, err, first)
		}
		checkPickup(t, c, "", nil, nil)

		sunday := pickupRequest("")
		sunday.ReadyAt, sunday.CloseAt = monday9.AddDate(0, 0, -1), monday9.AddDate(0, 0, -1).Add(time.Hour)
		if _, err := ps.SchedulePickup(ctx, sunday); !errors.Is(err, carriers.ErrRejected) || !strings.Contains(err.Error(), "Sunday") {
			t.Errorf("%s: a Sunday: %v, want a refusal naming Sunday", c.Name(), err)
		}
		backwards := pickupRequest("")
		backwards.CloseAt = monday9.Add(-time.Hour)
		if _, err := ps.SchedulePickup(ctx, backwards); !errors.Is(err, carriers.ErrRejected) {
			t.Errorf("%s: closeAt before readyAt: %v, want a refusal", c.Name(), err)
		}
	}
}

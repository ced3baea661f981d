package sandbox

import (
	"context"
	"fmt"
	"time"

	"github.com/shipd-dev/shipd/carriers"
)

// FindPickup is the sandbox UPS's pickup lookup, as UPS's Pickup Pending
// Status is the live one: the sandbox books every pickup it confirms, with
// a number derived from the reference, so the pickup found is the one a
// schedule confirms (none for one it refuses or fails); like UPS, it lists
// the pickups of today and tomorrow only. The sandbox USPS and FedEx, like
// theirs, cannot look pickups up: a lost schedule is not booked again in
// test mode either.
func (c *carrier) FindPickup(ctx context.Context, req carriers.PickupRequest) (carriers.PickupConfirmation, bool, error) {
	if !c.Capabilities().Has(carriers.CapFindPickup) {
		return carriers.Unsupported{}.FindPickup(ctx, req)
	}
	day := req.ReadyAt.Format(time.DateOnly)
	if tomorrow := c.cfg.Now().In(req.ReadyAt.Location()).AddDate(0, 0, 1).Format(time.DateOnly); day > tomorrow {
		return carriers.PickupConfirmation{}, false, fmt.Errorf("sandbox: the pickup is on %s, and %s lists the pending pickups of today and tomorrow only: %w",
			day, c.name, carriers.ErrNoPickupLookup)
	}
	pc, err := c.SchedulePickup(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			return carriers.PickupConfirmation{}, false, err
		}
		return carriers.PickupConfirmation{}, false, nil
	}
	return pc, true, nil
}

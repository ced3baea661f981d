package pickups

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/store"
)

// ErrPickupOutcomeUnknown: a retry found its pickup still 'requesting' (the
// earlier request's carrier answer was lost) and the carrier cannot be
// asked whether it booked it, so the pickup is not asked for again (409
// ineligible_state): a second request could send a second driver.
var ErrPickupOutcomeUnknown = errors.New("the carrier cannot be asked whether an earlier request booked this pickup")

// AuditPickupAdopted (store.AuditEntry.Action, target the pickup id and
// the carrier's confirmation number): a retry found the pickup an earlier
// request had booked and whose answer was lost, and kept it instead of
// booking another.
const AuditPickupAdopted = "pickup.adopted"

// resumePickup is the start of a retry that found its pickup 'requesting':
// an earlier request under the same idempotency key called the carrier and
// recorded no answer (a crash, a time-out, an answer that did not parse),
// so the carrier may have booked it. No carrier takes an idempotency key on
// pickups, so it is asked first (CapFindPickup: UPS's pending pickups):
// a pickup found is adopted (adopted true); none found, the caller books.
// A carrier that cannot be asked (USPS and FedEx, which have no search of
// pickups; UPS for a pickup after tomorrow) is not asked to book again:
// ErrPickupOutcomeUnknown, the row staying 'requesting'. A failed lookup is
// the carrier's failure, the row staying too.
func (s *Service) resumePickup(ctx context.Context, carrier carriers.Carrier, row store.Pickup, req carriers.PickupRequest) (carriers.PickupConfirmation, bool, error) {
	log := s.log.With(slog.String("pickup_id", row.ID), slog.String("carrier", carrier.Name()), slog.Time("requested_at", row.CreatedAt))
	pc, found, err := carriers.PickupConfirmation{}, false, error(carriers.ErrNoPickupLookup)
	if carrier.Capabilities().Has(carriers.CapFindPickup) {
		pc, found, err = carrier.FindPickup(ctx, req)
	}
	switch {
	case errors.Is(err, carriers.ErrNoPickupLookup):
		log.WarnContext(ctx, "pickup not asked for again: an earlier request's answer was lost and the carrier cannot say whether it booked it", slog.Any("reason", err))
		return carriers.PickupConfirmation{}, false, fmt.Errorf("pickup %s is still requesting: an earlier request with this idempotencyKey asked %s for it and its answer was lost, and %s (%v), so shipd does not ask again, which could book a second visit; check with %s, and schedule another with a new idempotencyKey if it has none: %w",
			row.ID, carrier.Name(), lookupLimit(carrier), err, carrier.Name(), ErrPickupOutcomeUnknown)
	case err != nil:
		if ctx.Err() != nil {
			return carriers.PickupConfirmation{}, false, err
		}
		log.WarnContext(ctx, "pickup resumed: the carrier could not say whether an earlier request booked it", slog.Any("error", err))
		return carriers.PickupConfirmation{}, false, pickupLookupError(carrier.Name(), err)
	case found:
		log.WarnContext(ctx, "pickup recovered: adopting the pickup an earlier request booked", slog.String("confirmation_number", pc.ConfirmationNumber))
		return pc, true, nil
	}
	log.InfoContext(ctx, "pickup resumed: the carrier booked nothing under the pickup's reference; scheduling")
	return carriers.PickupConfirmation{}, false, nil
}

// lookupLimit says why a carrier cannot be asked, in the API's words.
func lookupLimit(carrier carriers.Carrier) string {
	if carrier.Capabilities().Has(carriers.CapFindPickup) {
		return "cannot be asked about this pickup"
	}
	return "its API has no search of pickups"
}

// pickupLookupError is a failed lookup as the API answers it: unavailable
// (503) or failed (502), never "refused this pickup", which it was not.
func pickupLookupError(name string, err error) error {
	e := pickupCarrierError(name, err)
	var ce *shipping.CarriersError
	if errors.As(e, &ce) && ce.Kind == errPickupRejected {
		ce.Kind = errPickupFailed
	}
	return e
}

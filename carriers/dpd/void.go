package dpd

import (
	"context"

	"github.com/shipd-dev/shipd/carriers"
)

// Void is refused: the META-API has no operation that cancels a shipment
// (its documents have login, shipment, label, pickup scheduling and
// collection request). The refusal (ErrRejected) says so and what to do:
// the label stays purchased and the refund is refused with this reason
// (shipment.void_rejected).
func (c *Carrier) Void(ctx context.Context, req carriers.VoidRequest) (carriers.VoidStatus, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	return "", &carriers.Error{Carrier: carrierName, Operation: opVoid, Kind: carriers.ErrRejected,
		Message: "DPD's META-API cannot cancel a shipment: ask your DPD business unit to cancel parcel " + carriers.Excerpt(req.TrackingNumber)}
}

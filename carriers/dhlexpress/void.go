package dhlexpress

import (
	"context"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// Void is refused: the MyDHL API cannot cancel a shipment once created (it
// cancels pickups only, DELETE /pickups/{n}), and shipd never pretends it
// did. The refusal (ErrRejected) says what to do instead: the refund flow
// returns the label to purchased with this reason and records
// shipment.void_rejected. DHL calls no API for it, so nothing is sent.
func (c *Carrier) Void(_ context.Context, req carriers.VoidRequest) (carriers.VoidStatus, error) {
	waybill := strings.TrimSpace(req.TrackingNumber)
	if waybill == "" {
		waybill = "the waybill"
	} else {
		waybill = "waybill " + waybill
	}
	return "", &carriers.Error{Carrier: Name, Operation: opVoid, Kind: carriers.ErrRejected, Code: VoidRefusedCode,
		Message: "DHL Express cannot cancel a shipment through its API (MyDHL API 3.1.1 has no such operation): " +
			"do not hand the parcel to DHL, and ask DHL Express customer service to cancel " + waybill +
			"; a pickup booked for it is cancelled on its own (POST /pickups/{id}/cancel)"}
}

// VoidRefusedCode is the code of Void's refusal, for clients that tell it
// from a carrier's own.
const VoidRefusedCode = "no_void_api"

package fedex

import (
	"context"
	"log/slog"
	"net/http"
	"slices"

	"github.com/shipd-dev/shipd/carriers"
)

// associatedPath is the Track API's track by associated shipments: the
// child packages of a multi-piece shipment (STANDARD_MPS) by its master.
const associatedPath = "/track/v1/associatedshipments"

// associatedRequest is Full_Schema_Multiple_Piece_Shipment.
type associatedRequest struct {
	IncludeDetailedScans     bool   `json:"includeDetailedScans"`
	AssociatedType           string `json:"associatedType"`
	MasterTrackingNumberInfo struct {
		TrackingNumberInfo struct {
			TrackingNumber string `json:"trackingNumber"`
		} `json:"trackingNumberInfo"`
	} `json:"masterTrackingNumberInfo"`
}

// hasPieces reports whether FedEx says the number's shipment has associated
// shipments (additionalTrackingInfo.hasAssociatedShipments): the master of
// a multi-piece shipment.
func (r trackResponse) hasPieces(trackingNumber string) bool {
	if r.Output == nil {
		return false
	}
	for _, ctr := range r.Output.CompleteTrackResults {
		if ctr.TrackingNumber != trackingNumber || len(ctr.TrackResults) == 0 {
			continue
		}
		a := ctr.TrackResults[0].AdditionalTrackingInfo
		return a != nil && a.HasAssociatedShipments
	}
	return false
}

// withPieces adds the scans of a multi-piece shipment's other packages to
// its master's update, each named by its number, in time order with the
// master's (as UPS answers them): FedEx tracks a master alone, so its
// children are asked for in one more Track API call. That call failing
// leaves the master's update as it is (logged): the next poll asks again.
func (c *Carrier) withPieces(ctx context.Context, master string, up carriers.TrackingUpdate) carriers.TrackingUpdate {
	var req associatedRequest
	req.IncludeDetailedScans, req.AssociatedType = true, "STANDARD_MPS"
	req.MasterTrackingNumberInfo.TrackingNumberInfo.TrackingNumber = master
	body, err := c.do(ctx, request{op: opTrack, method: http.MethodPost, path: associatedPath, body: req})
	var r trackResponse
	if err == nil {
		r, err = decodeTrack(body)
	}
	if err == nil && r.Output == nil {
		err = malformed(opTrack, "the associated shipments answer has no output")
	}
	if err != nil {
		c.log.WarnContext(ctx, "fedex: the packages of a multi-piece shipment could not be tracked",
			slog.String("master", master), slog.Any("error", c.scrub(err)))
		return up
	}
	events := slices.Clone(up.Events)
	for _, ctr := range r.Output.CompleteTrackResults {
		if ctr.TrackingNumber == "" || ctr.TrackingNumber == master {
			continue
		}
		piece, err := r.update(ctr.TrackingNumber, false)
		if err != nil {
			continue // a package FedEx cannot track (yet) adds no scans
		}
		for _, ev := range piece.Events {
			ev.TrackingNumber = ctr.TrackingNumber
			events = append(events, ev)
		}
	}
	slices.SortStableFunc(events, func(a, b carriers.TrackingEvent) int { return a.OccurredAt.Compare(b.OccurredAt) })
	up.Events = events
	return up
}

package server

import (
	"context"

	"github.com/shipd-dev/shipd/gen"
)

// GetTracker reads a tracker with its scans, newest first.
func (s *Server) GetTracker(ctx context.Context, req gen.GetTrackerRequestObject) (gen.GetTrackerResponseObject, error) {
	t, err := s.shipping.Tracker(ctx, callerOf(ctx), req.Id)
	if err != nil {
		return nil, err
	}
	return gen.GetTracker200JSONResponse{
		Id: t.ID, Mode: gen.Mode(t.Mode), ShipmentId: t.ShipmentID, Carrier: t.Carrier, TrackingNumber: t.TrackingNumber,
		Status: gen.TrackerStatus(t.Status), EstimatedDeliveryAt: t.EstimatedDeliveryAt, Events: trackingEventViews(t.Events),
		CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt,
	}, nil
}

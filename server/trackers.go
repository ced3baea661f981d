package server

import (
	"context"
	"errors"

	"github.com/shipd-dev/shipd/gen"
	"github.com/shipd-dev/shipd/store"
)

// GetTracker reads a tracker with its scans, newest first.
func (s *Server) GetTracker(ctx context.Context, req gen.GetTrackerRequestObject) (gen.GetTrackerResponseObject, error) {
	p := principalFrom(ctx)
	t, err := store.GetTracker(ctx, s.store.R, p.AccountID, req.Id)
	if errors.Is(err, store.ErrNotFound) {
		return gen.GetTracker404JSONResponse{NotFoundJSONResponse: gen.NotFoundJSONResponse{Body: notFoundBody(ctx)}}, nil
	}
	if err != nil {
		return nil, err
	}
	if t.Mode != p.Mode {
		return gen.GetTracker403JSONResponse{ForbiddenJSONResponse: gen.ForbiddenJSONResponse{Body: wrongModeBody(ctx, p.Mode)}}, nil
	}
	events, err := store.TrackingEvents(ctx, s.store.R, t.ID, maxTrackingEvents)
	if err != nil {
		return nil, err
	}
	return gen.GetTracker200JSONResponse{
		Id: t.ID, Mode: gen.Mode(t.Mode), ShipmentId: t.ShipmentID, Carrier: t.Carrier, TrackingNumber: t.TrackingNumber,
		Status: gen.TrackerStatus(t.Status), EstimatedDeliveryAt: t.EstimatedDeliveryAt, Events: trackingEventViews(events),
		CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt,
	}, nil
}

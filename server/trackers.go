package server

import (
	"context"
	"encoding/json"

	"github.com/oapi-codegen/nullable"

	"github.com/shipd-dev/shipd/gen"
	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/shipping/trackers"
)

// TrackerEventData renders a standalone tracker as event data: exactly what
// GET /trackers/{id} returns. The wiring gives it to the shipping service.
func TrackerEventData(t shipping.Tracker) (json.RawMessage, error) {
	return json.Marshal(trackerView(t))
}

func trackerView(t shipping.Tracker) gen.Tracker {
	v := gen.Tracker{
		Id: t.ID, Mode: gen.Mode(t.Mode), ShipmentId: nullable.NewNullNullable[string](), Carrier: t.Carrier, TrackingNumber: t.TrackingNumber,
		Status: gen.TrackerStatus(t.Status), EstimatedDeliveryAt: t.EstimatedDeliveryAt, Events: trackingEventViews(t.Events),
		CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt, EndedAt: t.EndedAt,
	}
	if t.ShipmentID != nil {
		v.ShipmentId = nullable.NewNullableWithValue(*t.ShipmentID)
	}
	if t.EndReason != "" {
		reason := gen.TrackerEndReason(t.EndReason)
		v.EndReason = &reason
	}
	v.Object = gen.TrackerObjectTracker
	return v
}

// GetTracker reads a tracker with its scans, newest first.
func (s *Server) GetTracker(ctx context.Context, req gen.GetTrackerRequestObject) (gen.GetTrackerResponseObject, error) {
	t, err := s.shipping.Tracker(ctx, callerOf(ctx), req.Id)
	if err != nil {
		return nil, err
	}
	return gen.GetTracker200JSONResponse(trackerView(t)), nil
}

// CreateTracker follows any package: 201 new, 200 when already followed.
func (s *Server) CreateTracker(ctx context.Context, req gen.CreateTrackerRequestObject) (gen.CreateTrackerResponseObject, error) {
	b := req.Body
	in := trackers.NewTracker{TrackingNumber: b.TrackingNumber, Carrier: deref(b.Carrier),
		IdempotencyKey: deref(b.IdempotencyKey), RequestFingerprint: requestFingerprint(ctx)}
	res, replayed, err := s.trackers.CreateTracker(ctx, callerOf(ctx), in)
	if err != nil {
		return nil, err
	}
	markReplayed(ctx, replayed)
	if res.Created {
		return gen.CreateTracker201JSONResponse(trackerView(res.Tracker)), nil
	}
	return gen.CreateTracker200JSONResponse(trackerView(res.Tracker)), nil
}

// ListTrackers pages through the mode's trackers, newest first.
func (s *Server) ListTrackers(ctx context.Context, req gen.ListTrackersRequestObject) (gen.ListTrackersResponseObject, error) {
	page, err := paging.Decode(req.Params.Cursor, req.Params.Limit)
	if err != nil {
		return nil, err
	}
	var status string
	if req.Params.Status != nil {
		status = string(*req.Params.Status)
	}
	rows, more, err := s.trackers.Trackers(ctx, callerOf(ctx), status, page)
	if err != nil {
		return nil, err
	}
	out := gen.TrackerList{Data: make([]gen.Tracker, len(rows)), NextCursor: nextCursor(rows, more, func(t shipping.Tracker) string { return t.ID })}
	for i, t := range rows {
		out.Data[i] = trackerView(t)
	}
	return gen.ListTrackers200JSONResponse(out), nil
}

// DeleteTracker stops a standalone tracker.
func (s *Server) DeleteTracker(ctx context.Context, req gen.DeleteTrackerRequestObject) (gen.DeleteTrackerResponseObject, error) {
	if err := s.trackers.DeleteTracker(ctx, callerOf(ctx), req.Id); err != nil {
		return nil, err
	}
	return gen.DeleteTracker204Response{}, nil
}

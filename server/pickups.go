package server

import (
	"context"

	"github.com/oapi-codegen/nullable"

	"github.com/shipd-dev/shipd/gen"
	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/shipping/pickups"
)

func pickupView(p pickups.Pickup) gen.Pickup {
	v := gen.Pickup{
		Id: p.ID, Mode: gen.Mode(p.Mode), Carrier: p.Carrier, Status: gen.PickupStatus(p.Status),
		ConfirmationNumber: nullable.NewNullNullable[string](), Address: addressView(p.Address),
		ReadyAt: p.ReadyAt, CloseAt: p.CloseAt, PackageCount: p.PackageCount, TotalWeightOz: p.TotalWeightOz,
		ShipmentIds: p.ShipmentIDs, Instructions: optional(p.Instructions),
		CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt, CancelledAt: p.CancelledAt, CarrierAccountId: p.CarrierAccountID,
	}
	if v.ShipmentIds == nil {
		v.ShipmentIds = []string{}
	}
	if p.ConfirmationNumber != nil {
		v.ConfirmationNumber = nullable.NewNullableWithValue(*p.ConfirmationNumber)
	}
	v.Object = gen.PickupObjectPickup
	return v
}

// CreatePickup schedules a pickup: 201 once the carrier confirmed it.
func (s *Server) CreatePickup(ctx context.Context, req gen.CreatePickupRequestObject) (gen.CreatePickupResponseObject, error) {
	b := req.Body
	in := pickups.NewPickup{
		Carrier: b.Carrier, Address: addressInput(b.Address), ReadyAt: b.ReadyAt, CloseAt: b.CloseAt,
		PackageCount: b.PackageCount, TotalWeightOz: b.TotalWeightOz, Instructions: deref(b.Instructions),
		CarrierAccountID: b.CarrierAccountId, IdempotencyKey: deref(b.IdempotencyKey), RequestFingerprint: requestFingerprint(ctx),
	}
	if b.ShipmentIds != nil {
		in.ShipmentIDs = *b.ShipmentIds
	}
	p, replayed, err := s.pickups.CreatePickup(ctx, callerOf(ctx), in)
	if err != nil {
		return nil, err
	}
	markReplayed(ctx, replayed)
	return gen.CreatePickup201JSONResponse(pickupView(p)), nil
}

// GetPickup reads one pickup.
func (s *Server) GetPickup(ctx context.Context, req gen.GetPickupRequestObject) (gen.GetPickupResponseObject, error) {
	p, err := s.pickups.GetPickup(ctx, callerOf(ctx), req.Id)
	if err != nil {
		return nil, err
	}
	return gen.GetPickup200JSONResponse(pickupView(p)), nil
}

// ListPickups pages through the mode's pickups, newest first.
func (s *Server) ListPickups(ctx context.Context, req gen.ListPickupsRequestObject) (gen.ListPickupsResponseObject, error) {
	page, err := paging.Decode(req.Params.Cursor, req.Params.Limit)
	if err != nil {
		return nil, err
	}
	rows, more, err := s.pickups.Pickups(ctx, callerOf(ctx), page)
	if err != nil {
		return nil, err
	}
	out := gen.PickupList{Data: make([]gen.Pickup, len(rows)), NextCursor: nextCursor(rows, more, func(p pickups.Pickup) string { return p.ID })}
	for i, p := range rows {
		out.Data[i] = pickupView(p)
	}
	return gen.ListPickups200JSONResponse(out), nil
}

// CancelPickup asks the carrier to cancel a pickup.
func (s *Server) CancelPickup(ctx context.Context, req gen.CancelPickupRequestObject) (gen.CancelPickupResponseObject, error) {
	p, err := s.pickups.CancelPickup(ctx, callerOf(ctx), req.Id)
	if err != nil {
		return nil, err
	}
	return gen.CancelPickup200JSONResponse(pickupView(p)), nil
}

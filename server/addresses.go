package server

import (
	"context"

	"github.com/shipd-dev/shipd/gen"
	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/shipping/addresses"
)

// CreateAddress saves an address to the address book.
func (s *Server) CreateAddress(ctx context.Context, req gen.CreateAddressRequestObject) (gen.CreateAddressResponseObject, error) {
	b := req.Body
	in := addresses.NewAddress{
		Address: shipping.Address{
			Name: b.Name, Company: b.Company, Street1: b.Street1, Street2: b.Street2, City: b.City, State: b.State,
			Zip: b.Zip, Country: b.Country, Phone: b.Phone, Email: b.Email, Residential: b.Residential,
		},
		IdempotencyKey: deref(b.IdempotencyKey), RequestFingerprint: requestFingerprint(ctx),
	}
	a, replayed, err := s.addresses.SaveAddress(ctx, callerOf(ctx), in)
	if err != nil {
		return nil, err
	}
	markReplayed(ctx, replayed)
	return gen.CreateAddress201JSONResponse(savedAddressView(a)), nil
}

// ListAddresses pages through the address book, newest first.
func (s *Server) ListAddresses(ctx context.Context, req gen.ListAddressesRequestObject) (gen.ListAddressesResponseObject, error) {
	page, err := paging.Decode(req.Params.Cursor, req.Params.Limit)
	if err != nil {
		return nil, err
	}
	rows, more, err := s.addresses.Addresses(ctx, callerOf(ctx), page)
	if err != nil {
		return nil, err
	}
	out := gen.SavedAddressList{Data: make([]gen.SavedAddress, len(rows)), NextCursor: nextCursor(rows, more, func(a addresses.SavedAddress) string { return a.ID })}
	for i, a := range rows {
		out.Data[i] = savedAddressView(a)
	}
	return gen.ListAddresses200JSONResponse(out), nil
}

// VerifyAddress checks deliverability and standardises an address; nothing is stored.
func (s *Server) VerifyAddress(ctx context.Context, req gen.VerifyAddressRequestObject) (gen.VerifyAddressResponseObject, error) {
	res, err := s.addresses.VerifyAddress(ctx, callerOf(ctx), addressInput(*req.Body))
	if err != nil {
		return nil, err
	}
	return gen.VerifyAddress201JSONResponse(verificationView(res)), nil
}

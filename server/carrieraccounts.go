package server

import (
	"context"
	"encoding/json"
	"time"

	"github.com/oapi-codegen/nullable"

	"github.com/shipd-dev/shipd/gen"
	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/shipping/carrieraccounts"
)

// CreateCarrierAccount connects a carrier account once the carrier accepted its credentials.
func (s *Server) CreateCarrierAccount(ctx context.Context, req gen.CreateCarrierAccountRequestObject) (gen.CreateCarrierAccountResponseObject, error) {
	b := req.Body
	in := carrieraccounts.NewCarrierAccount{Carrier: string(b.Carrier), Description: b.Description, Credentials: credentialsInput(b.Credentials),
		IdempotencyKey: deref(b.IdempotencyKey), RequestFingerprint: requestFingerprint(ctx)}
	if b.Environment != nil {
		in.Environment = string(*b.Environment)
	}
	created, replayed, err := s.carrierAccounts.CreateCarrierAccount(ctx, callerOf(ctx), in)
	if err != nil {
		return nil, err
	}
	markReplayed(ctx, replayed)
	return gen.CreateCarrierAccount201JSONResponse(carrierAccountView(created)), nil
}

// ListCarrierAccounts pages through the carrier accounts, newest first.
func (s *Server) ListCarrierAccounts(ctx context.Context, req gen.ListCarrierAccountsRequestObject) (gen.ListCarrierAccountsResponseObject, error) {
	page, err := paging.Decode(req.Params.Cursor, req.Params.Limit)
	if err != nil {
		return nil, err
	}
	rows, more, err := s.carrierAccounts.ListCarrierAccounts(ctx, callerOf(ctx), page)
	if err != nil {
		return nil, err
	}
	out := gen.CarrierAccountList{Data: make([]gen.CarrierAccount, len(rows)), NextCursor: nextCursor(rows, more, func(a carrieraccounts.CarrierAccount) string { return a.ID })}
	for i, a := range rows {
		out.Data[i] = carrierAccountView(a)
	}
	return gen.ListCarrierAccounts200JSONResponse(out), nil
}

// GetCarrierAccount reads one carrier account, without its secret.
func (s *Server) GetCarrierAccount(ctx context.Context, req gen.GetCarrierAccountRequestObject) (gen.GetCarrierAccountResponseObject, error) {
	a, err := s.carrierAccounts.GetCarrierAccount(ctx, callerOf(ctx), req.Id)
	if err != nil {
		return nil, err
	}
	return gen.GetCarrierAccount200JSONResponse(carrierAccountView(a)), nil
}

// UpdateCarrierAccount changes the description, enabled or the credentials.
func (s *Server) UpdateCarrierAccount(ctx context.Context, req gen.UpdateCarrierAccountRequestObject) (gen.UpdateCarrierAccountResponseObject, error) {
	b := req.Body
	p := carrieraccounts.CarrierAccountPatch{Enabled: b.Enabled}
	if b.Credentials != nil {
		cr := credentialsInput(*b.Credentials)
		p.Credentials = &cr
	}
	if b.Description.IsSpecified() {
		p.SetDescription = true
		if !b.Description.IsNull() {
			d := b.Description.MustGet()
			p.Description = &d
		}
	}
	a, err := s.carrierAccounts.UpdateCarrierAccount(ctx, callerOf(ctx), req.Id, p)
	if err != nil {
		return nil, err
	}
	return gen.UpdateCarrierAccount200JSONResponse(carrierAccountView(a)), nil
}

// DeleteCarrierAccount stops a carrier account; its labels keep using it for voids and tracking.
func (s *Server) DeleteCarrierAccount(ctx context.Context, req gen.DeleteCarrierAccountRequestObject) (gen.DeleteCarrierAccountResponseObject, error) {
	if err := s.carrierAccounts.DeleteCarrierAccount(ctx, callerOf(ctx), req.Id); err != nil {
		return nil, err
	}
	return gen.DeleteCarrierAccount204Response{}, nil
}

// credentialsInput is the credentials object by field name: whatever
// fields the contract names (each carrier's connector says which it takes,
// carriers/connectors), so that a new carrier's fields need nothing here.
func credentialsInput(c gen.CarrierCredentialsInput) carrieraccounts.CarrierCredentialsInput {
	fields := carrieraccounts.CarrierCredentialsInput{}
	raw, err := json.Marshal(c)
	if err == nil {
		err = json.Unmarshal(raw, &fields)
	}
	if err != nil {
		// Every property of the schema is a string: this cannot happen.
		return carrieraccounts.CarrierCredentialsInput{}
	}
	return fields
}

func carrierAccountView(a carrieraccounts.CarrierAccount) gen.CarrierAccount {
	desc := nullable.NewNullNullable[string]()
	if a.Description != nil {
		desc = nullable.NewNullableWithValue(*a.Description)
	}
	updated := a.UpdatedAt.UTC().Truncate(time.Microsecond)
	return gen.CarrierAccount{Id: a.ID, Carrier: string(a.Carrier), Description: desc, ClientId: a.ClientID,
		AccountNumber: a.AccountNumber, Environment: gen.CarrierEnvironment(a.Environment), Enabled: a.Enabled,
		CreatedAt: a.CreatedAt, UpdatedAt: &updated}
}

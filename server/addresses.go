package server

import (
	"context"
	"errors"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/shipd-dev/shipd/carriers/verifier"
	"github.com/shipd-dev/shipd/gen"
	"github.com/shipd-dev/shipd/store"
)

// addressRuleIssues checks what the schema cannot express: a US address needs a state.
func addressRuleIssues(prefix string, country string, state *string) []validationIssue {
	if strings.EqualFold(country, "US") && (state == nil || strings.TrimSpace(*state) == "") {
		return []validationIssue{{path: prefix + "state", message: "is required for a US address"}}
	}
	return nil
}

// CreateAddress saves an address to the address book.
func (s *Server) CreateAddress(ctx context.Context, req gen.CreateAddressRequestObject) (gen.CreateAddressResponseObject, error) {
	b := req.Body
	if issues := addressRuleIssues("", b.Country, b.State); len(issues) > 0 {
		return gen.CreateAddress422JSONResponse{UnprocessableEntityJSONResponse: gen.UnprocessableEntityJSONResponse{Body: issuesBody(ctx, issues)}}, nil
	}
	p := principalFrom(ctx)
	a := store.Address{
		ID: store.NewID("adr"), AccountID: p.AccountID, Mode: p.Mode, CreatedAt: s.now(),
		Name: deref(b.Name), Company: deref(b.Company), Street1: b.Street1, Street2: deref(b.Street2),
		City: b.City, State: deref(b.State), Zip: b.Zip, Country: strings.ToUpper(b.Country),
		Phone: deref(b.Phone), Email: deref(b.Email), Residential: b.Residential,
	}
	err := s.writeTx(ctx, func(tx *sqlx.Tx) error {
		if err := store.InsertAddress(ctx, tx, &a); err != nil {
			return err
		}
		return markCommitted(ctx, tx)
	})
	if body, ok := tokenFailure(ctx, err); ok {
		return gen.CreateAddress401JSONResponse{UnauthorizedJSONResponse: gen.UnauthorizedJSONResponse{Body: body}}, nil
	}
	if err != nil {
		return nil, err
	}
	return gen.CreateAddress201JSONResponse(savedAddress(a)), nil
}

// ListAddresses pages through the address book, newest first.
func (s *Server) ListAddresses(ctx context.Context, req gen.ListAddressesRequestObject) (gen.ListAddressesResponseObject, error) {
	page, perr, err := s.pageOf(ctx, store.ListingAddresses, req.Params.Cursor, req.Params.Limit)
	if err != nil {
		return nil, err
	}
	if perr != nil {
		return gen.ListAddresses422JSONResponse{UnprocessableEntityJSONResponse: gen.UnprocessableEntityJSONResponse{Body: bodyOf(ctx, perr)}}, nil
	}
	p := principalFrom(ctx)
	rows, next, err := s.store.ListAddresses(ctx, p.AccountID, p.Mode, page)
	if err != nil {
		return nil, err
	}
	out := gen.SavedAddressList{Data: make([]gen.SavedAddress, len(rows)), NextCursor: nextCursor(rows, next, func(a store.Address) string { return a.ID })}
	for i, a := range rows {
		out.Data[i] = savedAddress(a)
	}
	return gen.ListAddresses200JSONResponse(out), nil
}

// VerifyAddress checks deliverability and standardises an address with the
// mode's verifier; nothing is stored.
func (s *Server) VerifyAddress(ctx context.Context, req gen.VerifyAddressRequestObject) (gen.VerifyAddressResponseObject, error) {
	b := *req.Body
	if issues := addressRuleIssues("", b.Country, b.State); len(issues) > 0 {
		return gen.VerifyAddress422JSONResponse{UnprocessableEntityJSONResponse: gen.UnprocessableEntityJSONResponse{Body: issuesBody(ctx, issues)}}, nil
	}
	v := s.cfg.LiveVerifier
	if principalFrom(ctx).Mode == "test" {
		v = s.cfg.TestVerifier
	}
	if v == nil {
		return gen.VerifyAddress500JSONResponse{InternalErrorJSONResponse: gen.InternalErrorJSONResponse{
			Body: errorBody(ctx, "verifier_not_configured", "no address verifier is configured for live mode; ask the operator to configure one (retrying does not help)")}}, nil
	}
	res, err := v.Verify(ctx, verifierAddress(b))
	switch {
	case errors.Is(err, verifier.ErrUnavailable):
		return gen.VerifyAddress503JSONResponse{ServiceUnavailableJSONResponse: gen.ServiceUnavailableJSONResponse{
			Body:    errorBody(ctx, "verifier_unavailable", "the address verifier is temporarily unavailable; retry in a minute"),
			Headers: gen.ServiceUnavailableResponseHeaders{RetryAfter: 60}}}, nil
	case errors.Is(err, verifier.ErrFailed):
		return gen.VerifyAddress502JSONResponse{BadGatewayJSONResponse: gen.BadGatewayJSONResponse{
			Body: errorBody(ctx, "verifier_error", "the address verifier failed; retry")}}, nil
	case err != nil:
		return nil, err
	}
	out := gen.AddressVerification{
		Status: gen.AddressVerificationStatus(res.Status), Deliverable: res.Deliverable,
		Address: genAddress(res.Address), Messages: make([]gen.VerificationMessage, len(res.Messages)),
	}
	for i, m := range res.Messages {
		out.Messages[i] = gen.VerificationMessage{Code: m.Code, Field: optional(m.Field), Message: m.Message}
	}
	return gen.VerifyAddress201JSONResponse(out), nil
}

func verifierAddress(a gen.Address) verifier.Address {
	return verifier.Address{
		Name: deref(a.Name), Company: deref(a.Company), Street1: a.Street1, Street2: deref(a.Street2),
		City: a.City, State: deref(a.State), Zip: a.Zip, Country: a.Country,
		Phone: deref(a.Phone), Email: deref(a.Email), Residential: a.Residential,
	}
}

func genAddress(a verifier.Address) gen.Address {
	return gen.Address{
		Name: optional(a.Name), Company: optional(a.Company), Street1: a.Street1, Street2: optional(a.Street2),
		City: a.City, State: optional(a.State), Zip: a.Zip, Country: a.Country,
		Phone: optional(a.Phone), Email: optional(a.Email), Residential: a.Residential,
	}
}

func savedAddress(a store.Address) gen.SavedAddress {
	return gen.SavedAddress{
		Id: a.ID, Mode: gen.Mode(a.Mode), CreatedAt: a.CreatedAt,
		Name: optional(a.Name), Company: optional(a.Company), Street1: a.Street1, Street2: optional(a.Street2),
		City: a.City, State: optional(a.State), Zip: a.Zip, Country: a.Country,
		Phone: optional(a.Phone), Email: optional(a.Email), Residential: a.Residential,
	}
}

// issuesBody is the 422 body for rule violations found by a handler.
func issuesBody(ctx context.Context, issues []validationIssue) gen.Error {
	return bodyOf(ctx, issuesError(issues))
}

// bodyOf gives an apiError's body the request id, for handlers' typed responses.
func bodyOf(ctx context.Context, e *apiError) gen.Error {
	b := e.Body
	if id := requestIDFrom(ctx); id != "" {
		b.RequestId = &id
	}
	return b
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// optional turns "" into an absent field.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

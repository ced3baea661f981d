package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/jmoiron/sqlx"
	"github.com/riverqueue/river"

	"github.com/shipd-dev/shipd/gen"
	"github.com/shipd-dev/shipd/store"
)

const maxTrackingEvents = 100

// QuoteLabel returns every carrier's rates; nothing is stored or charged.
func (s *Server) QuoteLabel(ctx context.Context, req gen.QuoteLabelRequestObject) (gen.QuoteLabelResponseObject, error) {
	b := req.Body
	in := shipmentInput{FromAddress: b.FromAddress, ToAddress: b.ToAddress, Parcel: b.Parcel, Options: b.Options, Customs: b.Customs}
	if e := checkShipmentInput(in); e != nil {
		return quoteFailure(ctx, e), nil
	}
	rates, e := s.rates(ctx, principalFrom(ctx).Mode == "test", in.carrierShipment())
	if e != nil {
		return quoteFailure(ctx, e), nil
	}
	return gen.QuoteLabel200JSONResponse{Rates: rates}, nil
}

func quoteFailure(ctx context.Context, e *apiError) gen.QuoteLabelResponseObject {
	body := bodyOf(ctx, e)
	switch e.Status {
	case http.StatusServiceUnavailable:
		return gen.QuoteLabel503JSONResponse{ServiceUnavailableJSONResponse: gen.ServiceUnavailableJSONResponse{Body: body, Headers: gen.ServiceUnavailableResponseHeaders{RetryAfter: e.RetryAfter}}}
	case http.StatusBadGateway:
		return gen.QuoteLabel502JSONResponse{BadGatewayJSONResponse: gen.BadGatewayJSONResponse{Body: body}}
	case http.StatusInternalServerError:
		return gen.QuoteLabel500JSONResponse{InternalErrorJSONResponse: gen.InternalErrorJSONResponse{Body: body}}
	}
	return gen.QuoteLabel422JSONResponse{UnprocessableEntityJSONResponse: gen.UnprocessableEntityJSONResponse{Body: body}}
}

// CreateLabel selects a rate and accepts the purchase: the shipment row and
// its purchase job commit together, so an accepted purchase survives a crash.
func (s *Server) CreateLabel(ctx context.Context, req gen.CreateLabelRequestObject) (gen.CreateLabelResponseObject, error) {
	b := req.Body
	p := principalFrom(ctx)
	in := shipmentInput{FromAddress: b.FromAddress, ToAddress: b.ToAddress, Parcel: b.Parcel, Options: b.Options, Customs: b.Customs}
	in.FromAddress.Country = upper(in.FromAddress.Country)
	in.ToAddress.Country = upper(in.ToAddress.Country)
	if e := checkShipmentInput(in); e != nil {
		return createFailure(ctx, e), nil
	}
	rates, e := s.rates(ctx, p.Mode == "test", in.carrierShipment())
	if e != nil {
		return createFailure(ctx, e), nil
	}
	rate, e := selectRate(rates, *b)
	if e != nil {
		return createFailure(ctx, e), nil
	}
	account, err := s.store.GetAccount(ctx, s.store.R, p.AccountID)
	if err != nil {
		return nil, err
	}
	if !account.HasPaymentMethod {
		return gen.CreateLabel402JSONResponse{PaymentRequiredJSONResponse: gen.PaymentRequiredJSONResponse{
			Body: errorBody(ctx, "no_payment_method", "the account has no payment method on file; add one, then retry with the same idempotency key")}}, nil
	}
	request, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	now := s.now()
	sh := store.Shipment{
		ID: store.NewID("shp"), AccountID: p.AccountID, Mode: p.Mode, Status: "paying", CreatedAt: now, UpdatedAt: now,
		Carrier: rate.Carrier, Service: rate.Service, ServiceCategory: string(rate.ServiceCategory),
		CarrierRateCents: rate.CarrierRateCents, PlatformFeeCents: rate.PlatformFeeCents, CustomerPriceCents: rate.CustomerPriceCents,
		Currency: rate.Currency, EstimatedDays: rate.EstimatedDays, Request: string(request), Source: "api",
	}
	err = s.writeTx(ctx, func(tx *sqlx.Tx) error {
		balance, err := store.Balance(ctx, tx, p.AccountID, p.Mode)
		if err != nil {
			return err
		}
		sh.BalanceAppliedCents = min(balance, sh.CustomerPriceCents)
		sh.ChargeAmountCents = sh.CustomerPriceCents - sh.BalanceAppliedCents
		if err := store.InsertShipment(ctx, tx, &sh); err != nil {
			return err
		}
		if sh.BalanceAppliedCents > 0 {
			if _, err := store.AddLedgerEntry(ctx, tx, store.LedgerEntry{AccountID: p.AccountID, Mode: p.Mode, ShipmentID: sh.ID,
				Kind: store.LedgerBalanceApplied, AmountCents: -sh.BalanceAppliedCents, CreatedAt: now}); err != nil {
				return err
			}
		}
		// A new shipment's purchase job cannot collide with another: the fast insert (no RETURNING) suffices.
		if _, err := s.jobs.InsertManyFastTx(ctx, tx.Tx, []river.InsertManyParams{{Args: purchaseArgs{ShipmentID: sh.ID}}}); err != nil {
			return err
		}
		return markCommitted(ctx, tx)
	})
	if body, ok := tokenFailure(ctx, err); ok {
		return gen.CreateLabel401JSONResponse{UnauthorizedJSONResponse: gen.UnauthorizedJSONResponse{Body: body}}, nil
	}
	if err != nil {
		return nil, err
	}
	return gen.CreateLabel202JSONResponse(s.shipmentView(sh, nil, false)), nil
}

func createFailure(ctx context.Context, e *apiError) gen.CreateLabelResponseObject {
	body := bodyOf(ctx, e)
	switch e.Status {
	case http.StatusServiceUnavailable:
		return gen.CreateLabel503JSONResponse{ServiceUnavailableJSONResponse: gen.ServiceUnavailableJSONResponse{Body: body, Headers: gen.ServiceUnavailableResponseHeaders{RetryAfter: e.RetryAfter}}}
	case http.StatusBadGateway:
		return gen.CreateLabel502JSONResponse{BadGatewayJSONResponse: gen.BadGatewayJSONResponse{Body: body}}
	case http.StatusInternalServerError:
		return gen.CreateLabel500JSONResponse{InternalErrorJSONResponse: gen.InternalErrorJSONResponse{Body: body}}
	}
	return gen.CreateLabel422JSONResponse{UnprocessableEntityJSONResponse: gen.UnprocessableEntityJSONResponse{Body: body}}
}

// lookupShipment finds the caller's shipment: 404 when missing or another
// account's, 403 wrong_mode when it belongs to the other mode.
func (s *Server) lookupShipment(ctx context.Context, q sqlx.QueryerContext, id string) (store.Shipment, *apiError, error) {
	p := principalFrom(ctx)
	sh, err := store.GetShipment(ctx, q, p.AccountID, id)
	if errors.Is(err, store.ErrNotFound) {
		return sh, newAPIError(http.StatusNotFound, "not_found", "no such shipment"), nil
	}
	if err != nil {
		return sh, nil, err
	}
	if sh.Mode != p.Mode {
		return sh, &apiError{Status: http.StatusForbidden, Body: wrongModeBody(ctx, p.Mode)}, nil
	}
	return sh, nil, nil
}

// shipmentDetail is a shipment with its latest tracking events, as GET and events show it.
func (s *Server) shipmentDetail(ctx context.Context, q sqlx.QueryerContext, sh store.Shipment) (gen.Shipment, error) {
	var events []store.TrackingEvent
	if sh.TrackerID != nil {
		var err error
		if events, err = store.TrackingEvents(ctx, q, *sh.TrackerID, maxTrackingEvents); err != nil {
			return gen.Shipment{}, err
		}
	}
	return s.shipmentView(sh, events, true), nil
}

// GetLabel reads one shipment with its tracking events.
func (s *Server) GetLabel(ctx context.Context, req gen.GetLabelRequestObject) (gen.GetLabelResponseObject, error) {
	sh, e, err := s.lookupShipment(ctx, s.store.R, req.Id)
	if err != nil {
		return nil, err
	}
	if e != nil {
		if e.Status == http.StatusForbidden {
			return gen.GetLabel403JSONResponse{ForbiddenJSONResponse: gen.ForbiddenJSONResponse{Body: bodyOf(ctx, e)}}, nil
		}
		return gen.GetLabel404JSONResponse{NotFoundJSONResponse: gen.NotFoundJSONResponse{Body: bodyOf(ctx, e)}}, nil
	}
	v, err := s.shipmentDetail(ctx, s.store.R, sh)
	if err != nil {
		return nil, err
	}
	return gen.GetLabel200JSONResponse(v), nil
}

// ListLabels pages through shipments, newest first.
func (s *Server) ListLabels(ctx context.Context, req gen.ListLabelsRequestObject) (gen.ListLabelsResponseObject, error) {
	page, perr, err := s.pageOf(ctx, store.ListingShipments, req.Params.Cursor, req.Params.Limit)
	if err != nil {
		return nil, err
	}
	if perr != nil {
		return gen.ListLabels422JSONResponse{UnprocessableEntityJSONResponse: gen.UnprocessableEntityJSONResponse{Body: bodyOf(ctx, perr)}}, nil
	}
	p := principalFrom(ctx)
	status := ""
	if req.Params.Status != nil {
		status = string(*req.Params.Status)
	}
	rows, next, err := s.store.ListShipments(ctx, p.AccountID, p.Mode, status, page)
	if err != nil {
		return nil, err
	}
	out := gen.ShipmentList{Data: make([]gen.Shipment, len(rows)), NextCursor: nextCursor(rows, next, func(s store.Shipment) string { return s.ID })}
	for i, sh := range rows {
		out.Data[i] = s.shipmentView(sh, nil, false)
	}
	return gen.ListLabels200JSONResponse(out), nil
}

// RefundLabel asks for a void: purchased → void_requested, with the refund
// job committed in the same transaction.
func (s *Server) RefundLabel(ctx context.Context, req gen.RefundLabelRequestObject) (gen.RefundLabelResponseObject, error) {
	var (
		sh       store.Shipment
		failure  *apiError
		conflict *apiError
	)
	err := s.writeTx(ctx, func(tx *sqlx.Tx) error {
		var err error
		sh, failure, err = s.lookupShipment(ctx, tx, req.Id)
		if err != nil || failure != nil {
			return err
		}
		if conflict = refundConflict(sh.Status); conflict != nil {
			return nil
		}
		sh.Status = "void_requested"
		sh.UpdatedAt = s.now()
		if err := store.UpdateShipment(ctx, tx, &sh); err != nil {
			return err
		}
		if _, err := s.jobs.InsertTx(ctx, tx.Tx, refundArgs{ShipmentID: sh.ID}, nil); err != nil {
			return err
		}
		return markCommitted(ctx, tx)
	})
	if body, ok := tokenFailure(ctx, err); ok {
		return gen.RefundLabel401JSONResponse{UnauthorizedJSONResponse: gen.UnauthorizedJSONResponse{Body: body}}, nil
	}
	switch {
	case err != nil:
		return nil, err
	case failure != nil && failure.Status == http.StatusForbidden:
		return gen.RefundLabel403JSONResponse{ForbiddenJSONResponse: gen.ForbiddenJSONResponse{Body: bodyOf(ctx, failure)}}, nil
	case failure != nil:
		return gen.RefundLabel404JSONResponse{NotFoundJSONResponse: gen.NotFoundJSONResponse{Body: bodyOf(ctx, failure)}}, nil
	case conflict != nil:
		return gen.RefundLabel409JSONResponse{ConflictJSONResponse: gen.ConflictJSONResponse{Body: bodyOf(ctx, conflict)}}, nil
	}
	v, err := s.shipmentDetail(ctx, s.store.R, sh)
	if err != nil {
		return nil, err
	}
	return gen.RefundLabel202JSONResponse(v), nil
}

// refundConflict is the 409 for a shipment that cannot be refunded now.
func refundConflict(status string) *apiError {
	switch status {
	case "purchased":
		return nil
	case "paying":
		return newAPIError(http.StatusConflict, "not_purchased", "the label is not purchased yet; wait for status purchased")
	case "void_requested":
		return newAPIError(http.StatusConflict, "refund_in_progress", "a refund of this label is already in progress")
	case "voided":
		return newAPIError(http.StatusConflict, "already_voided", "this label is already voided")
	}
	return newAPIError(http.StatusConflict, "ineligible_state", "a label in status "+status+" cannot be refunded")
}

// GetLabelPDF serves the rehosted label document.
func (s *Server) GetLabelPDF(ctx context.Context, req gen.GetLabelPDFRequestObject) (gen.GetLabelPDFResponseObject, error) {
	sh, e, err := s.lookupShipment(ctx, s.store.R, req.Id)
	if err != nil {
		return nil, err
	}
	if e != nil {
		if e.Status == http.StatusForbidden {
			return gen.GetLabelPDF403JSONResponse{ForbiddenJSONResponse: gen.ForbiddenJSONResponse{Body: bodyOf(ctx, e)}}, nil
		}
		return gen.GetLabelPDF404JSONResponse{NotFoundJSONResponse: gen.NotFoundJSONResponse{Body: bodyOf(ctx, e)}}, nil
	}
	if sh.Status == "paying" || sh.Status == "pending" {
		return gen.GetLabelPDF202JSONResponse{
			Body:    errorBody(ctx, "label_pending", "the label is not ready yet; retry in a few seconds"),
			Headers: gen.GetLabelPDF202ResponseHeaders{RetryAfter: 2},
		}, nil
	}
	unavailable := gen.GetLabelPDF404JSONResponse{NotFoundJSONResponse: gen.NotFoundJSONResponse{
		Body: errorBody(ctx, "label_unavailable", "the label document is not available")}}
	if sh.LabelKey == nil {
		return unavailable, nil
	}
	data, err := s.cfg.Labels.Get(ctx, *sh.LabelKey)
	if errors.Is(err, store.ErrBlobNotFound) {
		return unavailable, nil
	}
	if err != nil {
		return nil, err
	}
	return gen.GetLabelPDF200ApplicationpdfResponse{Body: bytes.NewReader(data), ContentLength: int64(len(data))}, nil
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

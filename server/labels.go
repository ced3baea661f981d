package server

import (
	"bytes"
	"context"
	"errors"

	"github.com/shipd-dev/shipd/gen"
	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/shipping"
)

// QuoteLabel returns every carrier's rates; nothing is stored or charged.
func (s *Server) QuoteLabel(ctx context.Context, req gen.QuoteLabelRequestObject) (gen.QuoteLabelResponseObject, error) {
	b := req.Body
	q, err := s.shipping.QuoteReturn(ctx, callerOf(ctx), shipmentInput(deref(b.FromAddress), deref(b.ToAddress), b.Parcel, b.Parcels, b.Options, b.Customs),
		deliverBy(b.DeliverBy), shipping.Return{Of: b.ReturnOf, IsReturn: deref(b.IsReturn)})
	if err == nil {
		q, err = shipping.KeepCarrierAccount(q, b.CarrierAccountId)
	}
	if err != nil {
		return nil, err
	}
	out := gen.QuoteLabel200JSONResponse{Rates: make([]gen.Rate, len(q.Rates)), CarrierErrors: carrierErrorViews(q.Failures)}
	for i, r := range q.Rates {
		out.Rates[i] = rateView(r)
	}
	return out, nil
}

// CreateLabel accepts a purchase: 202 with the shipment paying.
func (s *Server) CreateLabel(ctx context.Context, req gen.CreateLabelRequestObject) (gen.CreateLabelResponseObject, error) {
	b := req.Body
	in := shipping.NewLabel{
		// An address or parcel left out is a zero value, which the domain
		// completes from returnOf or refuses (missing_field).
		Input:          shipmentInput(deref(b.FromAddress), deref(b.ToAddress), b.Parcel, b.Parcels, b.Options, b.Customs),
		Return:         shipping.Return{Of: b.ReturnOf, IsReturn: deref(b.IsReturn)},
		Selection:      shipping.Selection{Carrier: b.Carrier, Service: b.Service, ServiceCategory: (*string)(b.ServiceCategory), DeliverBy: deliverBy(b.DeliverBy), CarrierAccountID: b.CarrierAccountId},
		IdempotencyKey: deref(b.IdempotencyKey), RequestFingerprint: requestFingerprint(ctx),
	}
	in.LabelFormat, in.LabelSize = labelFormatInput(b.LabelFormat, b.LabelSize)
	sh, replayed, err := s.shipping.Create(ctx, callerOf(ctx), in)
	if err != nil {
		return nil, err
	}
	markReplayed(ctx, replayed)
	return gen.CreateLabel202JSONResponse(s.shipment(ctx, sh)), nil
}

// GetLabel reads one shipment with its tracking events.
func (s *Server) GetLabel(ctx context.Context, req gen.GetLabelRequestObject) (gen.GetLabelResponseObject, error) {
	sh, err := s.shipping.Get(ctx, callerOf(ctx), req.Id)
	if err != nil {
		return nil, err
	}
	return s.rendered.answer(s.base(ctx), sh)
}

// ListLabels pages through shipments, newest first.
func (s *Server) ListLabels(ctx context.Context, req gen.ListLabelsRequestObject) (gen.ListLabelsResponseObject, error) {
	page, err := paging.Decode(req.Params.Cursor, req.Params.Limit)
	if err != nil {
		return nil, err
	}
	var status shipping.Status
	if req.Params.Status != nil {
		status = shipping.Status(*req.Params.Status)
	}
	rows, more, err := s.shipping.List(ctx, callerOf(ctx), status, page)
	if err != nil {
		return nil, err
	}
	out := gen.ShipmentList{Data: make([]gen.Shipment, len(rows)), NextCursor: nextCursor(rows, more, func(sh shipping.Shipment) string { return sh.ID })}
	for i, sh := range rows {
		out.Data[i] = s.shipment(ctx, sh)
	}
	return gen.ListLabels200JSONResponse(out), nil
}

// RefundLabel asks for a void: 202 with the shipment void_requested.
func (s *Server) RefundLabel(ctx context.Context, req gen.RefundLabelRequestObject) (gen.RefundLabelResponseObject, error) {
	var in shipping.RefundRequest
	if req.Body != nil {
		in.IdempotencyKey = deref(req.Body.IdempotencyKey)
	}
	in.RequestFingerprint = requestFingerprint(ctx)
	sh, replayed, err := s.shipping.Refund(ctx, callerOf(ctx), req.Id, in)
	if err != nil {
		return nil, err
	}
	markReplayed(ctx, replayed)
	return gen.RefundLabel202JSONResponse(s.shipment(ctx, sh)), nil
}

// GetLabelPDF serves the rehosted label document; 202 label_pending while the purchase runs.
func (s *Server) GetLabelPDF(ctx context.Context, req gen.GetLabelPDFRequestObject) (gen.GetLabelPDFResponseObject, error) {
	data, err := s.shipping.LabelDocument(ctx, callerOf(ctx), req.Id)
	if errors.Is(err, shipping.ErrLabelPending) {
		return gen.GetLabelPDF202JSONResponse{
			Body:    errorBody(ctx, "label_pending", err.Error()),
			Headers: gen.GetLabelPDF202ResponseHeaders{RetryAfter: 2},
		}, nil
	}
	if err != nil {
		return nil, s.labelFormatProblem(ctx, err)
	}
	return gen.GetLabelPDF200ApplicationpdfResponse{Body: bytes.NewReader(data), ContentLength: int64(len(data))}, nil
}

package server

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/gen"
	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/shipping/batches"
)

// CreateBatch accepts many purchases at once: 202 with the batch purchasing.
func (s *Server) CreateBatch(ctx context.Context, req gen.CreateBatchRequestObject) (gen.CreateBatchResponseObject, error) {
	b := req.Body
	in := batches.NewBatch{Items: make([]batches.BatchItem, len(b.Shipments)),
		IdempotencyKey: deref(b.IdempotencyKey), RequestFingerprint: requestFingerprint(ctx)}
	if b.LabelFormat != nil {
		in.LabelFormat = string(*b.LabelFormat)
	}
	for i, it := range b.Shipments {
		in.Items[i] = batches.BatchItem{
			Input:     shipmentInput(it.FromAddress, it.ToAddress, it.Parcel, it.Parcels, it.Options, it.Customs),
			Selection: shipping.Selection{Carrier: it.Carrier, Service: it.Service, ServiceCategory: (*string)(it.ServiceCategory), DeliverBy: deliverBy(it.DeliverBy)},
		}
	}
	batch, replayed, err := s.batches.CreateBatch(ctx, callerOf(ctx), in)
	if err != nil {
		return nil, err
	}
	markReplayed(ctx, replayed)
	return gen.CreateBatch202JSONResponse(s.batch(ctx, batch)), nil
}

// GetBatch reads one batch with its counts now.
func (s *Server) GetBatch(ctx context.Context, req gen.GetBatchRequestObject) (gen.GetBatchResponseObject, error) {
	b, err := s.batches.GetBatch(ctx, callerOf(ctx), req.Id)
	if err != nil {
		return nil, err
	}
	return gen.GetBatch200JSONResponse(s.batch(ctx, b)), nil
}

// ListBatches pages through batches, newest first.
func (s *Server) ListBatches(ctx context.Context, req gen.ListBatchesRequestObject) (gen.ListBatchesResponseObject, error) {
	page, err := paging.Decode(req.Params.Cursor, req.Params.Limit)
	if err != nil {
		return nil, err
	}
	rows, more, err := s.batches.ListBatches(ctx, callerOf(ctx), page)
	if err != nil {
		return nil, err
	}
	out := gen.BatchList{Data: make([]gen.Batch, len(rows)), NextCursor: nextCursor(rows, more, func(b batches.Batch) string { return b.ID })}
	for i, b := range rows {
		out.Data[i] = s.batch(ctx, b)
	}
	return gen.ListBatches200JSONResponse(out), nil
}

// ListBatchShipments pages through a batch's shipments in item order.
func (s *Server) ListBatchShipments(ctx context.Context, req gen.ListBatchShipmentsRequestObject) (gen.ListBatchShipmentsResponseObject, error) {
	page, err := paging.Decode(req.Params.Cursor, req.Params.Limit)
	if err != nil {
		return nil, err
	}
	rows, more, err := s.batches.BatchShipments(ctx, callerOf(ctx), req.Id, page)
	if err != nil {
		return nil, err
	}
	out := gen.ShipmentList{Data: make([]gen.Shipment, len(rows)), NextCursor: nextCursor(rows, more, func(sh shipping.Shipment) string { return sh.ID })}
	for i, sh := range rows {
		out.Data[i] = s.shipment(ctx, sh)
	}
	return gen.ListBatchShipments200JSONResponse(out), nil
}

// GetBatchLabelsPDF streams every purchased label of the batch as one PDF;
// 202 label_pending while any item is being bought.
func (s *Server) GetBatchLabelsPDF(ctx context.Context, req gen.GetBatchLabelsPDFRequestObject) (gen.GetBatchLabelsPDFResponseObject, error) {
	write, err := s.batches.BatchLabelsPDF(ctx, callerOf(ctx), req.Id)
	if errors.Is(err, shipping.ErrLabelPending) {
		return gen.GetBatchLabelsPDF202JSONResponse{
			Body:    errorBody(ctx, "label_pending", "some labels of the batch are not ready yet; retry in a few seconds"),
			Headers: gen.GetBatchLabelsPDF202ResponseHeaders{RetryAfter: 2},
		}, nil
	}
	if err != nil {
		return nil, s.batchFormatProblem(ctx, err)
	}
	return streamedPDF(write), nil
}

// GetBatchLabelsZPL streams every purchased label of a ZPL batch as one ZPL
// stream; 202 label_pending while any item is being bought.
func (s *Server) GetBatchLabelsZPL(ctx context.Context, req gen.GetBatchLabelsZPLRequestObject) (gen.GetBatchLabelsZPLResponseObject, error) {
	write, err := s.batches.BatchLabelsZPL(ctx, callerOf(ctx), req.Id)
	if errors.Is(err, shipping.ErrLabelPending) {
		return gen.GetBatchLabelsZPL202JSONResponse{
			Body:    errorBody(ctx, "label_pending", "some labels of the batch are not ready yet; retry in a few seconds"),
			Headers: gen.GetBatchLabelsZPL202ResponseHeaders{RetryAfter: 2},
		}, nil
	}
	if err != nil {
		return nil, s.batchFormatProblem(ctx, err)
	}
	return streamedZPL(write), nil
}

// GetBatchCustomsPDF streams the customs documents of the batch's
// international labels as one PDF; 202 label_pending while any item is
// being bought, 404 when none crosses a border.
func (s *Server) GetBatchCustomsPDF(ctx context.Context, req gen.GetBatchCustomsPDFRequestObject) (gen.GetBatchCustomsPDFResponseObject, error) {
	write, err := s.batches.BatchCustomsPDF(ctx, callerOf(ctx), req.Id)
	if errors.Is(err, shipping.ErrLabelPending) {
		return gen.GetBatchCustomsPDF202JSONResponse{
			Body:    errorBody(ctx, "label_pending", "some labels of the batch are not ready yet; retry in a few seconds"),
			Headers: gen.GetBatchCustomsPDF202ResponseHeaders{RetryAfter: 2},
		}, nil
	}
	if err != nil {
		return nil, err
	}
	return streamedPDF(write), nil
}

// streamedZPL writes the concatenated ZPL straight to the response.
type streamedZPL func(io.Writer) error

func (f streamedZPL) VisitGetBatchLabelsZPLResponse(w http.ResponseWriter) error {
	w.Header().Set("Content-Type", "application/zpl")
	w.WriteHeader(http.StatusOK)
	return f(w)
}

// batchFormatProblem answers a batch's document asked for in another
// format than its labels' with 409 label_format_mismatch, naming the
// batch's format and, when it has one, its merged document's URL.
func (s *Server) batchFormatProblem(ctx context.Context, err error) error {
	var fe *batches.BatchFormatError
	if !errors.As(err, &fe) {
		return err
	}
	e := newAPIError(http.StatusConflict, "label_format_mismatch", fe.Error())
	f := gen.LabelFormat(fe.Format)
	e.Body.LabelFormat = &f
	if u := batchLabelsURL(s.base(ctx), fe.BatchID, string(fe.Format)); u != nil {
		e.Body.LabelUrl = u
	}
	return e
}

// batchLabelsURL is the batch's merged document: labels.pdf or labels.zpl;
// nil for PNG labels, which are not merged.
func batchLabelsURL(publicURL, id, format string) *string {
	switch format {
	case "", string(carriers.LabelPDF), string(carriers.LabelZPL):
		u := strings.TrimRight(publicURL, "/") + BasePath + "/batches/" + id + "/labels." + cmp.Or(format, "pdf")
		return &u
	}
	return nil
}

// streamedPDF writes the document straight to the response as it is
// merged: its length is not known before, and nothing holds it whole. An
// error after the first byte can only cut the response short.
type streamedPDF func(io.Writer) error

func (f streamedPDF) VisitGetBatchLabelsPDFResponse(w http.ResponseWriter) error {
	w.Header().Set("Content-Type", "application/pdf")
	w.WriteHeader(http.StatusOK)
	return f(w)
}

func (f streamedPDF) VisitGetBatchCustomsPDFResponse(w http.ResponseWriter) error {
	return f.VisitGetBatchLabelsPDFResponse(w)
}

// BatchEventData renders a batch as event data (batch.completed): exactly
// what GET /batches/{id} returns. The wiring gives it to the shipping service.
func BatchEventData(publicURL string) batches.BatchEncoder {
	return func(b batches.Batch) (json.RawMessage, error) {
		return json.Marshal(batchView(publicURL, b))
	}
}

func (s *Server) batch(ctx context.Context, b batches.Batch) gen.Batch {
	return batchView(s.base(ctx), b)
}

func batchView(publicURL string, b batches.Batch) gen.Batch {
	v := gen.Batch{
		Id: b.ID, Mode: gen.Mode(b.Mode), Status: gen.BatchStatus(b.Status), CreatedAt: b.CreatedAt, CompletedAt: b.CompletedAt,
		LabelFormat: gen.LabelFormat(b.LabelFormat),
		Counts: gen.BatchCounts{Total: b.Counts.Total, Paying: b.Counts.Paying, Pending: b.Counts.Pending,
			Purchased: b.Counts.Purchased, Failed: b.Counts.Failed},
	}
	if b.HasLabels() {
		// A batch completed without a label has no document to point at.
		v.LabelsUrl = batchLabelsURL(publicURL, b.ID, b.LabelFormat)
	}
	if b.CustomsItems > 0 {
		u := strings.TrimRight(publicURL, "/") + BasePath + "/batches/" + b.ID + "/customs.pdf"
		v.CustomsUrl = &u
	}
	v.Object = gen.BatchObjectBatch
	return v
}

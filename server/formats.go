package server

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/gen"
	"github.com/shipd-dev/shipd/shipping"
)

// labelURL is where a label's document is served: label.pdf, label.png or
// label.zpl as the format it was bought in.
func labelURL(publicURL, id string, f carriers.LabelFormat) string {
	if f == "" {
		f = carriers.LabelPDF
	}
	return strings.TrimRight(publicURL, "/") + BasePath + "/labels/" + id + "/label." + string(f)
}

// labelFormatInput is the create's format and size as the domain takes them.
func labelFormatInput(f *gen.LabelFormat, size *gen.LabelSize) (carriers.LabelFormat, carriers.LabelSize) {
	var out carriers.LabelFormat
	var outSize carriers.LabelSize
	if f != nil {
		out = carriers.LabelFormat(*f)
	}
	if size != nil {
		outSize = carriers.LabelSize(*size)
	}
	return out, outSize
}

// labelFormatProblem answers a document asked for in another format than
// its label's with 409 label_format_mismatch, naming the format the label
// was bought in and its URL; other errors pass.
func (s *Server) labelFormatProblem(ctx context.Context, err error) error {
	var fe *shipping.LabelFormatError
	if !errors.As(err, &fe) {
		return err
	}
	e := newAPIError(http.StatusConflict, "label_format_mismatch", fe.Error())
	f, u := gen.LabelFormat(fe.Format), labelURL(s.base(ctx), fe.ShipmentID, fe.Format)
	e.Body.LabelFormat, e.Body.LabelUrl = &f, &u
	return e
}

// GetLabelPNG serves a PNG label's document; 202 label_pending while the purchase runs.
func (s *Server) GetLabelPNG(ctx context.Context, req gen.GetLabelPNGRequestObject) (gen.GetLabelPNGResponseObject, error) {
	data, err := s.shipping.LabelDocumentIn(ctx, callerOf(ctx), req.Id, carriers.LabelPNG)
	if errors.Is(err, shipping.ErrLabelPending) {
		return gen.GetLabelPNG202JSONResponse{
			Body:    errorBody(ctx, "label_pending", err.Error()),
			Headers: gen.GetLabelPNG202ResponseHeaders{RetryAfter: 2},
		}, nil
	}
	if err != nil {
		return nil, s.labelFormatProblem(ctx, err)
	}
	return gen.GetLabelPNG200ImagepngResponse{Body: bytes.NewReader(data), ContentLength: int64(len(data))}, nil
}

// GetLabelZPL serves a ZPL label's document; 202 label_pending while the purchase runs.
func (s *Server) GetLabelZPL(ctx context.Context, req gen.GetLabelZPLRequestObject) (gen.GetLabelZPLResponseObject, error) {
	data, err := s.shipping.LabelDocumentIn(ctx, callerOf(ctx), req.Id, carriers.LabelZPL)
	if errors.Is(err, shipping.ErrLabelPending) {
		return gen.GetLabelZPL202JSONResponse{
			Body:    errorBody(ctx, "label_pending", err.Error()),
			Headers: gen.GetLabelZPL202ResponseHeaders{RetryAfter: 2},
		}, nil
	}
	if err != nil {
		return nil, s.labelFormatProblem(ctx, err)
	}
	return gen.GetLabelZPL200ApplicationzplResponse{Body: bytes.NewReader(data), ContentLength: int64(len(data))}, nil
}

// GetCustomsPDF serves an international label's customs document; 202
// label_pending while the purchase runs, 404 for a domestic shipment.
func (s *Server) GetCustomsPDF(ctx context.Context, req gen.GetCustomsPDFRequestObject) (gen.GetCustomsPDFResponseObject, error) {
	data, err := s.customs.CustomsDocument(ctx, callerOf(ctx), req.Id)
	if errors.Is(err, shipping.ErrLabelPending) {
		return gen.GetCustomsPDF202JSONResponse{
			Body:    errorBody(ctx, "label_pending", err.Error()),
			Headers: gen.GetCustomsPDF202ResponseHeaders{RetryAfter: 2},
		}, nil
	}
	if err != nil {
		return nil, err
	}
	return gen.GetCustomsPDF200ApplicationpdfResponse{Body: bytes.NewReader(data), ContentLength: int64(len(data))}, nil
}

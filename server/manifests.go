package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/shipd-dev/shipd/gen"
	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/shipping/manifests"
)

// CreateManifest puts labels on a manifest: 202 with it creating.
func (s *Server) CreateManifest(ctx context.Context, req gen.CreateManifestRequestObject) (gen.CreateManifestResponseObject, error) {
	b := req.Body
	in := manifests.NewManifest{Carrier: b.Carrier, CarrierAccountID: b.CarrierAccountId, IdempotencyKey: deref(b.IdempotencyKey), RequestFingerprint: requestFingerprint(ctx)}
	if b.ShipmentIds != nil {
		in.ShipmentIDs = *b.ShipmentIds
	}
	if b.FromAddress != nil {
		from := addressInput(*b.FromAddress)
		in.From = &from
	}
	m, replayed, err := s.manifests.CreateManifest(ctx, callerOf(ctx), in)
	if err != nil {
		return nil, err
	}
	markReplayed(ctx, replayed)
	return gen.CreateManifest202JSONResponse(s.manifest(ctx, m)), nil
}

// GetManifest reads one manifest.
func (s *Server) GetManifest(ctx context.Context, req gen.GetManifestRequestObject) (gen.GetManifestResponseObject, error) {
	m, err := s.manifests.GetManifest(ctx, callerOf(ctx), req.Id)
	if err != nil {
		return nil, err
	}
	return gen.GetManifest200JSONResponse(s.manifest(ctx, m)), nil
}

// ListManifests pages through manifests, newest first.
func (s *Server) ListManifests(ctx context.Context, req gen.ListManifestsRequestObject) (gen.ListManifestsResponseObject, error) {
	page, err := paging.Decode(req.Params.Cursor, req.Params.Limit)
	if err != nil {
		return nil, err
	}
	rows, more, err := s.manifests.ListManifests(ctx, callerOf(ctx), page)
	if err != nil {
		return nil, err
	}
	out := gen.ManifestList{Data: make([]gen.Manifest, len(rows)), NextCursor: nextCursor(rows, more, func(m manifests.Manifest) string { return m.ID })}
	for i, m := range rows {
		out.Data[i] = s.manifest(ctx, m)
	}
	return gen.ListManifests200JSONResponse(out), nil
}

// GetManifestForm serves the manifest's form; 202 label_pending while it is creating.
func (s *Server) GetManifestForm(ctx context.Context, req gen.GetManifestFormRequestObject) (gen.GetManifestFormResponseObject, error) {
	data, err := s.manifests.ManifestForm(ctx, callerOf(ctx), req.Id)
	if errors.Is(err, manifests.ErrManifestPending) {
		return gen.GetManifestForm202JSONResponse{
			Body:    errorBody(ctx, "label_pending", err.Error()),
			Headers: gen.GetManifestForm202ResponseHeaders{RetryAfter: 2},
		}, nil
	}
	if err != nil {
		return nil, err
	}
	return gen.GetManifestForm200ApplicationpdfResponse{Body: bytes.NewReader(data), ContentLength: int64(len(data))}, nil
}

// ManifestEventData renders a manifest as event data (manifest.created,
// manifest.failed): exactly what GET /manifests/{id} returns.
func ManifestEventData(publicURL string) manifests.ManifestEncoder {
	return func(m manifests.Manifest) (json.RawMessage, error) {
		return json.Marshal(manifestView(publicURL, m))
	}
}

func (s *Server) manifest(ctx context.Context, m manifests.Manifest) gen.Manifest {
	return manifestView(s.base(ctx), m)
}

func manifestView(publicURL string, m manifests.Manifest) gen.Manifest {
	from := addressView(m.From)
	v := gen.Manifest{Id: m.ID, Mode: gen.Mode(m.Mode), Carrier: m.Carrier, Status: gen.ManifestStatus(m.Status),
		ShipmentIds: m.ShipmentIDs, FromAddress: &from, FormNumber: m.FormNumber, ErrorMessage: m.ErrorMessage,
		CreatedAt: m.CreatedAt, CompletedAt: m.CompletedAt, CarrierAccountId: m.CarrierAccountID}
	if v.ShipmentIds == nil {
		v.ShipmentIds = []string{}
	}
	if m.HasForm {
		u := strings.TrimRight(publicURL, "/") + BasePath + "/manifests/" + m.ID + "/form.pdf"
		v.FormUrl = &u
	}
	v.Object = gen.ManifestObjectManifest
	return v
}

package server

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/shipd-dev/shipd/gen"
	"github.com/shipd-dev/shipd/store"
)

// apiVersion is the version every event carries (VARIANTS.md: Variant B).
const apiVersion = "v1"

// recordEvent stores an event in the transaction that made the change it
// reports, so an event exists exactly when its change does.
func (s *Server) recordEvent(ctx context.Context, tx *sqlx.Tx, accountID, mode, eventType string, data any) (store.Event, error) {
	raw, err := json.Marshal(data)
	if err != nil {
		return store.Event{}, fmt.Errorf("event data: %w", err)
	}
	ev := store.Event{
		ID: store.NewID("evt"), AccountID: accountID, Mode: mode, Type: eventType,
		APIVersion: apiVersion, CreatedAt: s.now(), Data: string(raw),
	}
	if err := store.InsertEvent(ctx, tx, &ev); err != nil {
		return store.Event{}, fmt.Errorf("record %s: %w", eventType, err)
	}
	if err := s.enqueueDeliveries(ctx, tx, ev); err != nil {
		return store.Event{}, fmt.Errorf("deliveries of %s: %w", eventType, err)
	}
	return ev, nil
}

// ListEvents pages through the event history, newest first, each event with
// the count of its deliveries by status (one grouped query per page).
func (s *Server) ListEvents(ctx context.Context, req gen.ListEventsRequestObject) (gen.ListEventsResponseObject, error) {
	page, perr, err := s.pageOf(ctx, store.ListingEvents, req.Params.Cursor, req.Params.Limit)
	if err != nil {
		return nil, err
	}
	if perr != nil {
		return gen.ListEvents422JSONResponse{UnprocessableEntityJSONResponse: gen.UnprocessableEntityJSONResponse{Body: bodyOf(ctx, perr)}}, nil
	}
	p := principalFrom(ctx)
	rows, next, err := s.store.ListEvents(ctx, p.AccountID, p.Mode, deref(req.Params.Type), page)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(rows))
	for i, ev := range rows {
		ids[i] = ev.ID
	}
	summaries, err := store.DeliverySummaries(ctx, s.store.R, ids)
	if err != nil {
		return nil, err
	}
	out := gen.EventList{Data: make([]gen.EventRecord, len(rows)), NextCursor: nextCursor(rows, next, func(e store.Event) string { return e.ID })}
	for i, ev := range rows {
		var data map[string]any
		if err := json.Unmarshal([]byte(ev.Data), &data); err != nil {
			return nil, fmt.Errorf("event %s data: %w", ev.ID, err)
		}
		sum := summaries[ev.ID]
		out.Data[i] = gen.EventRecord{
			Id: ev.ID, Type: ev.Type, ApiVersion: ev.APIVersion, CreatedAt: ev.CreatedAt, Data: data,
			Deliveries: gen.DeliverySummary{Total: sum.Total, Pending: sum.Pending, Delivered: sum.Delivered, Failed: sum.Failed},
		}
	}
	return gen.ListEvents200JSONResponse(out), nil
}

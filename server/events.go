package server

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/shipd-dev/shipd/gen"
	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/webhooks"
)

// ListEvents pages through the event history, newest first, each event with
// the count of its deliveries by status.
func (s *Server) ListEvents(ctx context.Context, req gen.ListEventsRequestObject) (gen.ListEventsResponseObject, error) {
	page, err := paging.Decode(req.Params.Cursor, req.Params.Limit)
	if err != nil {
		return nil, err
	}
	rows, more, err := s.webhooks.ListEvents(ctx, callerOf(ctx), deref(req.Params.Type), page)
	if err != nil {
		return nil, err
	}
	out := gen.EventList{Data: make([]gen.EventRecord, len(rows)), NextCursor: nextCursor(rows, more, func(e webhooks.Event) string { return e.ID })}
	for i, ev := range rows {
		var data map[string]any
		if err := json.Unmarshal(ev.Data, &data); err != nil {
			return nil, fmt.Errorf("event %s data: %w", ev.ID, err)
		}
		sum := ev.Deliveries
		out.Data[i] = gen.EventRecord{
			Id: ev.ID, Type: ev.Type, ApiVersion: ev.APIVersion, CreatedAt: ev.CreatedAt, Data: data,
			Deliveries: gen.DeliverySummary{Total: sum.Total, Pending: sum.Pending, Delivered: sum.Delivered, Failed: sum.Failed},
		}
	}
	return gen.ListEvents200JSONResponse(out), nil
}

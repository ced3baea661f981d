package server

import (
	"context"

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
	rows, more, err := s.webhooks.ListEvents(ctx, callerOf(ctx), req.Params.Type, page)
	if err != nil {
		return nil, err
	}
	out := gen.EventList{Data: make([]gen.EventRecord, len(rows)), NextCursor: nextCursor(rows, more, func(e webhooks.Event) string { return e.ID })}
	for i, ev := range rows {
		if out.Data[i], err = eventView(ev); err != nil {
			return nil, err
		}
	}
	return gen.ListEvents200JSONResponse(out), nil
}

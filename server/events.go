package server

import (
	"context"
	"net/http"
	"slices"

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
	eventType, err := eventTypeFilter(req.Params.Type)
	if err != nil {
		return nil, err
	}
	rows, more, err := s.webhooks.ListEvents(ctx, callerOf(ctx), eventType, page)
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

// eventTypeFilter checks ?type= against the types the history holds. The
// contract cannot list them as an enum without making each new event type a
// change of the parameter, so the check is here; an unknown value is refused
// as the schema refuses an unknown value of any other list filter (422
// invalid_field), not answered with an empty page that looks like "no events",
// and it names the known types, as the webhooks endpoints do.
func eventTypeFilter(t *string) (string, error) {
	if t == nil {
		return "", nil
	}
	known := webhooks.EventTypes()
	if slices.Contains(known, *t) {
		return *t, nil
	}
	e := newAPIError(http.StatusUnprocessableEntity, "invalid_field", "type is not an event type; knownEvents lists them").withField("type")
	e.Body.KnownEvents = &known
	return "", e
}

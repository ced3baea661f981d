package ui

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/webhooks"
)

// The events page: the event history of the mode looked at, newest first,
// filtered by type, each event with its deliveries counted.

type eventsPage struct {
	Events     []eventRow
	EventTypes []string
	Type       string
	More       bool
	Next       url.Values
}

// eventRow is an event and the shipment it is about, when it is about one.
type eventRow struct {
	webhooks.Event
	ShipmentID, ShipmentStatus string
}

const eventsPerPage = 25

func (u *UI) eventsPage(w http.ResponseWriter, r *http.Request, c accounts.Caller) error {
	page := eventsPage{EventTypes: webhooks.EventTypes(), Type: r.URL.Query().Get("type")}
	problem := ""
	p, err := pageRequest(r, eventsPerPage)
	if err != nil {
		return err
	}
	var filter *string
	if page.Type != "" {
		filter = &page.Type
	}
	events, more, err := u.webhooks.ListEvents(r.Context(), c, filter, p)
	var unknown *webhooks.UnknownEventTypeError
	if errors.As(err, &unknown) {
		problem, page.Type = "There is no event type "+unknown.Type+"; showing every type.", ""
		events, more, err = u.webhooks.ListEvents(r.Context(), c, nil, p)
	}
	if err != nil {
		return err
	}
	page.More = more
	for _, ev := range events {
		row := eventRow{Event: ev}
		var shipment struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		}
		if json.Unmarshal(ev.Data, &shipment) == nil {
			row.ShipmentID, row.ShipmentStatus = shipment.ID, shipment.Status
		}
		page.Events = append(page.Events, row)
	}
	if more && len(events) > 0 {
		page.Next = nextPage(r, events[len(events)-1].ID)
	}
	u.render(w, r, http.StatusOK, "events", view{Title: "Events", Section: "events", Caller: &c, Problem: problem, Page: page})
	return nil
}

package ui

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"

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
	if page.Type != "" && !slices.Contains(page.EventTypes, page.Type) {
		problem, page.Type = "There is no event type "+page.Type+"; showing every type.", ""
	}
	p, err := pageRequest(r, eventsPerPage)
	if err != nil {
		return err
	}
	events, more, err := u.webhooks.ListEvents(r.Context(), c, page.Type, p)
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

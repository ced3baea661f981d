package ui

import (
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/carriers"
)

// The trackers page: the trackers of the mode looked at, standalone ones
// (POST /api/v1/trackers) and labels', with their status, filtered by
// status, in pages.

type trackersPage struct {
	Trackers []trackerRow
	Statuses []string
	Status   string
	// First is whether this is the first page (no "First page" link then).
	First bool
	More  bool
	Next  url.Values
	// FirstPage is the query of the first page with the same filter.
	FirstPage url.Values
}

// trackerRow is one tracker as the list shows it: its latest scan only.
type trackerRow struct {
	ID, Carrier, TrackingNumber, Status string
	ShipmentID                          *string
	Latest                              string
	UpdatedAt                           time.Time
}

const trackersPerPage = 25

func (u *UI) trackersPage(w http.ResponseWriter, r *http.Request, c accounts.Caller) error {
	q := r.URL.Query()
	page := trackersPage{Statuses: carriers.Statuses(), Status: q.Get("status"), First: q.Get("after") == ""}
	problem := ""
	if page.Status != "" && !slices.Contains(page.Statuses, page.Status) {
		problem, page.Status = "There is no status "+page.Status+"; showing every status.", ""
	}
	p, err := pageRequest(r, trackersPerPage)
	if err != nil {
		return err
	}
	list, more, err := u.trackers.Trackers(r.Context(), c, page.Status, p)
	if err != nil {
		return err
	}
	for _, t := range list {
		row := trackerRow{ID: t.ID, Carrier: t.Carrier, TrackingNumber: t.TrackingNumber, Status: t.Status,
			ShipmentID: t.ShipmentID, UpdatedAt: t.UpdatedAt}
		if len(t.Events) > 0 {
			row.Latest = t.Events[0].Message
		}
		page.Trackers = append(page.Trackers, row)
	}
	page.More = more
	if more && len(list) > 0 {
		page.Next = nextPage(r, list[len(list)-1].ID)
	}
	page.FirstPage = url.Values{}
	if page.Status != "" {
		page.FirstPage.Set("status", page.Status)
	}
	u.render(w, r, http.StatusOK, "trackers", view{Title: "Trackers", Section: "trackers", Caller: &c, Problem: problem, Page: page})
	return nil
}

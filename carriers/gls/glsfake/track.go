package glsfake

import (
	"net/http"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/carriers/fakekit"
)

// zone is the offset of every event the fake reports, written as Track
// And Trace writes it ("2024-10-07T10:46:14+0200").
var zone = time.FixedZone("CEST", 2*3600)

const eventTime = "2006-01-02T15:04:05-0700"

type event struct {
	code, city, postal, country, description string
	at                                       time.Time
}

// history is what GLS knows of a parcel at its n-th Track And Trace call:
// its data (PREADVICE), then handed over (INTRANSIT: scanned, so no
// longer cancellable), with a driver (INDELIVERY), delivered. Each call
// shows one more step. A cancelled parcel is CANCELED.
func (p *sale) history(n int) (string, []event) {
	t0 := p.SoldAt
	list := []event{{code: "INTIAL.PREADVICE", country: "DE", at: t0,
		description: "The parcel data was entered into the GLS IT system; the parcel was not yet handed over to GLS."}}
	if p.State == fakekit.Voided {
		return "CANCELED", append(list, event{code: "CANCEL.PARCEL", country: "DE", at: t0.Add(time.Hour), description: "The parcel was cancelled."})
	}
	city, postal, country := str(p.consignee, "City"), str(p.consignee, "Zipcode"), str(p.consignee, "CountryCode")
	steps := []struct {
		status string
		e      event
	}{
		{"INTRANSIT", event{code: "INTIAL.NORMAL", country: "DE", at: t0.Add(6 * time.Hour), description: "The parcel was handed over to GLS."}},
		{"INDELIVERY", event{code: "INDELV.DELIVERY", city: city, postal: postal, country: country, at: t0.Add(28 * time.Hour),
			description: "The parcel is expected to be delivered during the day."}},
		{"DELIVERED", event{code: "DELIVD.NORMAL", city: city, postal: postal, country: country, at: t0.Add(31 * time.Hour),
			description: "The parcel has been delivered."}},
	}
	status := "PREADVICE"
	shown := min(max(n-1, 0), len(steps))
	if p.scanned && shown == 0 {
		shown = 1
	}
	for _, st := range steps[:shown] {
		status = st.status
		list = append(list, st.e)
	}
	return status, list
}

// track is GET /track-and-trace-v1/tracking/simple/trackids/{unitnos}: up
// to 10 comma-separated parcel numbers, each answered, newest event first;
// a number the fake did not sell has E_404_01.
func (s *Server) track(w http.ResponseWriter, r *http.Request, _ []byte) {
	numbers := strings.Split(r.PathValue("unitnos"), ",")
	if len(numbers) > 10 {
		fakekit.WriteJSON(w, http.StatusBadRequest, map[string]any{"type": "about:blank", "title": "Bad Request", "status": 400,
			"detail": "Provided references of size is more than allowed limit of 10", "instance": r.URL.Path})
		return
	}
	parcels := []any{}
	for _, n := range numbers {
		var status string
		var events []event
		var statusAt time.Time
		found := s.sales.With(n, func(p *sale) {
			if p.Account != contactOf(r) {
				return
			}
			p.trackCalls++
			if p.trackCalls >= 2 {
				p.scanned = true
			}
			status, events = p.history(p.trackCalls)
		})
		if !found || status == "" {
			parcels = append(parcels, map[string]any{"requested": n, "errorCode": "E_404_01", "errorMessage": "Resource Not Found"})
			continue
		}
		list := make([]any, 0, len(events))
		for i := len(events) - 1; i >= 0; i-- {
			e := events[i]
			statusAt = events[len(events)-1].at
			list = append(list, map[string]string{"code": e.code, "city": e.city, "postalCode": e.postal, "country": e.country,
				"description": e.description, "eventDateTime": e.at.In(zone).Format(eventTime)})
		}
		parcels = append(parcels, map[string]any{"requested": n, "unitno": n, "status": status,
			"statusDateTime": statusAt.In(zone).Format(eventTime), "events": list})
	}
	fakekit.WriteJSON(w, http.StatusOK, map[string]any{"parcels": parcels})
}

// Sale is one parcel the fake created.
type Sale struct {
	ParcelNumber, TrackID string
	Cancelled             bool
}

// Sales lists the parcels created under a ShipmentReference, in the order
// created.
func (s *Server) Sales(reference string) []Sale {
	var out []Sale
	s.sales.Each(func(p *sale) {
		if p.Reference == reference {
			out = append(out, Sale{ParcelNumber: p.TrackingNumber, TrackID: p.trackID, Cancelled: p.State == fakekit.Voided})
		}
	})
	return out
}

// Scan marks a parcel scanned into GLS's network, as a driver's pickup
// does: it can no longer be cancelled.
func (s *Server) Scan(parcelNumber string) bool {
	return s.sales.With(parcelNumber, func(p *sale) { p.scanned = true })
}

// HoldShips makes every shipment answer from now on wait until
// ReleaseShips: the parcels are created (Sales lists them) when the
// request arrives, only the answer is held, as when the client dies
// mid-call.
func (s *Server) HoldShips() { s.Hold(OpShip) }

// ReleaseShips sends the held answers and stops holding.
func (s *Server) ReleaseShips() { s.Release(OpShip) }

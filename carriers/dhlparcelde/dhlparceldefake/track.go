package dhlparceldefake

import (
	"net/http"
	"time"

	"github.com/shipd-dev/shipd/carriers/fakekit"
)

// event is one event of the unified tracking API's answer.
type event struct {
	code, status, description string
	after                     time.Duration
	inDestination             bool
}

// journey is a DHL Paket parcel's: the data sent, the parcel in the
// network, loaded onto the delivery vehicle, delivered. Each tracking call
// shows one more step, so that a poller sees the parcel move.
var journey = []event{
	{code: "pre-transit", status: "The instruction data for this shipment have been provided by the sender to DHL electronically",
		description: "The instruction data for this shipment have been provided by the sender to DHL electronically"},
	{code: "transit", status: "The shipment has been processed in the parcel center", after: 8 * time.Hour,
		description: "The shipment has been processed in the parcel center of origin"},
	{code: "transit", status: "The shipment has been loaded onto the delivery vehicle", after: 26 * time.Hour, inDestination: true,
		description: "The shipment has been loaded onto the delivery vehicle"},
	{code: "delivered", status: "The shipment has been successfully delivered", after: 30 * time.Hour, inDestination: true,
		description: "The shipment has been successfully delivered"},
}

// track is GET /track/shipments?trackingNumber=…: the caller's shipment,
// its events newest first (as DHL lists them) in German local time
// without an offset (as Parcel DE's events come), or 404 for a number it
// never sold, or deleted.
func (s *Server) track(w http.ResponseWriter, r *http.Request, _ []byte) {
	tn := r.URL.Query().Get("trackingNumber")
	var found bool
	var shown []map[string]any
	s.sales.With(tn, func(sh *shipment) {
		if sh.State == fakekit.Voided {
			return
		}
		found = true
		sh.trackCalls++
		n := min(sh.trackCalls, len(journey))
		for _, e := range journey[:n] {
			at := sh.SoldAt.Add(e.after)
			place := map[string]any{"countryCode": "DE", "addressLocality": "Bonn"}
			if e.inDestination {
				place = map[string]any{"countryCode": countryCode(sh.destination), "postalCode": sh.postal, "addressLocality": sh.city}
			}
			shown = append([]map[string]any{{
				"timestamp": germanTime(at), "statusCode": e.code, "status": e.status, "description": e.description,
				"location": map[string]any{"address": place},
			}}, shown...)
		}
	})
	if !found {
		writeJSON(w, http.StatusNotFound, problemJSON, map[string]any{"title": "No result found", "status": 404,
			"detail": "No shipment with given tracking number found.", "instance": "/shipment/" + tn})
		return
	}
	writeJSON(w, http.StatusOK, plainJSON, map[string]any{"shipments": []any{map[string]any{
		"id": tn, "service": "parcel-de", "status": shown[0], "events": shown,
	}}})
}

// germanTime is t as Parcel DE's events write it: German local time,
// without an offset.
func germanTime(t time.Time) string {
	offset := time.Hour
	if isSummer(t) {
		offset = 2 * time.Hour
	}
	return t.UTC().Add(offset).Format("2006-01-02T15:04:05")
}

func isSummer(t time.Time) bool {
	t = t.UTC()
	start := lastSunday(t.Year(), time.March).Add(time.Hour)
	end := lastSunday(t.Year(), time.October).Add(time.Hour)
	return !t.Before(start) && t.Before(end)
}

// countryCode is a three-letter country's two letters, for the events'
// places ("DE" for an unknown one).
func countryCode(iso3 string) string {
	codes := map[string]string{"DEU": "DE", "AUT": "AT", "FRA": "FR", "NLD": "NL", "CHE": "CH", "GBR": "GB", "USA": "US", "BEL": "BE",
		"ITA": "IT", "ESP": "ES", "POL": "PL", "DNK": "DK"}
	if c, ok := codes[iso3]; ok {
		return c
	}
	return "DE"
}

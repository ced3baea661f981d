package dhlparcelde

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/carriers"
)

// Track asks DHL's unified Shipment Tracking API about one shipment (GET
// /track/shipments, the API key alone), as the Parcel DE service
// ("service=parcel-de": a number of another DHL division is not
// resolved to it). A number DHL does not know yet is StatusUnknown, not an
// error: a label reaches the tracking system some time after its order.
func (c *Carrier) Track(ctx context.Context, trackingNumber string) (carriers.TrackingUpdate, error) {
	tn := carriers.NormalizeTrackingNumber(trackingNumber)
	if tn == "" {
		return carriers.TrackingUpdate{}, rejected(opTrack, "no tracking number to track")
	}
	a, err := c.do(ctx, apiRequest{op: opTrack, method: http.MethodGet, path: trackPath, auth: authKey,
		query: url.Values{"trackingNumber": {tn}, "service": {"parcel-de"}, "language": {"en"}}})
	if err != nil {
		return carriers.TrackingUpdate{}, c.scrub(err)
	}
	if a.status == http.StatusNotFound {
		return carriers.TrackingUpdate{Status: carriers.StatusUnknown}, nil
	}
	if !a.ok() {
		return carriers.TrackingUpdate{}, c.scrub(c.failure(opTrack, a))
	}
	up, err := parseTrackAnswer(a.status, a.body, tn)
	return up, c.scrub(err)
}

// supermodelIoLogisticsTrackingShipments, as far as shipd reads it.
type trackAnswer struct {
	Shipments []trackShipment `json:"shipments"`
}

type trackShipment struct {
	ID                      string       `json:"id"`
	Status                  *trackEvent  `json:"status"`
	EstimatedTimeOfDelivery string       `json:"estimatedTimeOfDelivery"`
	Events                  []trackEvent `json:"events"`
}

type trackEvent struct {
	Timestamp  string `json:"timestamp"`
	StatusCode string `json:"statusCode"`
	Status     string `json:"status"`
	Desc       string `json:"description"`
	Location   *struct {
		Address *struct {
			CountryCode     string `json:"countryCode"`
			PostalCode      string `json:"postalCode"`
			AddressLocality string `json:"addressLocality"`
		} `json:"address"`
	} `json:"location"`
}

// parseTrackAnswer reads a tracking answer: the shipment of tn (or the
// only one), its events oldest first, each mapped to shipd's statuses
// (trackstatus.go), and the status, the latest event's. An event without
// a time shipd can read is a malformed answer.
func parseTrackAnswer(httpStatus int, body []byte, tn string) (carriers.TrackingUpdate, error) {
	var r trackAnswer
	if err := json.Unmarshal(body, &r); err != nil {
		return carriers.TrackingUpdate{}, malformed(opTrack, httpStatus, "the tracking answer is not the documented JSON: %v", err)
	}
	if len(r.Shipments) == 0 {
		return carriers.TrackingUpdate{Status: carriers.StatusUnknown}, nil
	}
	sh := r.Shipments[0]
	for _, s := range r.Shipments {
		if carriers.NormalizeTrackingNumber(s.ID) == tn {
			sh = s
			break
		}
	}
	var up carriers.TrackingUpdate
	for _, e := range sh.Events {
		at, ok := parseTime(e.Timestamp)
		if !ok || !carriers.PlausibleScanTime(at) {
			return carriers.TrackingUpdate{}, malformed(opTrack, httpStatus, "an event of %s has no readable timestamp (%q)", tn, carriers.Excerpt(e.Timestamp))
		}
		up.Events = append(up.Events, carriers.TrackingEvent{Status: statusOf(e), Message: carriers.Excerpt(e.message()),
			Location: carriers.Excerpt(e.location()), OccurredAt: at, CarrierCode: carriers.Excerpt(e.StatusCode)})
	}
	// DHL lists the newest event first; shipd keeps them oldest first.
	sort.SliceStable(up.Events, func(i, j int) bool { return up.Events[i].OccurredAt.Before(up.Events[j].OccurredAt) })
	switch {
	case sh.Status != nil && (sh.Status.StatusCode != "" || sh.Status.Status != ""):
		up.Status = statusOf(*sh.Status)
	case len(up.Events) > 0:
		up.Status = up.Events[len(up.Events)-1].Status
	default:
		up.Status = carriers.StatusUnknown
	}
	if eta, ok := parseTime(sh.EstimatedTimeOfDelivery); ok && carriers.PlausibleScanTime(eta) {
		up.EstimatedDeliveryAt = &eta
	}
	return up, nil
}

func (e trackEvent) message() string {
	if d := strings.TrimSpace(e.Desc); d != "" {
		return d
	}
	return strings.TrimSpace(e.Status)
}

func (e trackEvent) location() string {
	if e.Location == nil || e.Location.Address == nil {
		return ""
	}
	a := e.Location.Address
	var parts []string
	for _, p := range []string{a.AddressLocality, a.CountryCode} {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ", ")
}

// parseTime reads a tracking timestamp: RFC 3339, or a local date and
// time without an offset (Parcel DE's events; German time), or a date.
func parseTime(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, false
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, true
	}
	for _, layout := range []string{"2006-01-02T15:04:05", "2006-01-02T15:04", time.DateOnly} {
		if t, err := time.Parse(layout, s); err == nil {
			// The offset of Germany at that moment (an hour off at most
			// around the change of time, which changes no date).
			return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), 0, berlin(t)), true
		}
	}
	return time.Time{}, false
}

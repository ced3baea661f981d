package usps

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/carriers"
)

const trackingPath = "/tracking/v3r2/tracking"

type trackingRequestItem struct {
	TrackingNumber string `json:"trackingNumber"`
}

// trackingDetail is the part of TrackingDetail (and of a FailureResponse in
// a 207 answer, which shares trackingNumber and statusCode) that is read.
type trackingDetail struct {
	StatusCode              flexString `json:"statusCode"`
	TrackingNumber          string     `json:"trackingNumber"`
	StatusCategory          string     `json:"statusCategory"`
	DeliveryDateExpectation *struct {
		ExpectedDeliveryDate  string `json:"expectedDeliveryDate"`
		PredictedDeliveryDate string `json:"predictedDeliveryDate"`
	} `json:"deliveryDateExpectation"`
	TrackingEvents []trackingEvent `json:"trackingEvents"`
}

type trackingEvent struct {
	EventType      string `json:"eventType"`
	EventCode      string `json:"eventCode"`
	EventTimestamp string `json:"eventTimestamp"`
	GMTTimestamp   string `json:"GMTTimestamp"`
	GMTOffset      string `json:"GMTOffset"`
	EventCity      string `json:"eventCity"`
	EventState     string `json:"eventState"`
	EventCountry   string `json:"eventCountry"`
}

// Track asks Tracking 3.0 about one tracking number. A number USPS does not
// know yet (labels reach the tracking system some time after purchase) is
// StatusUnknown without events, not an error.
func (c *Carrier) Track(ctx context.Context, trackingNumber string) (carriers.TrackingUpdate, error) {
	tn := strings.TrimSpace(trackingNumber)
	if tn == "" {
		return carriers.TrackingUpdate{}, &carriers.Error{Carrier: CarrierName, Operation: opTrack, Message: "no tracking number", Kind: carriers.ErrRejected}
	}
	a, err := c.send(ctx, request{op: opTrack, method: http.MethodPost, path: trackingPath,
		body: []trackingRequestItem{{TrackingNumber: tn}}})
	if err != nil {
		return carriers.TrackingUpdate{}, err
	}
	switch {
	case a.status == http.StatusNotFound:
		return carriers.TrackingUpdate{Status: carriers.StatusUnknown}, nil
	case !a.ok():
		return carriers.TrackingUpdate{}, statusError(opTrack, a, c.now())
	}
	return parseTracking(a.body, tn)
}

// parseTracking reads a 200 or 207 answer: an array of details, one per
// number asked (older answers are a single detail object). In a 207 answer a
// number USPS does not know is an item with statusCode 404.
func parseTracking(body []byte, trackingNumber string) (carriers.TrackingUpdate, error) {
	var details []trackingDetail
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '{' {
		var d trackingDetail
		if err := decodeJSON(trimmed, &d); err != nil {
			return carriers.TrackingUpdate{}, failed(opTrack, http.StatusOK, "the tracking answer does not parse: %v", err)
		}
		details = []trackingDetail{d}
	} else if err := decodeJSON(trimmed, &details); err != nil {
		return carriers.TrackingUpdate{}, failed(opTrack, http.StatusOK, "the tracking answer does not parse: %v", err)
	}
	var d *trackingDetail
	for i := range details {
		if strings.EqualFold(strings.TrimSpace(details[i].TrackingNumber), trackingNumber) {
			d = &details[i]
			break
		}
	}
	if d == nil && len(details) == 1 {
		d = &details[0]
	}
	if d == nil {
		return carriers.TrackingUpdate{}, failed(opTrack, http.StatusOK, "the tracking answer says nothing about %s", trackingNumber)
	}
	if code := string(d.StatusCode); code != "" && code != "200" {
		if code == "404" {
			return carriers.TrackingUpdate{Status: carriers.StatusUnknown}, nil
		}
		return carriers.TrackingUpdate{}, failed(opTrack, http.StatusOK, "USPS answered status %s for %s", carriers.Excerpt(code), trackingNumber)
	}

	// USPS lists events newest first; reversed, a stable sort by time
	// keeps scans with the same time in the order they happened.
	events := make([]carriers.TrackingEvent, 0, len(d.TrackingEvents))
	for i := len(d.TrackingEvents) - 1; i >= 0; i-- {
		ev := d.TrackingEvents[i]
		at, err := eventTime(ev)
		if err != nil {
			return carriers.TrackingUpdate{}, failed(opTrack, http.StatusOK, "event %q: %v", ev.EventType, err)
		}
		events = append(events, carriers.TrackingEvent{
			Status:      eventStatus(ev.EventCode),
			Message:     carriers.Excerpt(ev.EventType),
			Location:    location(ev.EventCity, ev.EventState, ev.EventCountry),
			OccurredAt:  at,
			CarrierCode: strings.TrimSpace(ev.EventCode),
		})
	}
	sort.SliceStable(events, func(i, j int) bool { return events[i].OccurredAt.Before(events[j].OccurredAt) })

	u := carriers.TrackingUpdate{Status: carriers.StatusUnknown, Events: events}
	if n := len(events); n > 0 {
		u.Status = events[n-1].Status
	}
	if u.Status == carriers.StatusUnknown {
		u.Status = categoryStatus(d.StatusCategory)
	}
	if e := d.DeliveryDateExpectation; e != nil {
		for _, s := range []string{e.ExpectedDeliveryDate, e.PredictedDeliveryDate} {
			// A calendar date without a zone: kept as that date at
			// midnight UTC.
			if t, err := time.Parse(time.DateOnly, strings.TrimSpace(s)); err == nil {
				u.EstimatedDeliveryAt = &t
				break
			}
		}
	}
	return u, nil
}

// eventTime reads when a scan happened. GMTTimestamp is exact; eventTimestamp
// is local time, with an offset or, when it has none, with GMTOffset
// ("-7:00") beside it; a date alone is that date.
func eventTime(ev trackingEvent) (time.Time, error) {
	if s := strings.TrimSpace(ev.GMTTimestamp); s != "" {
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil && carriers.PlausibleScanTime(t) {
			return t, nil
		}
	}
	s := strings.TrimSpace(ev.EventTimestamp)
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil && carriers.PlausibleScanTime(t) {
		return t, nil
	}
	loc := time.UTC
	if off, ok := parseOffset(ev.GMTOffset); ok {
		loc = time.FixedZone("", off)
	}
	for _, layout := range []string{"2006-01-02T15:04:05", "2006-01-02T15:04", time.DateOnly} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil && carriers.PlausibleScanTime(t) {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("unreadable time %q", carriers.Excerpt(s))
}

// parseOffset reads "-7:00", "+05:30" or "-0700" into seconds east of UTC.
func parseOffset(s string) (int, bool) {
	s = strings.TrimSpace(s)
	if len(s) < 2 || (s[0] != '+' && s[0] != '-') {
		return 0, false
	}
	sign := 1
	if s[0] == '-' {
		sign = -1
	}
	h, m, found := strings.Cut(s[1:], ":")
	if !found && len(h) == 4 {
		h, m = h[:2], h[2:]
	}
	hours, err := strconv.Atoi(h)
	if err != nil || hours < 0 || hours > 14 {
		return 0, false
	}
	mins := 0
	if m != "" {
		if mins, err = strconv.Atoi(m); err != nil || mins < 0 || mins > 59 {
			return 0, false
		}
	}
	return sign * (hours*3600 + mins*60), true
}

// location is "City, ST", with the country added when it is not the US.
func location(city, state, country string) string {
	var parts []string
	for _, p := range []string{city, state} {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
		}
	}
	if country = strings.TrimSpace(country); country != "" {
		switch strings.ToUpper(country) {
		case "US", "USA", "UNITED STATES", "UNITED STATES OF AMERICA":
		default:
			parts = append(parts, country)
		}
	}
	return strings.Join(parts, ", ")
}

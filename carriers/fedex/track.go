package fedex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/carriers"
)

// trackPath is the Track API v1 track-by-tracking-number endpoint.
const trackPath = "/track/v1/trackingnumbers"

// codeNotFound is FedEx's answer for a number it does not know (yet):
// labels reach the tracking system some time after purchase.
const codeNotFound = "TRACKING.TRACKINGNUMBER.NOTFOUND"

// trackRequest is the Track by Tracking Number body (Full_Schema_Tracking_Numbers).
type trackRequest struct {
	IncludeDetailedScans bool        `json:"includeDetailedScans"`
	TrackingInfo         []trackInfo `json:"trackingInfo"`
}

type trackInfo struct {
	TrackingNumberInfo struct {
		TrackingNumber string `json:"trackingNumber"`
	} `json:"trackingNumberInfo"`
}

// Track asks FedEx for the scans of one tracking number.
func (c *Carrier) Track(ctx context.Context, trackingNumber string) (carriers.TrackingUpdate, error) {
	tn := strings.TrimSpace(trackingNumber)
	if tn == "" {
		return carriers.TrackingUpdate{}, fmt.Errorf("fedex: track without a tracking number: %w", carriers.ErrRejected)
	}
	var info trackInfo
	info.TrackingNumberInfo.TrackingNumber = tn
	body, err := c.do(ctx, request{op: opTrack, method: http.MethodPost, path: trackPath,
		body: trackRequest{IncludeDetailedScans: true, TrackingInfo: []trackInfo{info}}})
	var ce *carriers.Error
	if errors.As(err, &ce) && ce.Code == codeNotFound {
		return carriers.TrackingUpdate{Status: carriers.StatusUnknown}, nil
	}
	if err != nil {
		return carriers.TrackingUpdate{}, c.scrub(err)
	}
	r, err := decodeTrack(body)
	if err != nil {
		return carriers.TrackingUpdate{}, err
	}
	up, err := r.update(tn, true)
	if err == nil && r.hasPieces(tn) {
		up = c.withPieces(ctx, tn, up)
	}
	return up, c.scrub(err)
}

// MaxTrackBatch is the most tracking numbers FedEx's Track API takes in one
// request (trackingInfo: 1 to 30 entries).
const MaxTrackBatch = 30

// MaxTrackBatch is how many numbers one TrackMany carries (CapTrackMany).
func (c *Carrier) MaxTrackBatch() int { return MaxTrackBatch }

// TrackMany asks FedEx for the scans of up to MaxTrackBatch numbers in one
// request: one call of the Track API's quota instead of one per label.
// Each number's answer (or its own error, as Track gives it) comes back in
// the order of the numbers.
func (c *Carrier) TrackMany(ctx context.Context, trackingNumbers []string) ([]carriers.TrackResult, error) {
	if n := len(trackingNumbers); n == 0 || n > MaxTrackBatch {
		return nil, fmt.Errorf("fedex: track %d numbers in one request, want 1 to %d: %w", n, MaxTrackBatch, carriers.ErrRejected)
	}
	req := trackRequest{IncludeDetailedScans: true}
	tns := make([]string, len(trackingNumbers))
	for i, tn := range trackingNumbers {
		tns[i] = strings.TrimSpace(tn)
		if tns[i] == "" {
			return nil, fmt.Errorf("fedex: track without a tracking number: %w", carriers.ErrRejected)
		}
		var info trackInfo
		info.TrackingNumberInfo.TrackingNumber = tns[i]
		req.TrackingInfo = append(req.TrackingInfo, info)
	}
	body, err := c.do(ctx, request{op: opTrack, method: http.MethodPost, path: trackPath, body: req})
	out := make([]carriers.TrackResult, len(tns))
	var ce *carriers.Error
	if errors.As(err, &ce) && ce.Code == codeNotFound {
		for i := range out {
			out[i].Update.Status = carriers.StatusUnknown
		}
		return out, nil
	}
	if err != nil {
		return nil, c.scrub(err)
	}
	r, err := decodeTrack(body)
	if err != nil {
		return nil, err
	}
	for i, tn := range tns {
		up, err := r.update(tn, false)
		if err == nil && r.hasPieces(tn) {
			up = c.withPieces(ctx, tn, up)
		}
		out[i] = carriers.TrackResult{Update: up, Err: c.scrub(err)}
	}
	return out, nil
}

// trackResponse is the part of the Track API answer (TrkcResponseVO_TrackingNumber) shipd reads.
type trackResponse struct {
	Output *struct {
		CompleteTrackResults []struct {
			TrackingNumber string        `json:"trackingNumber"`
			TrackResults   []trackResult `json:"trackResults"`
		} `json:"completeTrackResults"`
	} `json:"output"`
}

type trackResult struct {
	Error              *apiError `json:"error"`
	LatestStatusDetail *struct {
		Code        string `json:"code"`
		DerivedCode string `json:"derivedCode"`
	} `json:"latestStatusDetail"`
	ScanEvents   []scanEvent `json:"scanEvents"`
	DateAndTimes []struct {
		Type     string `json:"type"`
		DateTime string `json:"dateTime"`
	} `json:"dateAndTimes"`
	EstimatedDeliveryTimeWindow *struct {
		Window *struct {
			Ends string `json:"ends"`
		} `json:"window"`
	} `json:"estimatedDeliveryTimeWindow"`
	AdditionalTrackingInfo *struct {
		HasAssociatedShipments bool `json:"hasAssociatedShipments"`
	} `json:"additionalTrackingInfo"`
}

type scanEvent struct {
	Date                 string        `json:"date"`
	EventType            string        `json:"eventType"`
	EventDescription     string        `json:"eventDescription"`
	ExceptionDescription string        `json:"exceptionDescription"`
	DerivedStatusCode    string        `json:"derivedStatusCode"`
	ScanLocation         *scanLocation `json:"scanLocation"`
}

type scanLocation struct {
	City                string `json:"city"`
	StateOrProvinceCode string `json:"stateOrProvinceCode"`
	CountryCode         string `json:"countryCode"`
}

// parseTrackResponse maps the first track result for the number. FedEx
// reports an unknown number inside a 200 answer (trackResults[].error); a
// not-found-yet number is StatusUnknown without events, any other
// per-number error is a rejection.
func parseTrackResponse(body []byte, trackingNumber string) (carriers.TrackingUpdate, error) {
	r, err := decodeTrack(body)
	if err != nil {
		return carriers.TrackingUpdate{}, err
	}
	return r.update(trackingNumber, true)
}

// decodeTrack decodes a Track API answer.
func decodeTrack(body []byte) (trackResponse, error) {
	var r trackResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return trackResponse{}, malformed(opTrack, "the track answer does not parse: %v", err)
	}
	return r, nil
}

// update maps the answer for one number. orFirst: a request of one number
// takes the first result when none names it; in a batch the number must be
// named, or the answers could be given to the wrong labels.
func (r trackResponse) update(trackingNumber string, orFirst bool) (carriers.TrackingUpdate, error) {
	if r.Output == nil || len(r.Output.CompleteTrackResults) == 0 {
		return carriers.TrackingUpdate{}, malformed(opTrack, "the track answer has no result")
	}
	complete := r.Output.CompleteTrackResults[0]
	found := false
	for _, ctr := range r.Output.CompleteTrackResults {
		if ctr.TrackingNumber == trackingNumber {
			complete, found = ctr, true
			break
		}
	}
	if !found && !orFirst {
		return carriers.TrackingUpdate{}, malformed(opTrack, "the track answer has no result for %s", trackingNumber)
	}
	if len(complete.TrackResults) == 0 {
		return carriers.TrackingUpdate{}, malformed(opTrack, "the track answer has no result for %s", trackingNumber)
	}
	// Several results mean FedEx reused the number; the first is the newest.
	tr := complete.TrackResults[0]
	if tr.Error != nil && (tr.Error.Code != "" || tr.Error.Message != "") {
		if tr.Error.Code == codeNotFound {
			return carriers.TrackingUpdate{Status: carriers.StatusUnknown}, nil
		}
		msg := carriers.Excerpt(tr.Error.Message)
		if msg == "" {
			msg = "FedEx could not track the number"
		}
		return carriers.TrackingUpdate{}, &carriers.Error{Carrier: Name, Operation: opTrack, HTTPStatus: http.StatusOK,
			Kind: carriers.ErrRejected, Code: carriers.Excerpt(tr.Error.Code), Message: msg}
	}

	up := carriers.TrackingUpdate{Status: carriers.StatusUnknown, Events: []carriers.TrackingEvent{}}
	for i, ev := range tr.ScanEvents {
		at, err := parseTime(ev.Date)
		if err != nil {
			return carriers.TrackingUpdate{}, malformed(opTrack, "scan event %d: date: %v", i, err)
		}
		msg := strings.TrimSpace(ev.EventDescription)
		if x := strings.TrimSpace(ev.ExceptionDescription); x != "" && x != msg {
			msg = strings.TrimSpace(msg + ": " + x)
		}
		up.Events = append(up.Events, carriers.TrackingEvent{
			Status:      trackerStatus(ev.EventType, ev.DerivedStatusCode),
			Message:     carriers.Excerpt(msg),
			Location:    ev.ScanLocation.String(),
			OccurredAt:  at,
			CarrierCode: ev.EventType,
		})
	}
	// FedEx lists scans newest first; shipd wants them oldest first. The
	// sort is stable so scans sharing a time keep FedEx's relative order.
	slices.Reverse(up.Events)
	slices.SortStableFunc(up.Events, func(a, b carriers.TrackingEvent) int { return a.OccurredAt.Compare(b.OccurredAt) })

	switch {
	case tr.LatestStatusDetail != nil:
		up.Status = trackerStatus(tr.LatestStatusDetail.Code, tr.LatestStatusDetail.DerivedCode)
	case len(up.Events) > 0:
		up.Status = up.Events[len(up.Events)-1].Status
	}
	if up.Status == carriers.StatusUnknown && len(up.Events) > 0 {
		// A latest status FedEx added after the table was written: the
		// newest mapped scan says more than "unknown".
		up.Status = up.Events[len(up.Events)-1].Status
	}
	if eta, ok := tr.estimatedDelivery(); ok {
		up.EstimatedDeliveryAt = &eta
	}
	return up, nil
}

// estimatedDelivery is dateAndTimes' ESTIMATED_DELIVERY, else the end of
// the estimated delivery window. Unparseable dates are ignored: the
// estimate is optional.
func (tr trackResult) estimatedDelivery() (time.Time, bool) {
	for _, d := range tr.DateAndTimes {
		if d.Type == "ESTIMATED_DELIVERY" {
			if t, err := parseTime(d.DateTime); err == nil {
				return t, true
			}
		}
	}
	if w := tr.EstimatedDeliveryTimeWindow; w != nil && w.Window != nil {
		if t, err := parseTime(w.Window.Ends); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// String writes a scan location as "City, ST", adding the country outside
// the US; nil or empty is "".
func (l *scanLocation) String() string {
	if l == nil {
		return ""
	}
	var parts []string
	for _, p := range []string{l.City, l.StateOrProvinceCode} {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
		}
	}
	if cc := strings.ToUpper(strings.TrimSpace(l.CountryCode)); cc != "" && cc != "US" {
		parts = append(parts, cc)
	}
	return strings.Join(parts, ", ")
}

// timeLayouts are the Track API's date formats: with a UTC offset
// ("2018-02-02T12:01:00-07:00"), without one ("2021-10-01T08:00:00"), and
// date only ("2019-05-07"). A time without an offset is taken as UTC, the
// only zone that can be assumed without knowing the scan's place.
var timeLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02"}

func parseTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, errors.New("missing")
	}
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			if !carriers.PlausibleScanTime(t) {
				return time.Time{}, fmt.Errorf("%q is before 1970", s)
			}
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a FedEx date", s)
}

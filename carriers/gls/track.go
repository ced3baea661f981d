package gls

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/carriers"
)

// MaxTrackBatch is the most parcel numbers Track And Trace V1 takes in one
// call ("with a maximum limit of 10 parcel IDs per request").
const MaxTrackBatch = 10

// parcelNumberForm is what a number must be to go in the path: GLS's
// parcel numbers and TrackIDs are letters and digits (its test parcels,
// QAS_0000001, have an underscore).
var parcelNumberForm = regexp.MustCompile(`^[A-Z0-9_]{1,40}$`)

// codeNotFound is Track And Trace's errorCode of a parcel it does not know
// (E_404_01, "Resource Not Found"): a parcel whose data has not reached
// GLS's tracking yet.
const codeNotFound = "E_404_01"

// trackAnswer is Track And Trace's ParcelsResponseDTO.
type trackAnswer struct {
	Parcels []trackParcel `json:"parcels"`
}

type trackParcel struct {
	Requested      string `json:"requested"`
	UnitNo         string `json:"unitno"`
	Status         string `json:"status"`
	StatusDateTime string `json:"statusDateTime"`
	Events         []struct {
		Code          string `json:"code"`
		City          string `json:"city"`
		PostalCode    string `json:"postalCode"`
		Country       string `json:"country"`
		Description   string `json:"description"`
		EventDateTime string `json:"eventDateTime"`
	} `json:"events"`
	ErrorCode    string `json:"errorCode"`
	ErrorMessage string `json:"errorMessage"`
}

// Track asks Track And Trace V1 for a parcel's status and events
// (GET /track-and-trace-v1/tracking/simple/trackids/{unitnos}).
func (c *Carrier) Track(ctx context.Context, trackingNumber string) (carriers.TrackingUpdate, error) {
	rs, err := c.TrackMany(ctx, []string{trackingNumber})
	if err != nil {
		return carriers.TrackingUpdate{}, err
	}
	return rs[0].Update, rs[0].Err
}

// MaxTrackBatch is how many numbers one TrackMany carries (CapTrackMany).
func (c *Carrier) MaxTrackBatch() int { return MaxTrackBatch }

// TrackMany asks for up to MaxTrackBatch parcels in one call, one of the
// 500 a day Track And Trace allows by default: the numbers go
// comma-separated in the path. Each number's update, or its own error,
// comes back in the order of the numbers; a parcel GLS does not know yet
// is StatusUnknown.
func (c *Carrier) TrackMany(ctx context.Context, trackingNumbers []string) ([]carriers.TrackResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if n := len(trackingNumbers); n == 0 || n > MaxTrackBatch {
		return nil, rejectedTrack("track %d numbers in one call, want 1 to %d", n, MaxTrackBatch)
	}
	tns := make([]string, len(trackingNumbers))
	for i, tn := range trackingNumbers {
		tns[i] = carriers.NormalizeTrackingNumber(tn)
		if !parcelNumberForm.MatchString(tns[i]) {
			return nil, rejectedTrack("%q is not a GLS parcel number", carriers.Excerpt(tn))
		}
	}
	a, err := c.do(ctx, request{op: opTrack, method: http.MethodGet, path: trackPath + strings.Join(tns, ","), plainJSON: true})
	if err != nil {
		return nil, err
	}
	return parseTrack(a.body, tns, a.status, a.redact)
}

// parseTrack reads a tracking answer: each number's update or error, in
// the order of tns.
func parseTrack(body []byte, tns []string, status int, red *carriers.Redactor) ([]carriers.TrackResult, error) {
	var ans trackAnswer
	if err := json.Unmarshal(body, &ans); err != nil {
		return nil, malformed(opTrack, status, "the tracking answer is not the documented JSON: %v", err)
	}
	out := make([]carriers.TrackResult, len(tns))
	for i, tn := range tns {
		up, err := ans.update(tn, status, red)
		out[i] = carriers.TrackResult{Update: up, Err: err}
	}
	return out, nil
}

func rejectedTrack(format string, args ...any) *carriers.Error {
	return &carriers.Error{Carrier: carrierName, Operation: opTrack, Kind: carriers.ErrRejected, Message: fmt.Sprintf(format, args...)}
}

// update is the answer's word on tn: the parcel whose unitno or requested
// number is tn.
func (ans trackAnswer) update(tn string, status int, red *carriers.Redactor) (carriers.TrackingUpdate, error) {
	i := slices.IndexFunc(ans.Parcels, func(p trackParcel) bool {
		return strings.EqualFold(strings.TrimSpace(p.UnitNo), tn) || strings.EqualFold(strings.TrimSpace(p.Requested), tn)
	})
	if i < 0 {
		return carriers.TrackingUpdate{}, malformed(opTrack, status, "the tracking answer has no parcel %s", tn)
	}
	p := ans.Parcels[i]
	if code := strings.TrimSpace(p.ErrorCode); code != "" {
		if code == codeNotFound {
			return carriers.TrackingUpdate{Status: carriers.StatusUnknown}, nil
		}
		return carriers.TrackingUpdate{}, &carriers.Error{Carrier: carrierName, Operation: opTrack, HTTPStatus: status, Kind: carriers.ErrRejected,
			Code: carriers.Excerpt(red.Redact(code)), Message: carriers.Excerpt(red.Redact(strings.TrimSpace(p.ErrorMessage)))}
	}
	up := carriers.TrackingUpdate{Status: parcelStatus(p.Status)}
	for _, e := range p.Events {
		at, err := parseTime(e.EventDateTime)
		if err != nil || !carriers.PlausibleScanTime(at) {
			return carriers.TrackingUpdate{}, malformed(opTrack, status, "an event of parcel %s has no usable eventDateTime", tn)
		}
		var where []string
		for _, part := range []string{e.City, e.PostalCode, e.Country} {
			if part = strings.TrimSpace(part); part != "" {
				where = append(where, part)
			}
		}
		up.Events = append(up.Events, carriers.TrackingEvent{Status: eventStatus(e.Code), Message: carriers.Excerpt(strings.TrimSpace(e.Description)),
			Location: carriers.Excerpt(strings.Join(where, ", ")), OccurredAt: at, CarrierCode: carriers.Excerpt(strings.TrimSpace(e.Code))})
	}
	// GLS lists the newest first; shipd's events are oldest first.
	slices.SortStableFunc(up.Events, func(x, y carriers.TrackingEvent) int { return x.OccurredAt.Compare(y.OccurredAt) })
	if n := len(up.Events); n > 0 {
		// The newest event is where the parcel's status came from.
		if up.Status != carriers.StatusUnknown {
			up.Events[n-1].Status = up.Status
		} else {
			// FINAL (the history closed) or a status shipd does not know:
			// the newest event says where it ended.
			up.Status = up.Events[n-1].Status
		}
	}
	return up, nil
}

// parseTime reads Track And Trace's ISO 8601 times, "2024-10-07T10:46:14+0200"
// (an offset without a colon), or RFC 3339.
func parseTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{"2006-01-02T15:04:05-0700", time.RFC3339, "2006-01-02T15:04:05.999999999-0700"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not an ISO 8601 time", carriers.Excerpt(s))
}

package dhlexpress

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/carriers"
)

// The tracking operations: GET /shipments/{n}/tracking (exp-api-shipments-
// tracking) for one waybill, GET /tracking (exp-api-shipments-tracking-
// multi) for many waybills or pieces at once.
const (
	trackingPath = "/tracking"
)

func shipmentTrackingPath(waybill string) string {
	return "/shipments/" + url.PathEscape(waybill) + "/tracking"
}

// MaxTrackBatch is the most numbers one GET /tracking carries: the
// document takes 200, which would make a query of 7 KB; 100 keep it under
// the 4 KB that every proxy on the way passes.
const MaxTrackBatch = 100

// MaxTrackBatch is how many numbers one TrackMany carries (CapTrackMany).
func (c *Carrier) MaxTrackBatch() int { return MaxTrackBatch }

// isPiece reports whether n is a piece's number (JD and 18 digits), which
// DHL tracks by pieceTrackingNumber, not as a waybill.
func isPiece(n string) bool { return strings.HasPrefix(strings.ToUpper(n), "JD") }

// trackingQuery is what every tracking call asks: every checkpoint, of the
// shipment and of each piece (levelOfDetail all), so that a multi-piece
// shipment's pieces are followed one by one.
func trackingQuery() url.Values {
	return url.Values{"trackingView": {"all-checkpoints"}, "levelOfDetail": {"all"}}
}

// Track asks DHL for the checkpoints of one waybill (or one piece).
func (c *Carrier) Track(ctx context.Context, trackingNumber string) (carriers.TrackingUpdate, error) {
	tn := carriers.NormalizeTrackingNumber(trackingNumber)
	if tn == "" {
		return carriers.TrackingUpdate{}, fmt.Errorf("dhlexpress: track without a tracking number: %w", carriers.ErrRejected)
	}
	r := request{op: opTrack, method: http.MethodGet, path: shipmentTrackingPath(tn), query: trackingQuery()}
	if isPiece(tn) {
		r.path, r.query = trackingPath, trackingQuery()
		r.query.Set("pieceTrackingNumber", tn)
	}
	body, err := c.do(ctx, r)
	if notFound(err) {
		// DHL knows a waybill some time after it is created.
		return carriers.TrackingUpdate{Status: carriers.StatusUnknown}, nil
	}
	if err != nil {
		return carriers.TrackingUpdate{}, c.scrub(err)
	}
	resp, err := decodeTracking(body)
	if err != nil {
		return carriers.TrackingUpdate{}, err
	}
	up, found, err := resp.update(tn)
	if err != nil {
		return carriers.TrackingUpdate{}, c.scrub(err)
	}
	if !found {
		// An answer about other numbers only: DHL does not know this one.
		return carriers.TrackingUpdate{Status: carriers.StatusUnknown}, nil
	}
	return up, nil
}

// TrackMany asks DHL for the checkpoints of up to MaxTrackBatch waybills
// and pieces in one GET /tracking. Each number's answer comes back in the
// order of the numbers; one DHL does not answer (not known yet) is
// StatusUnknown, as Track has it.
func (c *Carrier) TrackMany(ctx context.Context, trackingNumbers []string) ([]carriers.TrackResult, error) {
	if n := len(trackingNumbers); n == 0 || n > MaxTrackBatch {
		return nil, fmt.Errorf("dhlexpress: track %d numbers in one request, want 1 to %d: %w", n, MaxTrackBatch, carriers.ErrRejected)
	}
	q := trackingQuery()
	tns := make([]string, len(trackingNumbers))
	for i, n := range trackingNumbers {
		tns[i] = carriers.NormalizeTrackingNumber(n)
		switch {
		case tns[i] == "":
			return nil, fmt.Errorf("dhlexpress: track without a tracking number: %w", carriers.ErrRejected)
		case isPiece(tns[i]):
			q.Add("pieceTrackingNumber", tns[i])
		default:
			q.Add("shipmentTrackingNumber", tns[i])
		}
	}
	out := make([]carriers.TrackResult, len(tns))
	body, err := c.do(ctx, request{op: opTrack, method: http.MethodGet, path: trackingPath, query: q})
	if notFound(err) {
		for i := range out {
			out[i].Update.Status = carriers.StatusUnknown
		}
		return out, nil
	}
	if err != nil {
		return nil, c.scrub(err)
	}
	resp, err := decodeTracking(body)
	if err != nil {
		return nil, err
	}
	for i, tn := range tns {
		up, found, err := resp.update(tn)
		if !found && err == nil {
			up = carriers.TrackingUpdate{Status: carriers.StatusUnknown}
		}
		out[i] = carriers.TrackResult{Update: up, Err: c.scrub(err)}
	}
	return out, nil
}

// notFound reports whether err is DHL's 404 "no data found".
func notFound(err error) bool {
	var ce *carriers.Error
	return errors.As(err, &ce) && ce.HTTPStatus == http.StatusNotFound
}

// trackingResponse is the part of supermodelIoLogisticsExpressTrackingResponse
// shipd reads.
type trackingResponse struct {
	Shipments *[]trackedShipment `json:"shipments"`
}

type trackedShipment struct {
	ShipmentTrackingNumber string         `json:"shipmentTrackingNumber"`
	EstimatedDeliveryDate  string         `json:"estimatedDeliveryDate"`
	Events                 []trackEvent   `json:"events"`
	Pieces                 []trackedPiece `json:"pieces"`
	ShipperReferences      []struct {
		Value    string `json:"value"`
		TypeCode string `json:"typeCode"`
	} `json:"shipperReferences"`
}

type trackedPiece struct {
	TrackingNumber string       `json:"trackingNumber"`
	Events         []trackEvent `json:"events"`
}

type trackEvent struct {
	Date        string `json:"date"`
	Time        string `json:"time"`
	GMTOffset   string `json:"GMTOffset"`
	TypeCode    string `json:"typeCode"`
	Description string `json:"description"`
	ServiceArea []struct {
		Code        string `json:"code"`
		Description string `json:"description"`
	} `json:"serviceArea"`
}

func decodeTracking(body []byte) (trackingResponse, error) {
	var r trackingResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return trackingResponse{}, malformed(opTrack, "the tracking answer does not parse: %v", err)
	}
	if r.Shipments == nil {
		return trackingResponse{}, malformed(opTrack, "the tracking answer has no shipments")
	}
	return r, nil
}

func (r trackingResponse) shipments() []trackedShipment {
	if r.Shipments == nil {
		return nil
	}
	return *r.Shipments
}

// update is what the answer says of tn: a waybill's checkpoints, with
// those of its pieces named by piece when it has several; or a piece's own.
// found is false when the answer does not name tn.
func (r trackingResponse) update(tn string) (carriers.TrackingUpdate, bool, error) {
	for _, sh := range r.shipments() {
		if carriers.NormalizeTrackingNumber(sh.ShipmentTrackingNumber) == tn {
			up, err := sh.update()
			return up, true, err
		}
		for _, p := range sh.Pieces {
			if carriers.NormalizeTrackingNumber(p.TrackingNumber) == tn {
				up, err := mapEvents(p.Events, "", nil)
				if err == nil {
					up.EstimatedDeliveryAt = estimate(sh.EstimatedDeliveryDate)
				}
				return up, true, err
			}
		}
	}
	return carriers.TrackingUpdate{}, false, nil
}

// update maps a waybill's checkpoints. A shipment of several pieces has
// the checkpoints of each piece besides its own: those the shipment does
// not have already (a piece scanned on its own, delivered apart) are kept,
// named by piece. Its status is its own checkpoints' latest.
func (sh trackedShipment) update() (carriers.TrackingUpdate, error) {
	up, err := mapEvents(sh.Events, "", nil)
	if err != nil {
		return carriers.TrackingUpdate{}, err
	}
	if len(sh.Pieces) > 1 {
		seen := map[string]bool{}
		for _, e := range up.Events {
			seen[e.CarrierCode+"@"+e.OccurredAt.UTC().Format(time.RFC3339)] = true
		}
		own := up.Events
		for _, p := range sh.Pieces {
			pu, err := mapEvents(p.Events, carriers.NormalizeTrackingNumber(p.TrackingNumber), seen)
			if err != nil {
				return carriers.TrackingUpdate{}, err
			}
			up.Events = append(up.Events, pu.Events...)
		}
		slices.SortStableFunc(up.Events, func(a, b carriers.TrackingEvent) int { return a.OccurredAt.Compare(b.OccurredAt) })
		if len(own) == 0 && len(up.Events) > 0 {
			up.Status = latestStatus(up.Events)
		}
	}
	up.EstimatedDeliveryAt = estimate(sh.EstimatedDeliveryDate)
	return up, nil
}

// mapEvents maps checkpoints, oldest first, each named by piece when piece
// is not "", skipping those in skip. A waybill without checkpoints exists
// and DHL has not scanned it yet: pre-transit.
func mapEvents(events []trackEvent, piece string, skip map[string]bool) (carriers.TrackingUpdate, error) {
	up := carriers.TrackingUpdate{Status: carriers.StatusPreTransit, Events: []carriers.TrackingEvent{}}
	for i, ev := range events {
		at, err := eventTime(ev)
		if err != nil {
			return carriers.TrackingUpdate{}, malformed(opTrack, "checkpoint %d: %v", i, err)
		}
		code := strings.ToUpper(strings.TrimSpace(ev.TypeCode))
		if skip[code+"@"+at.UTC().Format(time.RFC3339)] {
			continue
		}
		var location string
		if len(ev.ServiceArea) > 0 {
			location = strings.TrimSpace(ev.ServiceArea[0].Description)
		}
		up.Events = append(up.Events, carriers.TrackingEvent{
			Status:         trackerStatus(code),
			Message:        carriers.Excerpt(strings.TrimSpace(ev.Description)),
			Location:       carriers.Excerpt(location),
			OccurredAt:     at,
			CarrierCode:    carriers.Excerpt(code),
			TrackingNumber: piece,
		})
	}
	slices.SortStableFunc(up.Events, func(a, b carriers.TrackingEvent) int { return a.OccurredAt.Compare(b.OccurredAt) })
	if len(up.Events) > 0 {
		up.Status = latestStatus(up.Events)
	}
	return up, nil
}

// latestStatus is the newest checkpoint's status, or the newest one the
// table maps when DHL added a code after it was written.
func latestStatus(events []carriers.TrackingEvent) string {
	for i := len(events) - 1; i >= 0; i-- {
		if s := events[i].Status; s != carriers.StatusUnknown {
			return s
		}
	}
	return carriers.StatusUnknown
}

// eventTime is a checkpoint's date, time and GMT offset ("2020-06-10",
// "13:06:00", "+09:00"); without an offset the time is taken as UTC, the
// only zone that can be assumed without knowing the place.
func eventTime(ev trackEvent) (time.Time, error) {
	d, t, off := strings.TrimSpace(ev.Date), strings.TrimSpace(ev.Time), strings.TrimSpace(ev.GMTOffset)
	if d == "" {
		return time.Time{}, errors.New("no date")
	}
	if t == "" {
		t = "00:00:00"
	}
	var at time.Time
	var err error
	if off != "" {
		at, err = time.Parse("2006-01-02 15:04:05 -07:00", d+" "+t+" "+off)
	} else {
		at, err = time.Parse("2006-01-02 15:04:05", d+" "+t)
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("%q %q %q is not a DHL date and time", carriers.Excerpt(d), carriers.Excerpt(t), carriers.Excerpt(off))
	}
	if !carriers.PlausibleScanTime(at) {
		return time.Time{}, fmt.Errorf("%q is before 1970", carriers.Excerpt(d))
	}
	return at, nil
}

// estimate is a shipment's estimatedDeliveryDate ("2020-06-12"), when it
// has one that parses: the estimate is optional.
func estimate(text string) *time.Time {
	t, ok := deliveryDate(text)
	if !ok {
		return nil
	}
	return &t
}

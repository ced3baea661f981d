package ups

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/carriers"
)

// codeTrackingNotFound is the Track API's "Tracking Information Not Found":
// UPS answers it, as a warning of a 200 answer or as the error of a 404, for
// a number it has no scan for yet, which is every label for a while after
// its purchase.
const codeTrackingNotFound = "TW0001"

// Track asks the Track API (GET /track/v1/details/{inquiryNumber}) what
// UPS knows of one package.
func (c *Carrier) Track(ctx context.Context, trackingNumber string) (carriers.TrackingUpdate, error) {
	if err := ctx.Err(); err != nil {
		return carriers.TrackingUpdate{}, err
	}
	tn := strings.ToUpper(strings.TrimSpace(trackingNumber))
	if tn == "" {
		return carriers.TrackingUpdate{}, &carriers.Error{Carrier: carrierName, Operation: opTrack,
			Message: "no tracking number", Kind: carriers.ErrRejected}
	}
	a, err := c.do(ctx, apiRequest{
		op:     opTrack,
		method: http.MethodGet,
		path:   "/api/track/v1/details/" + url.PathEscape(tn),
		query: url.Values{
			"locale":           {"en_US"},
			"returnSignature":  {"false"},
			"returnMilestones": {"false"},
			"returnPOD":        {"false"},
		},
	})
	if err != nil {
		return carriers.TrackingUpdate{}, err
	}
	if !a.ok() {
		e := c.failure(opTrack, a)
		// The documented 404 is "Tracking number information not found";
		// it counts only with a UPS error body, so that a proxy's 404 page
		// (a wrong base URL) is not taken for "no scan yet" forever.
		if (a.status == http.StatusNotFound && e.Code != "") || e.Code == codeTrackingNotFound {
			return notTrackedYet(), nil
		}
		return carriers.TrackingUpdate{}, e
	}
	u, found, perr := parseTrackResponse(a.body, tn)
	if perr != nil {
		return carriers.TrackingUpdate{}, malformed(opTrack, a.status, "%v", perr)
	}
	if !found {
		return notTrackedYet(), nil
	}
	return u, nil
}

func notTrackedYet() carriers.TrackingUpdate {
	return carriers.TrackingUpdate{Status: carriers.StatusUnknown, Events: []carriers.TrackingEvent{}}
}

// Track API response (Tracking.yaml TrackApiResponse).
type trackAnswer struct {
	TrackResponse *struct {
		Shipment oneOrMany[trackShipment] `json:"shipment"`
	} `json:"trackResponse"`
}

type trackShipment struct {
	InquiryNumber string                  `json:"inquiryNumber"`
	Package       oneOrMany[trackPackage] `json:"package"`
	Warnings      oneOrMany[upsError]     `json:"warnings"`
}

type trackPackage struct {
	TrackingNumber string                   `json:"trackingNumber"`
	Activity       oneOrMany[trackActivity] `json:"activity"`
	CurrentStatus  *upsStatus               `json:"currentStatus"`
	DeliveryDate   oneOrMany[struct {
		Type string `json:"type"`
		Date string `json:"date"`
	}] `json:"deliveryDate"`
	DeliveryTime *struct {
		Type      string `json:"type"`
		StartTime string `json:"startTime"`
		EndTime   string `json:"endTime"`
	} `json:"deliveryTime"`
}

// upsStatus is the Track API Status container.
type upsStatus struct {
	Type                      string `json:"type"`
	Description               string `json:"description"`
	SimplifiedTextDescription string `json:"simplifiedTextDescription"`
	Code                      string `json:"code"`
	StatusCode                string `json:"statusCode"`
}

type trackActivity struct {
	Location *struct {
		Address *struct {
			City          string `json:"city"`
			StateProvince string `json:"stateProvince"`
			CountryCode   string `json:"countryCode"`
			Country       string `json:"country"`
		} `json:"address"`
	} `json:"location"`
	Status    upsStatus `json:"status"`
	Date      string    `json:"date"`      // YYYYMMDD, local to the scan
	Time      string    `json:"time"`      // HHMMSS, local to the scan
	GMTDate   string    `json:"gmtDate"`   // YYYYMMDD
	GMTTime   string    `json:"gmtTime"`   // HH:MM:SS
	GMTOffset string    `json:"gmtOffset"` // "-05:00"
}

// parseTrackResponse reads a Track answer for tn. found is false when UPS
// says it has no information on the number yet.
func parseTrackResponse(body []byte, tn string) (u carriers.TrackingUpdate, found bool, err error) {
	var a trackAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		return u, false, fmt.Errorf("track answer is not the documented JSON: %w", err)
	}
	if a.TrackResponse == nil || len(a.TrackResponse.Shipment) == 0 {
		return u, false, fmt.Errorf("track answer has no trackResponse/shipment")
	}
	var pkg *trackPackage
	var warnings []upsError
	var all []*trackPackage
	for i := range a.TrackResponse.Shipment {
		sh := &a.TrackResponse.Shipment[i]
		warnings = append(warnings, sh.Warnings...)
		for j := range sh.Package {
			p := &sh.Package[j]
			all = append(all, p)
			if pkg == nil || strings.EqualFold(strings.TrimSpace(p.TrackingNumber), tn) {
				pkg = p
			}
		}
	}
	if pkg == nil {
		for _, w := range warnings {
			if w.Code == codeTrackingNotFound || strings.Contains(strings.ToLower(w.Message), "not found") {
				return u, false, nil
			}
		}
		if len(warnings) > 0 {
			return u, false, fmt.Errorf("track answer has no package, only the warning %s %q", carriers.Excerpt(warnings[0].Code), carriers.Excerpt(warnings[0].Message))
		}
		return u, false, fmt.Errorf("track answer has no package")
	}

	events, err := packageEvents(pkg, "")
	if err != nil {
		return u, false, err
	}
	// The other packages of a multi-piece shipment, when UPS answers them
	// with the one asked (pieces.go): their scans, named by their number.
	others, err := pieceEvents(all, pkg)
	if err != nil {
		return u, false, err
	}
	events = append(events, others...)
	slices.SortStableFunc(events, func(x, y carriers.TrackingEvent) int { return x.OccurredAt.Compare(y.OccurredAt) })

	u = carriers.TrackingUpdate{Status: carriers.StatusUnknown, Events: events}
	if pkg.CurrentStatus != nil {
		u.Status, _ = trackingStatus(*pkg.CurrentStatus)
	}
	if u.Status == carriers.StatusUnknown && len(events) > 0 {
		u.Status = events[len(events)-1].Status
	}
	u.EstimatedDeliveryAt = estimatedDelivery(pkg)
	return u, true, nil
}

// packageEvents are a package's scans, oldest first; piece names them
// ("" for the package asked about).
func packageEvents(pkg *trackPackage, piece string) ([]carriers.TrackingEvent, error) {
	events := make([]carriers.TrackingEvent, 0, len(pkg.Activity))
	for i, act := range pkg.Activity {
		at, err := activityTime(act)
		if err != nil {
			return nil, fmt.Errorf("activity %d: %w", i, err)
		}
		status, code := trackingStatus(act.Status)
		events = append(events, carriers.TrackingEvent{
			Status:         status,
			Message:        carriers.Excerpt(firstNonEmpty(strings.TrimSpace(act.Status.Description), strings.TrimSpace(act.Status.SimplifiedTextDescription))),
			Location:       activityLocation(act),
			OccurredAt:     at,
			CarrierCode:    code,
			TrackingNumber: piece,
		})
	}
	// UPS lists the newest activity first; the tracker wants oldest first.
	slices.Reverse(events)
	return events, nil
}

// activityTime reads when a scan happened. The local date and time come
// with the scan's UTC offset; without the offset the GMT date and time are
// used; with neither, the local time is kept as UTC, the only zone known.
func activityTime(a trackActivity) (time.Time, error) {
	t, err := activityTimeAsGiven(a)
	if err == nil && !carriers.PlausibleScanTime(t) {
		return time.Time{}, fmt.Errorf("date %q is before 1970", a.Date)
	}
	return t, err
}

func activityTimeAsGiven(a trackActivity) (time.Time, error) {
	date := strings.TrimSpace(a.Date)
	if date == "" {
		return time.Time{}, fmt.Errorf("no date")
	}
	clock, err := hhmmss(a.Time)
	if err != nil {
		return time.Time{}, err
	}
	if off := strings.TrimSpace(a.GMTOffset); off != "" {
		zone, err := time.Parse("-07:00", off)
		if err != nil {
			if zone, err = time.Parse("-0700", off); err != nil {
				return time.Time{}, fmt.Errorf("gmtOffset %q is not ±hh:mm", off)
			}
		}
		_, secs := zone.Zone()
		t, err := time.ParseInLocation("20060102150405", date+clock, time.FixedZone(off, secs))
		if err != nil {
			return time.Time{}, fmt.Errorf("date %q time %q: not YYYYMMDD HHMMSS", date, a.Time)
		}
		return t, nil
	}
	if gd := strings.TrimSpace(a.GMTDate); gd != "" && strings.TrimSpace(a.GMTTime) != "" {
		gclock, err := hhmmss(a.GMTTime)
		if err == nil {
			if t, err := time.Parse("20060102150405", gd+gclock); err == nil {
				return t, nil
			}
		}
	}
	t, err := time.Parse("20060102150405", date+clock)
	if err != nil {
		return time.Time{}, fmt.Errorf("date %q time %q: not YYYYMMDD HHMMSS", date, a.Time)
	}
	return t, nil
}

// hhmmss normalises "071356", "0713", "07:13:56" or "" to six digits.
func hhmmss(s string) (string, error) {
	s = strings.ReplaceAll(strings.TrimSpace(s), ":", "")
	switch {
	case s == "":
		return "000000", nil
	case len(s) == 4 && isDigits(s):
		return s + "00", nil
	case len(s) == 5 && isDigits(s):
		// A leading zero dropped: "74700" is 07:47:00.
		return "0" + s, nil
	case len(s) == 6 && isDigits(s):
		return s, nil
	}
	return "", fmt.Errorf("time %q is not HHMMSS", s)
}

// activityLocation is "City, ST", with the country code when not US.
func activityLocation(a trackActivity) string {
	if a.Location == nil || a.Location.Address == nil {
		return ""
	}
	ad := a.Location.Address
	var parts []string
	for _, p := range []string{ad.City, ad.StateProvince} {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
		}
	}
	country := strings.ToUpper(strings.TrimSpace(firstNonEmpty(ad.CountryCode, ad.Country)))
	if len(parts) > 0 && country != "" && country != "US" {
		parts = append(parts, country)
	}
	return strings.Join(parts, ", ")
}

// estimatedDelivery is the rescheduled delivery date (RDD) or else the
// scheduled one (SDD), at the end of the delivery window or commit time
// when UPS gives one. UPS gives no zone for it; it is kept in UTC.
func estimatedDelivery(p *trackPackage) *time.Time {
	var date string
	for _, want := range []string{"RDD", "SDD"} {
		for _, d := range p.DeliveryDate {
			if strings.EqualFold(strings.TrimSpace(d.Type), want) && strings.TrimSpace(d.Date) != "" {
				date = strings.TrimSpace(d.Date)
				break
			}
		}
		if date != "" {
			break
		}
	}
	if date == "" {
		return nil
	}
	clock := "000000"
	if dt := p.DeliveryTime; dt != nil && !strings.EqualFold(strings.TrimSpace(dt.Type), "DEL") {
		if c, err := hhmmss(dt.EndTime); err == nil && strings.TrimSpace(dt.EndTime) != "" {
			clock = c
		}
	}
	t, err := time.Parse("20060102150405", date+clock)
	if err != nil || !carriers.PlausibleScanTime(t) {
		return nil
	}
	return &t
}

package uspsfake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/carriers/fakekit"
)

// scan is one tracking event of a fake label.
type scan struct {
	code, eventType string
	at              time.Time
	city, state     string
	country         string
}

// progression is what each Track call adds to a label, in order.
var progression = []struct {
	code, eventType, category, status string
	atDestination                     bool
}{
	{"GX", "Shipping Label Created, USPS Awaiting Item", "Pre-Shipment", "Label Created, not yet in system", false},
	{"03", "USPS in possession of item", "Accepted", "USPS in possession of item", false},
	{"OF", "Out for Delivery", "Out for Delivery", "Out for Delivery", true},
	{"01", "Delivered, In/At Mailbox", "Delivered", "Delivered, In/At Mailbox", true},
}

// central is the zone of the fake's scan facilities: USPS gives
// eventTimestamp in local time, with the offset from GMT beside it.
var central = time.FixedZone("CST", -6*3600)

// track is POST /tracking/v3r2/tracking: an array of tracking numbers.
// Known labels move one scan further per call. One unknown number is a 404;
// several numbers with an unknown one are a 207 with a 404 item.
func (s *Server) track(w http.ResponseWriter, r *http.Request, body []byte) {
	const api = "/tracking/v3r2"
	var p problems
	if !isJSON(r) {
		p.add("Content-Type", "Content-Type must be application/json")
		p.write(w, api)
		return
	}
	var items []json.RawMessage
	if err := json.Unmarshal(body, &items); err != nil {
		p.add("body", "the request body must be an array of tracking requests")
		p.write(w, api)
		return
	}
	if len(items) < 1 || len(items) > 35 {
		p.add("body", "between 1 and 35 tracking numbers per request")
	}
	var numbers []string
	for i, raw := range items {
		checkKeys(&p, raw, fmt.Sprintf("[%d]", i), "trackingNumber", "mailingDate", "destinationZIPCode")
		var it struct {
			TrackingNumber string `json:"trackingNumber"`
		}
		_ = json.Unmarshal(raw, &it)
		if !trackingPattern.MatchString(it.TrackingNumber) {
			p.add(fmt.Sprintf("[%d].trackingNumber", i), "trackingNumber %q must be 4 to 34 letters and digits", it.TrackingNumber)
		}
		numbers = append(numbers, it.TrackingNumber)
	}
	if p.write(w, api) {
		return
	}

	var out []any
	missing := 0
	for _, tn := range numbers {
		now := s.Now()
		if !s.sales.With(strings.ToUpper(tn), func(l *label) {
			l.advance(now)
			out = append(out, detail(l))
		}) {
			missing++
			var e map[string]any
			_ = json.Unmarshal([]byte(ErrorBody(api, 404, "Not Found", "404000",
				"A status update is not yet available on your package.", "trackingNumber")), &e)
			e["statusCode"] = "404"
			e["trackingNumber"] = tn
			out = append(out, e)
		}
	}
	switch {
	case missing == len(numbers) && len(numbers) == 1:
		writeBody(w, http.StatusNotFound, ErrorBody(api, 404, "Not Found", "404000",
			"A status update is not yet available on your package. It will be available when the shipper provides an update or the package is delivered to USPS.", "trackingNumber"))
	case missing > 0:
		fakekit.WriteJSON(w, http.StatusMultiStatus, out)
	default:
		fakekit.WriteJSON(w, http.StatusOK, out)
	}
}

// advance adds the next scan, at now. Called with the sales book locked.
func (l *label) advance(now time.Time) {
	if len(l.events) >= len(progression) {
		return
	}
	step := progression[len(l.events)]
	at := now.Truncate(time.Second)
	if n := len(l.events); n > 0 && !at.After(l.events[n-1].at) {
		at = l.events[n-1].at.Add(time.Hour)
	}
	sc := scan{code: step.code, eventType: step.eventType, at: at, city: strings.ToUpper(l.from.City), state: l.from.State}
	if step.atDestination {
		sc.city = strings.ToUpper(l.to.City)
		sc.state = l.to.State
		if l.international {
			sc.state = strings.ToUpper(l.to.Province)
			sc.country = strings.ToUpper(l.to.Country)
		}
	}
	l.events = append(l.events, sc)
}

// detail is a TrackingDetail; events newest first, as USPS lists them.
// Called with the sales book locked.
func detail(l *label) map[string]any {
	step := progression[len(l.events)-1]
	events := make([]any, 0, len(l.events))
	for i := len(l.events) - 1; i >= 0; i-- {
		ev := l.events[i]
		local := ev.at.In(central)
		events = append(events, map[string]any{
			"eventType": ev.eventType, "eventCode": ev.code,
			"eventTimestamp": local.Format("2006-01-02T15:04:05"), "GMTTimestamp": ev.at.UTC().Format("2006-01-02T15:04:05.000Z"),
			"GMTOffset": "-6:00", "eventCity": ev.city, "eventState": ev.state, "eventCountry": ev.country,
			"eventZIPCode": "", "firm": "", "eventPartner": "", "actionCode": "", "reasonCode": "", "recipientName": "",
		})
	}
	d := map[string]any{
		"trackingNumber": l.TrackingNumber, "mailClass": l.mailClass, "mailType": "Domestic",
		"originCity": strings.ToUpper(l.from.City), "originState": l.from.State, "originZIPCode": l.from.ZIPCode,
		"destinationCity": strings.ToUpper(l.to.City), "destinationState": l.to.State,
		"status": step.status, "statusCategory": step.category,
		"statusSummary":  fmt.Sprintf("%s as of %s.", step.status, l.events[len(l.events)-1].at.In(central).Format("3:04 pm on January 2, 2006")),
		"trackingEvents": events,
	}
	if l.international {
		d["mailType"] = "International Outbound"
		d["destinationCountry"] = l.to.CountryISOAlpha2Code
	} else {
		d["destinationZIPCode"] = l.to.ZIPCode
		if step.code != "01" {
			d["deliveryDateExpectation"] = map[string]any{"expectedDeliveryDate": l.SoldAt.AddDate(0, 0, 3).Format(time.DateOnly)}
		}
	}
	return d
}

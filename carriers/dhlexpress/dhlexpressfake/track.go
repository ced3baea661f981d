package dhlexpressfake

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/carriers/fakekit"
)

// checkpoints are what a shipment goes through, one more with every
// tracking answer about it: picked up, processed, departed, arrived,
// with the courier, delivered.
var checkpoints = []struct{ code, description string }{
	{"PU", "Shipment picked up"},
	{"PL", "Processed at LEIPZIG - GERMANY"},
	{"DF", "Departed Facility in LEIPZIG - GERMANY"},
	{"AF", "Arrived at Sort Facility"},
	{"WC", "With delivery courier"},
	{"OK", "Delivered"},
}

type eventOut struct {
	Date        string           `json:"date"`
	Time        string           `json:"time"`
	GMTOffset   string           `json:"GMTOffset"`
	TypeCode    string           `json:"typeCode"`
	Description string           `json:"description"`
	ServiceArea []map[string]any `json:"serviceArea"`
}

func event(at time.Time, code, description, area string) eventOut {
	return eventOut{Date: at.Format("2006-01-02"), Time: at.Format("15:04:05"), GMTOffset: "+00:00", TypeCode: code,
		Description: description, ServiceArea: []map[string]any{{"code": "HUB", "description": area}}}
}

// answer is what the fake says of a shipment now: the checkpoints reached
// so far (details only: none) and, for a shipment of several pieces, each
// piece's, the second piece processed apart once it is past processing.
func (s *Server) answer(rec *sale, details bool) map[string]any {
	if !details && rec.calls < len(checkpoints) {
		rec.calls++
	}
	dest := rec.request.CustomerDetails.ReceiverDetails.PostalAddress
	area := strings.ToUpper(dest.CityName) + " - " + dest.CountryCode
	events := []eventOut{}
	if !details {
		for i := 0; i < rec.calls; i++ {
			at := rec.SoldAt.UTC().Truncate(time.Second).Add(time.Duration(i+1) * time.Hour)
			events = append(events, event(at, checkpoints[i].code, checkpoints[i].description, area))
		}
	}
	pieces := []map[string]any{}
	for i, p := range rec.Pieces {
		pe := append([]eventOut{}, events...)
		if i == 1 && len(events) >= 2 && !details {
			at := rec.SoldAt.UTC().Truncate(time.Second).Add(2*time.Hour + 30*time.Minute)
			pe = append(pe, event(at, "PL", "Processed apart at LEIPZIG - GERMANY", area))
		}
		pieces = append(pieces, map[string]any{"number": i + 1, "trackingNumber": p, "shipmentTrackingNumber": rec.TrackingNumber, "events": pe})
	}
	sh := map[string]any{
		"shipmentTrackingNumber": rec.TrackingNumber,
		"status":                 "Success",
		"productCode":            rec.product,
		"numberOfPieces":         len(rec.Pieces),
		"events":                 events,
		"pieces":                 pieces,
		"shipmentTimestamp":      rec.SoldAt.UTC().Format("2006-01-02T15:04:05"),
		"estimatedDeliveryDate":  rec.SoldAt.UTC().AddDate(0, 0, max(products[rec.product].days, 1)).Format("2006-01-02"),
	}
	if rec.Reference != "" {
		sh["shipperReferences"] = []map[string]any{{"value": rec.Reference, "typeCode": "CU"}}
	}
	return sh
}

// trackOne answers GET /shipments/{n}/tracking.
func (s *Server) trackOne(w http.ResponseWriter, r *http.Request, _ []byte) {
	n := r.PathValue("waybill")
	var out map[string]any
	found := s.sales.With(n, func(rec *sale) {
		if rec.Account == callerAccount(r) {
			out = s.answer(rec, false)
		}
	})
	if !found || out == nil {
		writeProblem(w, r, http.StatusNotFound, "Not data found", "", "No Shipments Found for WaybillNumber | "+n)
		return
	}
	fakekit.WriteJSON(w, http.StatusOK, map[string]any{"shipments": []any{out}})
}

// track answers GET /tracking: by waybills and pieces (up to 200 of each),
// or by the reference of the account's shipments within a date range.
func (s *Server) track(w http.ResponseWriter, r *http.Request, _ []byte) {
	q := r.URL.Query()
	if ref := q.Get("shipmentReference"); ref != "" {
		s.trackReference(w, r, ref)
		return
	}
	waybills, pieces := q["shipmentTrackingNumber"], q["pieceTrackingNumber"]
	if len(waybills) == 0 && len(pieces) == 0 {
		badRequest(w, r, "", "Missing mandatory parameters: shipmentTrackingNumber, pieceTrackingNumber or shipmentReference")
		return
	}
	if len(waybills) > 200 || len(pieces) > 200 {
		badRequest(w, r, "", "At most 200 tracking numbers are supported")
		return
	}
	out := []any{}
	seen := map[string]bool{}
	add := func(rec *sale) {
		if rec.Account == callerAccount(r) && !seen[rec.TrackingNumber] {
			seen[rec.TrackingNumber] = true
			out = append(out, s.answer(rec, false))
		}
	}
	for _, n := range waybills {
		s.sales.With(n, add)
	}
	if len(pieces) > 0 {
		want := map[string]bool{}
		for _, p := range pieces {
			want[p] = true
		}
		var recs []string
		s.sales.Each(func(rec *sale) {
			for _, p := range rec.Pieces {
				if want[p] {
					recs = append(recs, rec.TrackingNumber)
					break
				}
			}
		})
		for _, n := range recs {
			s.sales.With(n, add)
		}
	}
	if len(out) == 0 {
		writeProblem(w, r, http.StatusNotFound, "Not data found", "", "No Shipments Found")
		return
	}
	fakekit.WriteJSON(w, http.StatusOK, map[string]any{"shipments": out})
}

// trackReference finds the account's shipments by reference, as DHL does:
// the account and the date range are required with a reference.
func (s *Server) trackReference(w http.ResponseWriter, r *http.Request, ref string) {
	q := r.URL.Query()
	var missing []string
	for _, p := range []string{"shipperAccountNumber", "dateRangeFrom", "dateRangeTo"} {
		if q.Get(p) == "" {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		badRequest(w, r, "", "Missing mandatory parameters: "+strings.Join(missing, ", "))
		return
	}
	if q.Get("shipperAccountNumber") != callerAccount(r) {
		badRequest(w, r, "", "The account number is not found or invalid. Please check the account number and retry.")
		return
	}
	fromDay, err1 := time.Parse("2006-01-02", q.Get("dateRangeFrom"))
	toDay, err2 := time.Parse("2006-01-02", q.Get("dateRangeTo"))
	if err1 != nil || err2 != nil || toDay.Before(fromDay) {
		badRequest(w, r, "", fmt.Sprintf("dateRangeFrom %q and dateRangeTo %q are not a date range", q.Get("dateRangeFrom"), q.Get("dateRangeTo")))
		return
	}
	typ := q.Get("shipmentReferenceType")
	out := []any{}
	s.sales.Each(func(rec *sale) {
		day := rec.SoldAt.UTC().Truncate(24 * time.Hour)
		if rec.Reference == ref && rec.Account == callerAccount(r) && (typ == "" || typ == "CU") &&
			!day.Before(fromDay) && !day.After(toDay) {
			out = append(out, s.answer(rec, true))
		}
	})
	if len(out) == 0 {
		writeProblem(w, r, http.StatusNotFound, "Not data found", "", "No Shipments Found for ReferenceID | "+ref)
		return
	}
	fakekit.WriteJSON(w, http.StatusOK, map[string]any{"shipments": out})
}

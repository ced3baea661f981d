package fedexfake

import (
	"net/http"
	"time"
)

// reprintEndOfDay answers a reprint of close documents (closeReqType
// RGCDR): by tracking number (BY_TRACKING_NUMBER), the report of the close
// that took that shipment; by ship date (BY_SHIP_DATE), of the date's
// closes. The fake keeps no close of its own: a report lists the closed
// Ground shipments of the date (of that shipment's date, by tracking
// number). A shipment not closed, or a date without a close, has nothing to
// reprint: refused.
func (s *Server) reprintEndOfDay(w http.ResponseWriter, req endOfDayRequest) {
	var p problems
	p.enum("reprintOption", req.ReprintOption, []string{"BY_SHIP_DATE", "BY_TRACKING_NUMBER"})
	if req.ReprintOption == "BY_TRACKING_NUMBER" && req.TrackingNumber == "" {
		p = append(p, "trackingNumber is required to reprint BY_TRACKING_NUMBER")
	}
	if len(p) > 0 {
		invalid(w, p)
		return
	}
	date, closedOne := req.CloseDate, true
	if req.ReprintOption == "BY_TRACKING_NUMBER" {
		found := s.sales.With(req.TrackingNumber, func(sh *shipment) {
			closedOne, date = sh.closed, sh.SoldAt.UTC().Format(time.DateOnly)
		})
		if !found || !closedOne {
			writeError(w, http.StatusBadRequest, "CLOSE.REPRINT.NOTFOUND", "No close documents were found for the tracking number requested.")
			return
		}
	}
	var closed []string
	s.sales.Each(func(sh *shipment) {
		if sh.closed && sh.SoldAt.UTC().Format(time.DateOnly) == date {
			closed = append(closed, sh.TrackingNumber)
		}
	})
	if len(closed) == 0 {
		writeError(w, http.StatusBadRequest, "CLOSE.REPRINT.NOTFOUND", "No close documents were found for the date requested.")
		return
	}
	writeCloseReport(w, date, closed)
}

// HoldCloses makes every end of day close answer from now on wait until
// ReleaseCloses: the shipments are closed when the request arrives, only
// the answer is held, as when the client dies mid-call.
func (s *Server) HoldCloses() { s.Hold(OpEndOfDay) }

// ReleaseCloses sends the held close answers and stops holding.
func (s *Server) ReleaseCloses() { s.Release(OpEndOfDay) }

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
	s.mu.Lock()
	date := req.CloseDate
	if req.ReprintOption == "BY_TRACKING_NUMBER" {
		sh, ok := s.shipments[req.TrackingNumber]
		if !ok || !sh.closed {
			s.mu.Unlock()
			writeError(w, http.StatusBadRequest, "CLOSE.REPRINT.NOTFOUND", "No close documents were found for the tracking number requested.")
			return
		}
		date = sh.created.UTC().Format(time.DateOnly)
	}
	var closed []string
	for tn, sh := range s.shipments {
		if sh.closed && sh.created.UTC().Format(time.DateOnly) == date {
			closed = append(closed, tn)
		}
	}
	s.mu.Unlock()
	if len(closed) == 0 {
		writeError(w, http.StatusBadRequest, "CLOSE.REPRINT.NOTFOUND", "No close documents were found for the date requested.")
		return
	}
	writeCloseReport(w, date, closed)
}

// HoldCloses makes every end of day close answer from now on wait until
// ReleaseCloses: the shipments are closed (Closed reports them) when the
// request arrives, only the answer is held, as when the client dies
// mid-call. A held answer is dropped when the client goes away.
func (s *Server) HoldCloses() {
	s.mu.Lock()
	if s.closeHold == nil {
		s.closeHold = make(chan struct{})
	}
	s.mu.Unlock()
}

// ReleaseCloses sends the held close answers and stops holding.
func (s *Server) ReleaseCloses() {
	s.mu.Lock()
	if s.closeHold != nil {
		close(s.closeHold)
		s.closeHold = nil
	}
	s.mu.Unlock()
}

func (s *Server) waitCloseHold(r *http.Request) {
	s.mu.Lock()
	hold := s.closeHold
	s.mu.Unlock()
	if hold == nil {
		return
	}
	select {
	case <-hold:
	case <-r.Context().Done():
	}
}

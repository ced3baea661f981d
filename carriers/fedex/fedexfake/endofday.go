package fedexfake

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"net/http"
	"sort"
	"time"

	"github.com/go-pdf/fpdf"
	"github.com/shipd-dev/shipd/carriers/fakekit"
)

// OpEndOfDay is the Ground End of Day Close.
const OpEndOfDay = "endofday"

// PathEndOfDay is the Ship API's Ground End of Day Close (PUT).
const PathEndOfDay = "/ship/v1/endofday/"

type endOfDayRequest struct {
	AccountNumber         *accountNumber `json:"accountNumber"`
	CloseReqType          string         `json:"closeReqType"`
	GroundServiceCategory string         `json:"groundServiceCategory"`
	CloseDate             string         `json:"closeDate"`
	TrackingNumber        string         `json:"trackingNumber"`
	ReprintOption         string         `json:"reprintOption"`
}

// endOfDay closes the account's open FedEx Ground shipments created on
// closeDate: they are marked closed and listed on the manifest report,
// returned as one PDF part. A close with no open Ground shipment is
// refused, as FedEx refuses a close with nothing to close.
func (s *Server) endOfDay(w http.ResponseWriter, r *http.Request, body []byte) {
	var req endOfDayRequest
	if err := decodeStrict(body, &req); err != nil {
		invalid(w, []string{"the request does not match the end of day schema: " + err.Error()})
		return
	}
	var p problems
	p.account(req.AccountNumber)
	p.enum("closeReqType", req.CloseReqType, []string{"GCDR", "RGCDR"})
	p.enum("groundServiceCategory", req.GroundServiceCategory, []string{"GROUND", "HOME_DELIVERY"})
	p.date("closeDate", req.CloseDate)
	if len(p) > 0 {
		invalid(w, p)
		return
	}
	if req.AccountNumber.Value != AccountNumber {
		writeAccountError(w)
		return
	}
	if req.CloseReqType == "RGCDR" {
		s.reprintEndOfDay(w, req) // endofday_reprint.go
		return
	}
	var closed []string
	s.sales.Each(func(sh *shipment) {
		if sh.State == fakekit.Voided || sh.closed || sh.serviceType != "FEDEX_GROUND" || sh.SoldAt.UTC().Format(time.DateOnly) != req.CloseDate {
			return
		}
		sh.closed = true
		closed = append(closed, sh.TrackingNumber)
	})
	if len(closed) == 0 {
		writeError(w, http.StatusBadRequest, "CLOSE.NOSHIPMENTS.ERROR", "No shipments to close for the date requested.")
		return
	}
	writeCloseReport(w, req.CloseDate, closed)
}

// writeCloseReport answers a close (or its reprint) with the manifest
// report of the closed shipments, one PDF part.
func writeCloseReport(w http.ResponseWriter, closeDate string, closed []string) {
	sort.Strings(closed)
	pdf := fpdf.New("P", "pt", "Letter", "")
	pdf.SetCompression(false)
	pdf.AddPage()
	pdf.SetFont("Helvetica", "B", 14)
	pdf.Text(40, 50, "FEDEX GROUND MANIFEST - TEST "+closeDate)
	pdf.SetFont("Courier", "", 10)
	for i, tn := range closed {
		pdf.Text(40, 80+float64(i%50)*14, fmt.Sprintf("%3d %s", i+1, tn))
	}
	var buf bytes.Buffer
	if err := pdf.Output(&buf); err != nil {
		writeError(w, http.StatusInternalServerError, "INTERNAL.SERVER.ERROR", "the report could not be drawn")
		return
	}
	fakekit.WriteJSON(w, http.StatusOK, map[string]any{
		"transactionId": newTransactionID(),
		"output": map[string]any{"closeDocuments": []any{map[string]any{
			"type": "MANIFEST", "shippingDocumentDisposition": "RETURNED", "copiesToPrint": 1,
			"parts": []any{map[string]any{"documentPartSequenceNumber": 1, "image": base64.StdEncoding.EncodeToString(buf.Bytes())}},
		}}},
	})
}

// Closed reports whether a shipment was closed by an end of day close.
func (s *Server) Closed(trackingNumber string) bool {
	closed := false
	s.sales.With(trackingNumber, func(sh *shipment) { closed = sh.closed })
	return closed
}

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

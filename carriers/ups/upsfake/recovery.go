package upsfake

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"sort"
)

// OpRecover is Label Recovery (POST /api/labels/{version}/recovery): the
// label of a shipment, found by its tracking number or by the combination
// of a reference number and the shipper number. A purchase whose answer was
// lost asks it before buying again.
const OpRecover = "recover"

// CodeNoLabel is the fake's refusal of a recovery that finds no label; the
// published OpenAPI documents no code for it, so this one is illustrative.
const CodeNoLabel = "120541"

// Sale is one label the fake sold.
type Sale struct {
	TrackingNumber string
	Voided         bool
}

// Sales lists the labels sold with the reference number (or, without
// one, the CustomerContext), in the order sold.
func (s *Server) Sales(reference string) []Sale {
	s.mu.Lock()
	defer s.mu.Unlock()
	var sold []*shipment
	for _, sh := range s.shipments {
		if sh.reference == reference {
			sold = append(sold, sh)
		}
	}
	sort.Slice(sold, func(i, j int) bool { return sold[i].seq < sold[j].seq })
	out := make([]Sale, len(sold))
	for i, sh := range sold {
		out[i] = Sale{TrackingNumber: sh.trackingNumber, Voided: sh.voided}
	}
	return out
}

// HoldShips makes every ship answer from now on wait until ReleaseShips:
// the label is sold (Sales lists it) when the request arrives, only the
// answer is held, as when the client dies mid-call. A held answer is
// dropped when the client goes away.
func (s *Server) HoldShips() {
	s.mu.Lock()
	if s.hold == nil {
		s.hold = make(chan struct{})
	}
	s.mu.Unlock()
}

// ReleaseShips sends the held ship answers and stops holding.
func (s *Server) ReleaseShips() {
	s.mu.Lock()
	if s.hold != nil {
		close(s.hold)
		s.hold = nil
	}
	s.mu.Unlock()
}

func (s *Server) waitHold(r *http.Request) {
	s.mu.Lock()
	hold := s.hold
	s.mu.Unlock()
	if hold == nil {
		return
	}
	select {
	case <-hold:
	case <-r.Context().Done():
	}
}

func (s *Server) recover(w http.ResponseWriter, r *http.Request, body []byte) {
	c := &checker{account: accountOf(r)}
	if v := r.PathValue("version"); v != "v1" && v != "v1701" && v != "v1903" {
		c.invalid("version", fmt.Sprintf("%q is not v1, v1701 or v1903", v))
	}
	m, err := decode(body)
	if err != nil {
		writeErrors(w, http.StatusBadRequest, apiError{codeNotWellFormed, "The request is not well formed: " + err.Error()})
		return
	}
	const base = "LabelRecoveryRequest"
	lr := c.object(m, "", base)
	if ls := c.optObject(lr, base, "LabelSpecification"); ls != nil {
		if f := c.str(ls, base+".LabelSpecification", "LabelImageFormat.Code", 4); f != "" && f != "GIF" {
			c.invalid(base+".LabelSpecification.LabelImageFormat.Code", fmt.Sprintf("%q: the fake renders GIF labels only", f))
		}
	}
	tn, byNumber := c.optStr(lr, base, "TrackingNumber", 18)
	var ref string
	if rv := c.optObject(lr, base, "ReferenceValues"); rv != nil {
		ref = c.str(rv, base+".ReferenceValues", "ReferenceNumber.Value", 35)
		if shipper := c.str(rv, base+".ReferenceValues", "ShipperNumber", 6); shipper != "" && shipper != c.account {
			c.invalid(base+".ReferenceValues.ShipperNumber", "not the shipper number of this account")
		}
	} else if !byNumber {
		c.missing(base + ".TrackingNumber or " + base + ".ReferenceValues")
	}
	if !c.ok() {
		writeErrors(w, http.StatusBadRequest, c.errs...)
		return
	}
	s.mu.Lock()
	var found *shipment
	for _, sh := range s.shipments {
		if sh.voided || sh.label == nil {
			continue
		}
		if (byNumber && sh.trackingNumber == tn) || (!byNumber && sh.reference == ref) {
			if found == nil || sh.seq > found.seq {
				found = sh
			}
		}
	}
	var label []byte
	var id string
	if found != nil {
		label, id = found.label, found.trackingNumber
	}
	s.mu.Unlock()
	if found == nil {
		writeErrors(w, http.StatusBadRequest, apiError{CodeNoLabel, "No label found for the given tracking or reference number."})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"LabelRecoveryResponse": map[string]any{
		"Response": map[string]any{
			"ResponseStatus": map[string]string{"Code": "1", "Description": "Success"},
		},
		"ShipmentIdentificationNumber": id,
		"LabelResults": map[string]any{
			"TrackingNumber": id,
			"LabelImage": map[string]any{
				"LabelImageFormat": map[string]string{"Code": "GIF", "Description": "GIF"},
				"GraphicImage":     base64.StdEncoding.EncodeToString(label),
			},
		},
	}})
}

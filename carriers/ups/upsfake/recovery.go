package upsfake

import (
	"encoding/base64"
	"fmt"
	"net/http"

	"github.com/shipd-dev/shipd/carriers/fakekit"
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
	sold := s.sales.ByReference(reference)
	out := make([]Sale, len(sold))
	for i, sale := range sold {
		out[i] = Sale{TrackingNumber: sale.TrackingNumber, Voided: sale.State == fakekit.Voided}
	}
	return out
}

// HoldShips makes every ship answer from now on wait until ReleaseShips:
// the label is sold (Sales lists it) when the request arrives, only the
// answer is held, as when the client dies mid-call. A held answer is
// dropped when the client goes away.
func (s *Server) HoldShips() { s.Hold(OpShip) }

// ReleaseShips sends the held ship answers and stops holding.
func (s *Server) ReleaseShips() { s.Release(OpShip) }

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
	// The latest label sold that matches: sales come in the order sold.
	var label []byte
	var id string
	s.sales.Each(func(sh *shipment) {
		if sh.State == fakekit.Voided || sh.label == nil {
			return
		}
		if (byNumber && sh.TrackingNumber == tn) || (!byNumber && sh.Reference == ref) {
			label, id = sh.label, sh.TrackingNumber
		}
	})
	if label == nil {
		writeErrors(w, http.StatusBadRequest, apiError{CodeNoLabel, "No label found for the given tracking or reference number."})
		return
	}
	fakekit.WriteJSON(w, http.StatusOK, map[string]any{"LabelRecoveryResponse": map[string]any{
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

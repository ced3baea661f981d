package fedexfake

import (
	"net/http"
	"strings"

	"github.com/shipd-dev/shipd/carriers/fakekit"
)

// Track by References (POST /track/v1/referencenumbers): the shipments the
// account sent with a customer reference. A purchase whose answer was lost
// asks it before buying again.
const (
	OpTrackReference   = "track_reference"
	PathTrackReference = "/track/v1/referencenumbers"
)

// CodeReferenceNotFound is the fake's per-result error for a reference it
// does not know; FedEx documents no code of its own for this case.
const CodeReferenceNotFound = "TRACKING.REFERENCENUMBER.NOTFOUND"

// referenceTypes are the documented referencesInformation.type values.
var referenceTypes = []string{"BILL_OF_LADING", "COD_RETURN_TRACKING_NUMBER", "CUSTOMER_AUTHORIZATION_NUMBER",
	"CUSTOMER_REFERENCE", "DEPARTMENT", "DOCUMENT_AIRWAY_BILL", "EXPRESS_ALTERNATE_REFERENCE",
	"FEDEX_OFFICE_JOB_ORDER_NUMBER", "FREE_FORM_REFERENCE", "GROUND_INTERNATIONAL", "GROUND_SHIPMENT_ID",
	"INVOICE", "JOB_GLOBAL_TRACKING_NUMBER", "ORDER_GLOBAL_TRACKING_NUMBER", "ORDER_TO_PAY_NUMBER",
	"PARTNER_CARRIER_NUMBER", "PART_NUMBER", "PURCHASE_ORDER", "REROUTE_TRACKING_NUMBER", "RETURN_MATERIALS_AUTHORIZATION",
	"RETURNED_TO_SHIPPER_TRACKING_NUMBER", "TRANSPORTATION_CONTROL_NUMBER", "SHIPPER_REFERENCE", "STANDARD_MPS"}

// referenceRequest is Full_Schema_Tracking_References.
type referenceRequest struct {
	ReferencesInformation *struct {
		Type                   string `json:"type"`
		Value                  string `json:"value"`
		AccountNumber          string `json:"accountNumber"`
		CarrierCode            string `json:"carrierCode"`
		ShipDateBegin          string `json:"shipDateBegin"`
		ShipDateEnd            string `json:"shipDateEnd"`
		DestinationCountryCode string `json:"destinationCountryCode"`
		DestinationPostalCode  string `json:"destinationPostalCode"`
	} `json:"referencesInformation"`
	IncludeDetailedScans *bool `json:"includeDetailedScans"`
}

// Sale is one label the fake sold.
type Sale struct {
	TrackingNumber string
	Cancelled      bool
}

// Sales lists the labels sold with the CUSTOMER_REFERENCE, in the order sold.
func (s *Server) Sales(reference string) []Sale {
	var out []Sale
	for _, sale := range s.sales.ByReference(reference) {
		out = append(out, Sale{TrackingNumber: sale.TrackingNumber, Cancelled: sale.State == fakekit.Voided})
	}
	return out
}

// HoldShips makes every ship answer from now on wait until ReleaseShips:
// the label is sold (Sales lists it) as the request arrives, only the answer
// is held, as when a connection dies or the client is killed mid-call. A
// held answer is dropped when the client goes away.
func (s *Server) HoldShips() { s.Hold(OpShip) }

// ReleaseShips sends the held ship answers and stops holding.
func (s *Server) ReleaseShips() { s.Release(OpShip) }

func (s *Server) trackReference(w http.ResponseWriter, _ *http.Request, body []byte) {
	var req referenceRequest
	if err := decodeStrict(body, &req); err != nil {
		invalid(w, []string{"the request does not match the track by references schema: " + err.Error()})
		return
	}
	var p problems
	ri := req.ReferencesInformation
	if ri == nil {
		p.add("referencesInformation is required")
		invalid(w, p)
		return
	}
	p.required("referencesInformation.value", ri.Value)
	if ri.Type != "" {
		p.enum("referencesInformation.type", ri.Type, referenceTypes)
	}
	if ri.AccountNumber == "" && (ri.ShipDateBegin == "" || ri.ShipDateEnd == "" ||
		ri.DestinationCountryCode == "" || ri.DestinationPostalCode == "" || ri.CarrierCode == "") {
		p.add("referencesInformation needs accountNumber, or carrierCode, shipDateBegin, shipDateEnd, destinationPostalCode and destinationCountryCode")
	}
	if len(p) > 0 {
		invalid(w, p)
		return
	}
	if ri.AccountNumber != "" && ri.AccountNumber != AccountNumber {
		writeAccountError(w)
		return
	}
	var results []any
	if ri.Type == "" || ri.Type == "CUSTOMER_REFERENCE" {
		s.sales.Each(func(sh *shipment) {
			if sh.Reference == ri.Value {
				results = append(results, sh.referenceResult())
			}
		})
	}
	if len(results) == 0 {
		results = []any{map[string]any{
			"trackingNumberInfo": map[string]any{"trackingNumber": "", "trackingNumberUniqueId": "", "carrierCode": ""},
			"error": map[string]any{"code": CodeReferenceNotFound,
				"message": "Reference number cannot be found. Please correct the reference number and try again."},
		}}
	}
	fakekit.WriteJSON(w, http.StatusOK, map[string]any{
		"transactionId": newTransactionID(),
		"output": map[string]any{"completeTrackResults": []any{map[string]any{
			"trackingNumber": strings.TrimSpace(ri.Value), "trackResults": results,
		}}},
	})
}

// referenceResult is a shipment's trackResults[] entry in a reference
// answer; looking it up does not move its tracking on. Called with the
// sales book locked.
func (sh *shipment) referenceResult() map[string]any {
	code, desc := "OC", "Shipment information sent to FedEx"
	if n := len(sh.events); n > 0 {
		code, desc = sh.events[n-1].code, sh.events[n-1].desc
	}
	if sh.State == fakekit.Voided {
		code, desc = "CA", "Shipment cancelled by sender"
	}
	return map[string]any{
		"trackingNumberInfo": map[string]any{"trackingNumber": sh.TrackingNumber, "carrierCode": "FDXE",
			"trackingNumberUniqueId": "12029~" + sh.TrackingNumber + "~FDEG"},
		"latestStatusDetail": map[string]any{"code": code, "derivedCode": code, "statusByLocale": desc, "description": desc},
		"serviceDetail":      map[string]any{"type": sh.serviceType},
		"dateAndTimes": []any{map[string]any{"type": "SHIP",
			"dateTime": sh.SoldAt.In(zone).Format("2006-01-02T15:04:05-07:00")}},
		"scanEvents": []any{},
	}
}

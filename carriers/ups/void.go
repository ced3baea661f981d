package ups

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// codeAlreadyVoided is the Shipping API error "The Shipment has already
// been voided" (void error codes of the UPS Shipping Package developer
// guide). A void retried after a lost answer meets it; the label is void,
// which is what the caller asked for.
const codeAlreadyVoided = "190117"

// Void cancels a UPS shipment (DELETE /shipments/{version}/void/cancel/
// {shipmentidentificationnumber}). UPS voids at once, so a success is
// always VoidConfirmed; UPS has nothing like a refund request settled later.
func (c *Carrier) Void(ctx context.Context, req carriers.VoidRequest) (carriers.VoidStatus, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	tn := strings.ToUpper(strings.TrimSpace(req.TrackingNumber))
	id := strings.ToUpper(strings.TrimSpace(req.CarrierShipmentID))
	if id == "" {
		// A one-package shipment is identified by its package's 1Z number.
		id = tn
	}
	if id == "" {
		return "", &carriers.Error{Carrier: carrierName, Operation: opVoid,
			Message: "nothing to void: no tracking number or shipment id", Kind: carriers.ErrRejected}
	}
	var q url.Values
	if tn != "" && tn != id {
		// trackingnumber voids the named packages of a multi-package
		// shipment; it is left out otherwise because UPS refuses package
		// level voids of international shipments (error 190113).
		q = url.Values{"trackingnumber": {tn}}
	}
	var transID string
	if ref := strings.TrimSpace(req.Reference); ref != "" {
		sum := sha256.Sum256([]byte("shipd/ups/void/" + ref))
		transID = hex.EncodeToString(sum[:])[:32]
	}
	a, err := c.do(ctx, apiRequest{
		op:      opVoid,
		method:  http.MethodDelete,
		path:    "/api/shipments/" + shippingVersion + "/void/cancel/" + url.PathEscape(id),
		query:   q,
		transID: transID,
	})
	if err != nil {
		return "", err
	}
	if !a.ok() {
		e := c.failure(opVoid, a)
		if e.Code == codeAlreadyVoided {
			return carriers.VoidConfirmed, nil
		}
		return "", e
	}
	res, perr := parseVoidResponse(a.body)
	if perr != nil {
		return "", malformed(opVoid, a.status, "%v", perr)
	}
	if !res.voided {
		return "", &carriers.Error{Carrier: carrierName, Operation: opVoid, HTTPStatus: a.status,
			Code: carriers.Excerpt(a.clean(res.code)), Message: carriers.Excerpt(a.clean(res.message)), Kind: carriers.ErrRejected}
	}
	return carriers.VoidConfirmed, nil
}

// Shipping API void response (Shipping.yaml VOIDSHIPMENTResponseWrapper).
type voidAnswer struct {
	VoidShipmentResponse *struct {
		Response      responseStatus `json:"Response"`
		SummaryResult *struct {
			Status codeDesc `json:"Status"`
		} `json:"SummaryResult"`
		PackageLevelResults oneOrMany[struct {
			TrackingNumber string   `json:"TrackingNumber"`
			Status         codeDesc `json:"Status"`
		}] `json:"PackageLevelResults"`
	} `json:"VoidShipmentResponse"`
}

type voidResult struct {
	voided        bool
	code, message string
}

// parseVoidResponse reads a void answer: SummaryResult/Status/Code "1" is
// voided; a package whose Status/Code is "0" ("Not Voided") was not.
func parseVoidResponse(body []byte) (voidResult, error) {
	var a voidAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		return voidResult{}, fmt.Errorf("void answer is not the documented JSON: %w", err)
	}
	v := a.VoidShipmentResponse
	if v == nil || v.SummaryResult == nil {
		return voidResult{}, fmt.Errorf("void answer has no SummaryResult")
	}
	st := v.SummaryResult.Status
	if strings.TrimSpace(st.Code) == "" {
		return voidResult{}, fmt.Errorf("void answer has no SummaryResult/Status/Code")
	}
	if st.Code != "1" {
		msg := strings.TrimSpace(st.Description)
		if msg == "" {
			msg = "UPS did not void the shipment"
		}
		return voidResult{code: st.Code, message: msg}, nil
	}
	for _, p := range v.PackageLevelResults {
		if p.Status.Code == "0" {
			return voidResult{code: p.Status.Code, message: fmt.Sprintf("package %s not voided: %s",
				strings.TrimSpace(p.TrackingNumber), strings.TrimSpace(p.Status.Description))}, nil
		}
	}
	return voidResult{voided: true}, nil
}

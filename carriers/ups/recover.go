package ups

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// opRecover is the Label Recovery call, as carriers.Error.Operation.
const opRecover = "label_recovery"

// recoveryPath is the Shipping API's Label Recovery (Shipping.yaml
// "/labels/{version}/recovery"); v1 is its original feature set, all a
// forward label needs.
const recoveryPath = "/api/labels/v1/recovery"

// Label Recovery request (LABELRECOVERYRequestWrapper): by the combination
// of reference number and shipper number, which UPS documents as the
// alternative to a tracking number, with the same GIF 4x6 label a purchase asks for.
type recoveryEnvelope struct {
	LabelRecoveryRequest recoveryRequest `json:"LabelRecoveryRequest"`
}

type recoveryRequest struct {
	Request            recoveryHeader     `json:"Request"`
	LabelSpecification recoveryLabelSpec  `json:"LabelSpecification"`
	ReferenceValues    recoveryReferences `json:"ReferenceValues"`
}

type recoveryHeader struct {
	SubVersion           string                `json:"SubVersion,omitempty"`
	TransactionReference *transactionReference `json:"TransactionReference,omitempty"`
}

type recoveryLabelSpec struct {
	HTTPUserAgent    string    `json:"HTTPUserAgent"`
	LabelImageFormat codeDesc  `json:"LabelImageFormat"`
	LabelStockSize   stockSize `json:"LabelStockSize"`
}

type recoveryReferences struct {
	ReferenceNumber referenceNumber `json:"ReferenceNumber"`
	ShipperNumber   string          `json:"ShipperNumber"`
}

// recoveryAnswer is the part of LABELRECOVERYResponseWrapper shipd reads.
type recoveryAnswer struct {
	LabelRecoveryResponse *struct {
		Response                     responseStatus           `json:"Response"`
		ShipmentIdentificationNumber string                   `json:"ShipmentIdentificationNumber"`
		LabelResults                 oneOrMany[recoveryLabel] `json:"LabelResults"`
	} `json:"LabelRecoveryResponse"`
}

type recoveryLabel struct {
	TrackingNumber string `json:"TrackingNumber"`
	LabelImage     *struct {
		LabelImageFormat codeDesc `json:"LabelImageFormat"`
		GraphicImage     string   `json:"GraphicImage"`
	} `json:"LabelImage"`
}

// FindPurchase asks UPS's Label Recovery for the label the account shipped
// with the purchase's reference (every purchase sends the shipd shipment id
// as its ReferenceNumber). UPS answers the tracking number and the label
// image again, so the purchase adopts the label it had bought. A refusal
// (4xx) is "no label for this reference": UPS's OpenAPI documents no
// specific code for it; an unavailable or failing UPS is an error.
func (c *Carrier) FindPurchase(ctx context.Context, req carriers.BuyRequest) (carriers.Label, bool, error) {
	ref := strings.TrimSpace(req.Reference)
	if ref == "" {
		return carriers.Label{}, false, nil
	}
	a, err := c.do(ctx, apiRequest{
		op: opRecover, method: http.MethodPost, path: recoveryPath,
		body: recoveryEnvelope{LabelRecoveryRequest: recoveryRequest{
			Request: recoveryHeader{SubVersion: "1903", TransactionReference: &transactionReference{CustomerContext: ref}},
			LabelSpecification: recoveryLabelSpec{HTTPUserAgent: "Mozilla/4.5",
				LabelImageFormat: codeDesc{Code: labelGIF}, LabelStockSize: stockSize{Height: "6", Width: "4"}},
			ReferenceValues: recoveryReferences{ReferenceNumber: referenceNumber{Value: truncate(ref, 35)},
				ShipperNumber: c.cfg.AccountNumber},
		}},
		transID: buyTransID(ref),
	})
	if err != nil {
		return carriers.Label{}, false, err
	}
	if !a.ok() {
		e := c.failure(opRecover, a)
		if a.status >= 400 && a.status < 500 && errors.Is(e, carriers.ErrRejected) {
			return carriers.Label{}, false, nil
		}
		return carriers.Label{}, false, e
	}
	res, perr := parseRecoveryResponse(a.body)
	if perr != nil {
		return carriers.Label{}, false, malformed(opRecover, a.status, "%v", perr)
	}
	if req.Format() == carriers.LabelZPL {
		// Recovery answers the GIF, and a ZPL label is never converted from
		// it: with no document, the purchase voids the label and buys anew.
		label := carriers.Label{TrackingNumber: res.trackingNumber}
		if res.shipmentID != res.trackingNumber {
			label.CarrierShipmentID = res.shipmentID
		}
		return label, true, nil
	}
	// Bounded like a bought label's image (label.go): a malformed answer
	// when it is no label; in the format and size the purchase asked.
	label, err := c.labelDocument(ctx, a.status, req.Format(), req.Size(), res)
	if err != nil {
		return carriers.Label{}, false, err
	}
	return label, true, nil
}

// parseRecoveryResponse reads the first label of a Label Recovery answer.
func parseRecoveryResponse(body []byte) (shipResult, error) {
	var a recoveryAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		return shipResult{}, fmt.Errorf("label recovery answer is not the documented JSON: %w", err)
	}
	r := a.LabelRecoveryResponse
	if r == nil || len(r.LabelResults) == 0 {
		return shipResult{}, fmt.Errorf("label recovery answer has no LabelResults")
	}
	l := r.LabelResults[0]
	tn := strings.ToUpper(strings.TrimSpace(l.TrackingNumber))
	if tn == "" {
		return shipResult{}, fmt.Errorf("label recovery answer has no TrackingNumber")
	}
	if l.LabelImage == nil || strings.TrimSpace(l.LabelImage.GraphicImage) == "" {
		return shipResult{}, fmt.Errorf("label recovery answer has no label image (LabelImage/GraphicImage)")
	}
	switch f := strings.ToUpper(strings.TrimSpace(l.LabelImage.LabelImageFormat.Code)); f {
	case "", "GIF", "PNG":
	default:
		return shipResult{}, fmt.Errorf("recovered label image format is %q, not GIF", f)
	}
	img, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(l.LabelImage.GraphicImage), ""))
	if err != nil {
		return shipResult{}, fmt.Errorf("recovered label image is not base64: %w", err)
	}
	id := strings.ToUpper(strings.TrimSpace(r.ShipmentIdentificationNumber))
	if id == "" {
		id = tn
	}
	return shipResult{trackingNumber: tn, shipmentID: id, image: img}, nil
}

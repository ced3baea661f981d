package fedex

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// cancelPath is the Ship API v1 cancel-shipment endpoint (PUT).
const cancelPath = "/ship/v1/shipments/cancel"

// cancelRequest is the Cancel Shipment request body (Full_Schema_Cancel_Shipment).
type cancelRequest struct {
	AccountNumber   accountNumber `json:"accountNumber"`
	DeletionControl string        `json:"deletionControl"`
	TrackingNumber  string        `json:"trackingNumber"`
}

// Void cancels a FedEx shipment. FedEx cancels at once or refuses (already
// tendered, outside the window, unknown number); it never settles later, so
// the answer is VoidConfirmed or an ErrRejected carrying FedEx's code.
func (c *Carrier) Void(ctx context.Context, req carriers.VoidRequest) (carriers.VoidStatus, error) {
	tn := strings.TrimSpace(req.CarrierShipmentID)
	if tn == "" {
		tn = strings.TrimSpace(req.TrackingNumber)
	}
	if tn == "" {
		return "", fmt.Errorf("fedex: void without a tracking number: %w", carriers.ErrRejected)
	}
	body, err := c.do(ctx, request{
		op: opVoid, method: http.MethodPut, path: cancelPath,
		body: cancelRequest{
			AccountNumber:   accountNumber{Value: c.account},
			DeletionControl: "DELETE_ALL_PACKAGES",
			TrackingNumber:  tn,
		},
	})
	if err != nil {
		return "", c.scrub(err)
	}
	st, err := parseCancelResponse(body)
	return st, c.scrub(err)
}

// cancelResponse is the Cancel Shipment answer (SHPCResponseVO_CancelShipment).
type cancelResponse struct {
	Output *struct {
		CancelledShipment *bool  `json:"cancelledShipment"`
		Message           string `json:"message"`
		Alerts            []struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"alerts"`
	} `json:"output"`
}

// parseCancelResponse: cancelledShipment true is VoidConfirmed, false is a
// refusal with FedEx's message and the code of its first alert.
func parseCancelResponse(body []byte) (carriers.VoidStatus, error) {
	var r cancelResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return "", malformed(opVoid, "the cancel answer does not parse: %v", err)
	}
	if r.Output == nil || r.Output.CancelledShipment == nil {
		return "", malformed(opVoid, "the cancel answer does not say whether the shipment was cancelled")
	}
	if *r.Output.CancelledShipment {
		return carriers.VoidConfirmed, nil
	}
	e := &carriers.Error{Carrier: Name, Operation: opVoid, HTTPStatus: http.StatusOK, Kind: carriers.ErrRejected,
		Message: strings.TrimSpace(r.Output.Message)}
	for _, a := range r.Output.Alerts {
		if e.Code == "" {
			e.Code = strings.TrimSpace(a.Code)
		}
		if e.Message == "" {
			e.Message = strings.TrimSpace(a.Message)
		}
	}
	if e.Message == "" {
		e.Message = "FedEx did not cancel the shipment"
	}
	return "", e
}

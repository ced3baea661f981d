package dhlparcelde

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// Void deletes the label's order (DELETE /orders): "only possible prior to
// them being manifested (closed out, 'Tagesabschluss')". DHL's refusal (a
// shipment closed out, or unknown: 400) is ErrRejected with its message.
// A DHL Retoure label is not the Shipping API's: it is paid only when the
// customer uses it, and the Returns API has no delete, so its void is
// confirmed without a call.
func (c *Carrier) Void(ctx context.Context, req carriers.VoidRequest) (carriers.VoidStatus, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	tn := carriers.NormalizeTrackingNumber(req.TrackingNumber)
	if tn == "" {
		return "", rejected(opVoid, "no shipment number to delete")
	}
	if req.CarrierShipmentID == retoureMarker {
		return carriers.VoidConfirmed, nil
	}
	a, err := c.do(ctx, apiRequest{op: opVoid, method: http.MethodDelete, path: shippingPath + "/orders",
		query: url.Values{"profile": {profile}, "shipment": {tn}}})
	if err != nil {
		return "", c.scrub(err)
	}
	if !a.ok() {
		return "", c.scrub(c.failure(opVoid, a))
	}
	if err := parseDeleteAnswer(a.status, a.body, tn); err != nil {
		return "", c.scrub(err)
	}
	return carriers.VoidConfirmed, nil
}

// parseDeleteAnswer reads a delete's 2xx answer (LabelDataResponse): nil
// unless the item of tn says DHL refused it. An answer without an item is
// DHL's 200 for the request as a whole.
func parseDeleteAnswer(httpStatus int, body []byte, tn string) error {
	var r labelDataResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return malformed(opVoid, httpStatus, "the delete answer is not the documented JSON: %v", err)
	}
	for _, it := range r.Items {
		if n := carriers.NormalizeTrackingNumber(it.ShipmentNo); n != "" && n != tn {
			continue
		}
		if code := it.Sstatus.code(); code >= 300 {
			return &carriers.Error{Carrier: carrierName, Operation: opVoid, HTTPStatus: code, Kind: carriers.ErrRejected,
				Message: carriers.Excerpt(strings.TrimSpace(it.item().message()))}
		}
	}
	return nil
}

package gls

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// cancelAnswer is ShipIT's CancelParcelResponse.
type cancelAnswer struct {
	TrackID string `json:"TrackID"`
	Result  string `json:"Result"`
}

// Cancel results. The document types Result as a string without its
// values; these are ShipIT's (its SOAP schema's CancelParcelResponse).
const (
	resultCancelled = "CANCELLED"
	// resultPending: GLS accepted the cancellation and settles it later.
	resultPending = "CANCELLATION_PENDING"
)

// Void cancels every parcel of the label by its TrackID (POST
// /rs/shipments/cancel/{trackID}). GLS cancels a parcel until it is
// scanned into its network: after that, or for any result but CANCELLED
// (SCANNED, ERROR), the void is refused (ErrRejected) with GLS's result.
// A cancellation GLS only accepted (CANCELLATION_PENDING) is
// VoidRequested, asked again later.
func (c *Carrier) Void(ctx context.Context, req carriers.VoidRequest) (carriers.VoidStatus, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	ids := splitTrackIDs(req.CarrierShipmentID)
	if len(ids) == 0 {
		return "", rejected(opVoid, "the label has no GLS TrackID to cancel it by")
	}
	status := carriers.VoidConfirmed
	for i, id := range ids {
		a, err := c.do(ctx, request{op: opVoid, method: http.MethodPost, path: shipitPath + "/shipments/cancel/" + url.PathEscape(id)})
		if err != nil {
			return "", partial(err, ids[:i])
		}
		result, err := parseCancel(a.body)
		if err != nil {
			return "", partial(malformed(opVoid, a.status, "%v", err), ids[:i])
		}
		switch result {
		case resultCancelled:
		case resultPending:
			status = carriers.VoidRequested
		default:
			return "", partial(&carriers.Error{Carrier: carrierName, Operation: opVoid, HTTPStatus: a.status, Kind: carriers.ErrRejected,
				Code: carriers.Excerpt(a.redact.Redact(result)), Message: fmt.Sprintf("GLS did not cancel parcel %s (TrackID %s): %s", parcelOf(req, i), id,
					carriers.Excerpt(a.redact.Redact(result)))}, ids[:i])
		}
	}
	return status, nil
}

// parseCancel reads a cancel answer's Result, upper case.
func parseCancel(body []byte) (string, error) {
	var ans cancelAnswer
	if err := json.Unmarshal(body, &ans); err != nil {
		return "", fmt.Errorf("the cancel answer is not the documented JSON: %w", err)
	}
	result := strings.ToUpper(strings.TrimSpace(ans.Result))
	if result == "" {
		return "", fmt.Errorf("the cancel answer has no Result")
	}
	return result, nil
}

// parcelOf is the parcel number of piece i of the voided label.
func parcelOf(req carriers.VoidRequest, i int) string {
	if i < len(req.Pieces) {
		return req.Pieces[i]
	}
	if i == 0 {
		return req.TrackingNumber
	}
	return fmt.Sprint("#", i+1)
}

// partial says, in a void's error, which parcels GLS did cancel before it
// refused or failed: the rest of the shipment stands.
func partial(err error, cancelled []string) error {
	if len(cancelled) == 0 {
		return err
	}
	var ce *carriers.Error
	if errors.As(err, &ce) {
		ce.Message += fmt.Sprintf(" (TrackIDs %s were cancelled)", strings.Join(cancelled, ", "))
	}
	return err
}

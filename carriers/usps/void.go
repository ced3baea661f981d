package usps

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// internationalTracking is the UPU S10 shape of international tracking
// numbers (EZ000012162US); domestic IMpb numbers are 20 to 34 digits. The
// shape says which API bought the label and so which one cancels it.
var internationalTracking = regexp.MustCompile(`^[A-Z]{2}[0-9]{9}[A-Z]{2}$`)

// Refund statuses of a CancelResponse.
const (
	// refundCanceled: the label was cancelled before its Shipping Services
	// File was sent; no postage is ever charged.
	refundCanceled = "CANCELED"
	// refundDisputed: the label was already manifested, so a refund request
	// was filed that USPS settles later.
	refundDisputed = "DISPUTED"
)

// Void cancels a label or asks for its refund (DELETE .../label/{trackingNumber}).
// USPS answers CANCELED (confirmed) or DISPUTED (a refund request it settles
// later: requested). Asked again the same day for a disputed label, USPS
// refuses a duplicate request; that refusal says the request stands, so it
// is reported as requested. Any other refusal (not found, already used, too
// late) is ErrRejected with USPS's code and message.
func (c *Carrier) Void(ctx context.Context, req carriers.VoidRequest) (carriers.VoidStatus, error) {
	tn := strings.ToUpper(strings.TrimSpace(req.TrackingNumber))
	if tn == "" {
		return "", &carriers.Error{Carrier: CarrierName, Operation: opVoid, Message: "no tracking number to void", Kind: carriers.ErrRejected}
	}
	path := labelPath + "/" + url.PathEscape(tn)
	if internationalTracking.MatchString(tn) {
		path = intlLabelPath + "/" + url.PathEscape(tn)
	}
	a, err := c.send(ctx, request{op: opVoid, method: http.MethodDelete, path: path, payment: true})
	if err != nil {
		return "", err
	}
	if a.ok() {
		return parseVoid(a.body)
	}
	if a.status == http.StatusBadRequest && refundAlreadyRequested(a.body) {
		return carriers.VoidRequested, nil
	}
	return "", statusError(opVoid, a, c.now())
}

// refundAlreadyRequested recognises the documented refusal of a second
// refund request for the same label on the same day ("A refund request for
// this order has already been submitted today").
func refundAlreadyRequested(body []byte) bool {
	_, msg := parseErrorBody(body)
	return strings.Contains(strings.ToLower(msg), "already been submitted")
}

func parseVoid(body []byte) (carriers.VoidStatus, error) {
	var ans struct {
		TrackingNumber string `json:"trackingNumber"`
		Status         string `json:"status"`
		DisputeID      string `json:"disputeId"`
	}
	if err := decodeJSON(body, &ans); err != nil {
		return "", failed(opVoid, http.StatusOK, "the cancel answer does not parse: %v", err)
	}
	switch strings.ToUpper(strings.TrimSpace(ans.Status)) {
	case refundCanceled:
		return carriers.VoidConfirmed, nil
	case refundDisputed:
		return carriers.VoidRequested, nil
	case "":
		return "", failed(opVoid, http.StatusOK, "the cancel answer has no status")
	default:
		return "", failed(opVoid, http.StatusOK, "the cancel answer has the unknown status %q", carriers.Excerpt(ans.Status))
	}
}

package fedex

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// nothingToClose reports whether FedEx refused a close for having no open
// Ground shipment (CLOSE.NOSHIPMENTS.ERROR, "No shipments to close").
func nothingToClose(err error) bool {
	var ce *carriers.Error
	if !errors.As(err, &ce) || !errors.Is(err, carriers.ErrRejected) {
		return false
	}
	return strings.Contains(strings.ToUpper(ce.Code), "NOSHIPMENTS") || strings.Contains(strings.ToLower(ce.Message), "no shipments to close")
}

// reprintClose is a resumed close that FedEx refused for having nothing to
// close: the earlier call closed the labels (FedEx closes every open
// Ground shipment of the account at once) and its answer was lost. FedEx
// keeps a close's documents three days and reprints them (closeReqType
// RGCDR); by the first label's tracking number, the reprint is of the
// close that took the labels, whoever made it. A reprint FedEx refuses
// leaves the close's own refusal (closed is that error): the labels were
// not closed by a close FedEx can show.
func (c *Carrier) reprintClose(ctx context.Context, req carriers.ManifestRequest, closed error) (carriers.ManifestForm, error) {
	if len(req.Labels) == 0 || strings.TrimSpace(req.Labels[0].TrackingNumber) == "" {
		return carriers.ManifestForm{}, closed
	}
	body, err := c.do(ctx, request{op: opManifest, method: http.MethodPut, path: endOfDayPath, transactionID: req.Reference,
		body: endOfDayRequest{AccountNumber: accountNumber{Value: c.account}, CloseReqType: "RGCDR",
			GroundServiceCategory: "GROUND", CloseDate: c.shipDate(),
			ReprintOption: "BY_TRACKING_NUMBER", TrackingNumber: req.Labels[0].TrackingNumber}})
	switch {
	case errors.Is(err, carriers.ErrRejected):
		return carriers.ManifestForm{}, closed
	case err != nil:
		return carriers.ManifestForm{}, c.scrub(err)
	}
	form, err := closeForm(body, req.Reference)
	if err != nil {
		return carriers.ManifestForm{}, err
	}
	form.Recovered = true
	return form, nil
}
